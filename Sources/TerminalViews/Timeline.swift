import JSONText

/// What one poll saw of one device: whether its daemon answered, which process it was, and its count
/// (the watch's outbox depth, the phone's stored flights).
package struct DeviceSample: Sendable, Equatable {
    package var up: Bool
    package var pid: Int?
    package var count: Int?

    package init(up: Bool, pid: Int? = nil, count: Int? = nil) {
        self.up = up
        self.pid = pid
        self.count = up ? count : nil
    }

    package static let down = DeviceSample(up: false)
}

/// A daemon going away or coming back, as two polls show it.
package enum Transition: String, Sendable, Equatable {
    case down, up

    /// Down when it stops answering; up when it answers again; both when it answers as another process
    /// (killed and relaunched between two polls — its pid says so).
    package static func between(_ before: DeviceSample?, _ after: DeviceSample) -> [Transition] {
        guard let before else { return [] }
        switch (before.up, after.up) {
        case (true, false): return [.down]
        case (false, true): return [.up]
        case (true, true) where before.pid != nil && after.pid != nil && before.pid != after.pid: return [.down, .up]
        default: return []
        }
    }
}

/// A recorded scenario: the watch's outbox depth and the phone's stored count over time, sampled by
/// `runway timeline record`, with the moments a daemon went down or came up.
package struct Timeline: Sendable {
    package struct Sample: Sendable, Equatable {
        /// Seconds since the recording began.
        package var seconds: Double
        package var watch: DeviceSample
        package var phone: DeviceSample
        package init(seconds: Double, watch: DeviceSample, phone: DeviceSample) {
            self.seconds = seconds
            self.watch = watch
            self.phone = phone
        }
    }

    package struct Mark: Sendable, Equatable {
        package var seconds: Double
        package var device: String
        package var transition: Transition
        /// The new process's pid for `up`, the old one's for `down`.
        package var pid: Int?
    }

    package var pair: String
    package var intervalMilliseconds: Int
    package var samples: [Sample]

    package init(pair: String, intervalMilliseconds: Int, samples: [Sample]) {
        self.pair = pair
        self.intervalMilliseconds = intervalMilliseconds
        self.samples = samples
    }

    /// The last sample's time (0 for none, or for a time that is not a finite number).
    package var duration: Double {
        guard let last = samples.last?.seconds, last.isFinite else { return 0 }
        return max(0, last)
    }

    package var marks: [Mark] {
        var marks: [Mark] = []
        for (index, sample) in samples.enumerated() where index > 0 {
            let previous = samples[index - 1]
            for (device, before, after) in [("watch", previous.watch, sample.watch), ("phone", previous.phone, sample.phone)] {
                for transition in Transition.between(before, after) {
                    marks.append(
                        Mark(
                            seconds: sample.seconds, device: device, transition: transition,
                            pid: transition == .down ? before.pid : after.pid))
                }
            }
        }
        return marks
    }

    /// The last count each device reported (nil if it never answered).
    package var finalWatchOutbox: Int? { samples.last { $0.watch.up }?.watch.count }
    package var finalPhoneStored: Int? { samples.last { $0.phone.up }?.phone.count }

    // MARK: - The file

    /// One JSON object per line: a header, then one line per sample — so a recording that is
    /// interrupted still leaves every line it wrote readable, and a long one is never held in memory.
    ///
    ///     {"runwayTimeline":1,"pair":"default","intervalMs":100}
    ///     {"t":0.1,"watch":{"up":true,"pid":812,"count":500},"phone":{"up":false}}
    package static func headerLine(pair: String, intervalMilliseconds: Int, phone: String, watch: String, startedAt: String) -> String {
        JSONValue.object([
            "runwayTimeline": .integer(1), "pair": .string(pair), "intervalMs": .integer(Int64(intervalMilliseconds)),
            "phone": .string(phone), "watch": .string(watch), "startedAt": .string(startedAt),
        ]).text
    }

    package static func sampleLine(_ sample: Sample) -> String {
        func device(_ d: DeviceSample) -> JSONValue {
            var fields: [String: JSONValue] = ["up": .bool(d.up)]
            if let pid = d.pid { fields["pid"] = .integer(Int64(pid)) }
            if let count = d.count { fields["count"] = .integer(Int64(count)) }
            return .object(fields)
        }
        let milliseconds = Int64((max(0, min(sample.seconds, 1e7)) * 1000).rounded())
        return JSONValue.object(["t": .number(Double(milliseconds) / 1000), "watch": device(sample.watch), "phone": device(sample.phone)]).text
    }

    package struct FormatError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Parses a timeline file; a line that is not what `runway timeline record` writes is an error naming it.
    /// Every number has a range: times 0 to 10^7 s, not going back; pids 1 to 2^31-1; counts 0 to 10^9.
    package static func parse(_ text: String) throws(FormatError) -> Timeline {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).makeIterator()
        guard let first = lines.next(), let header = try? JSONValue(parsing: Array(first.utf8)),
            header["runwayTimeline"]?.intValue == 1
        else {
            throw FormatError(description: "not a timeline file (its first line is not {\"runwayTimeline\":1,...}; see runway timeline record)")
        }
        let interval = header["intervalMs"]?.intValue ?? 0
        guard (1...3_600_000).contains(interval) else { throw FormatError(description: "line 1: intervalMs must be 1 to 3600000") }
        var samples: [Sample] = []
        var number = 1
        while let line = lines.next() {
            number += 1
            guard let json = try? JSONValue(parsing: Array(line.utf8)), let t = json["t"]?.doubleValue,
                t.isFinite, (0...1e7).contains(t), t >= (samples.last?.seconds ?? 0)
            else {
                throw FormatError(description: "line \(number): not a sample (\"t\" in seconds, 0 to 10000000, never going back)")
            }
            guard let watch = device(json["watch"]), let phone = device(json["phone"]) else {
                throw FormatError(
                    description: "line \(number): \"watch\" and \"phone\" must be {\"up\":BOOL[,\"pid\":1..2147483647][,\"count\":0..1000000000]}")
            }
            samples.append(Sample(seconds: t, watch: watch, phone: phone))
        }
        return Timeline(pair: header["pair"]?.stringValue ?? "?", intervalMilliseconds: interval, samples: samples)
    }

    private static func device(_ json: JSONValue?) -> DeviceSample? {
        guard let json, let up = json["up"]?.boolValue else { return nil }
        var pid: Int?, count: Int?
        if let value = json["pid"] {
            guard let p = value.intValue, (1...Int(Int32.max)).contains(p) else { return nil }
            pid = p
        }
        if let value = json["count"] {
            guard let c = value.intValue, (0...1_000_000_000).contains(c) else { return nil }
            count = c
        }
        return DeviceSample(up: up, pid: pid, count: count)
    }
}
