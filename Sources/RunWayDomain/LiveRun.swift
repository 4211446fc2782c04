import JSONText
import Posix

/// Who started a workout (RunWay's `startOrigin`): the device itself, or the other device (a phone-led
/// start the watch mirrors). Nil in RunWay means "no run": here that is the absence of a `LiveRun`.
public enum StartOrigin: String, Sendable, Codable {
    case local
    case remote
}

/// A run in progress, sample by sample: the samples so far, the GPWS engine and the alerts it raised.
/// Pure: the device that owns it persists its batches and reads its clock.
public struct LiveRun: Sendable {
    public let id: String
    /// Device time at the start; a sample's `time` counts from here.
    public let startedAt: Double
    public let target: GPWSTarget
    public let startOrigin: StartOrigin
    public private(set) var engine: GPWS
    public private(set) var samples: [FlightSample] = []
    public private(set) var alerts: [FlightAlert] = []

    /// A run holds at most this many samples (a day at one a second, and then some).
    public static let maximumSamples = 100_000
    /// A finished flight carries at most this many (the userInfo stays under 64 KiB with 200 alerts).
    public static let flightSamples = 2_000

    public init(id: String, startedAt: Double, target: GPWSTarget, behaviour: GPWSBehaviour, startOrigin: StartOrigin) {
        self.id = id
        self.startedAt = startedAt
        self.target = target
        self.startOrigin = startOrigin
        engine = GPWS(target: target, behaviour: behaviour)
    }

    public var status: GPWSStatus { engine.status }
    public var last: FlightSample? { samples.last }

    // MARK: - Samples

    /// Why `batch` cannot follow the samples so far, or nil: time strictly increasing, distance never
    /// decreasing, pace 0 or 120–1200 s/km, heart rate 0 or 30–250 bpm, all finite. A batch is taken
    /// whole or not at all.
    public func problem(with batch: [FlightSample]) -> String? {
        if batch.isEmpty { return "no samples given" }
        if samples.count + batch.count > Self.maximumSamples { return "a run holds at most \(Self.maximumSamples) samples" }
        var previous = samples.last
        for (index, sample) in batch.enumerated() {
            let where_ = batch.count == 1 ? "the sample" : "sample \(index + 1)"
            let t = Double(sample.time), d = Double(sample.distance), pace = Double(sample.pace), hr = Double(sample.heartRate)
            guard t.isFinite, d.isFinite, pace.isFinite, hr.isFinite else { return "\(where_) has a value that is not a finite number" }
            guard t > 0, t <= FlightLimits.longestRun else { return "\(where_): t must be more than 0 and at most 604800 seconds" }
            guard d >= 0, d <= FlightLimits.longestSampleMeters else { return "\(where_): distance must be 0 to 1000000 m" }
            guard pace == 0 || GPWSTarget.paceRange.contains(pace) else { return "\(where_): pace must be 0 (stationary) or 2:00 to 20:00 per km" }
            guard hr == 0 || (30...250).contains(hr) else { return "\(where_): heart rate must be 0 (no reading) or 30 to 250 bpm" }
            if let previous {
                guard sample.time > previous.time else { return "\(where_): time must increase (t \(Self.text(t)) after \(Self.text(Double(previous.time))))" }
                guard sample.distance >= previous.distance else {
                    return "\(where_): distance must not decrease (\(Self.text(d)) m after \(Self.text(Double(previous.distance))) m)"
                }
            }
            previous = sample
        }
        return nil
    }

    /// Why a batch's JSON is not samples at all (`batch`); its description is the one line the user sees.
    public struct BatchError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A batch from its JSON, `[[t, distanceM, paceSecPerKm, hr], …]` (what `runway … run sample
    /// --json-file` sends): four finite numbers each, under 10^9 in magnitude so that a `Float` holds
    /// them. Whether they make a run is `problem(with:)`'s to say.
    public static func batch(_ rows: [JSONValue]) throws(BatchError) -> [FlightSample] {
        var samples: [FlightSample] = []
        samples.reserveCapacity(min(rows.count, maximumSamples))
        for (index, row) in rows.enumerated() {
            guard let values = row.arrayValue, values.count == 4 else {
                throw BatchError(description: "sample \(index + 1) must be [t, distanceM, pace, hr]")
            }
            let numbers = values.compactMap(\.doubleValue)
            guard numbers.count == 4, numbers.allSatisfy({ $0.isFinite && abs($0) < 1e9 }) else {
                throw BatchError(description: "sample \(index + 1) must hold four numbers")
            }
            samples.append(FlightSample(time: Float(numbers[0]), distance: Float(numbers[1]), pace: Float(numbers[2]), heartRate: Float(numbers[3])))
        }
        return samples
    }

    /// Takes a batch already checked with `problem(with:)`; returns one decision per sample.
    public mutating func apply(_ batch: [FlightSample]) -> [GPWSDecision] {
        var decisions: [GPWSDecision] = []
        decisions.reserveCapacity(batch.count)
        for sample in batch {
            let decision = engine.evaluate(sample)
            if let type = decision.alert {
                let at = startedAt + Double(sample.time)
                alerts.append(
                    FlightAlert(
                        id: FlightAlert.id(runID: id, index: alerts.count, at: at), at: at, type: type,
                        mode: target.mode, value: decision.value ?? 0, target: target.text))
            }
            samples.append(sample)
            decisions.append(decision)
        }
        return decisions
    }

    // MARK: - Finishing

    /// Moving time: the time up to each moving sample from the one before it.
    public var movingSeconds: Double {
        var moving = 0.0, previous = 0.0
        for sample in samples {
            if sample.pace > 0 { moving += Double(sample.time) - previous }
            previous = Double(sample.time)
        }
        return moving
    }

    /// The finished flight: distance = the last distance, duration = moving time, average pace over moving
    /// time, average heart rate over moving samples with a reading; ends at `now` (device time), or at the
    /// last sample if that is later.
    public func flight(endingAt now: Double) -> Flight {
        let distanceKm = Double(samples.last?.distance ?? 0) / 1000
        let moving = movingSeconds
        let readings = samples.filter { $0.pace > 0 && $0.heartRate > 0 }
        let averageHR = readings.isEmpty ? 0 : readings.reduce(0.0) { $0 + Double($1.heartRate) } / Double(readings.count)
        let pace = distanceKm > 0 ? min(moving / distanceKm, FlightLimits.slowestPace) : 0
        let end = max(now, startedAt + Double(samples.last?.time ?? 0))
        return Flight(
            id: id, startedAt: startedAt, endedAt: end, distanceKm: (distanceKm * 1000).rounded() / 1000,
            durationSeconds: moving.rounded(), averagePaceSecondsPerKm: (pace * 10).rounded() / 10,
            averageHeartRate: (averageHR * 10).rounded() / 10, mode: target.mode,
            packedSamples: Flight.pack(Self.downsample(samples, to: Self.flightSamples)), alerts: alerts)
    }

    /// At most `limit` samples, evenly spaced, the last one kept.
    static func downsample(_ samples: [FlightSample], to limit: Int) -> [FlightSample] {
        guard samples.count > limit else { return samples }
        let step = Double(samples.count - 1) / Double(limit - 1)
        return (0..<limit).map { samples[Int((Double($0) * step).rounded())] }
    }

    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
