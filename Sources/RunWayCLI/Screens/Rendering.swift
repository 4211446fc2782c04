import JSONText
import Posix
import RunWayDomain
import TerminalViews

/// Human-readable forms of flights.
enum Format {
    static func duration(_ seconds: Double) -> String {
        let total = Int(clamping: seconds.rounded())
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? "\(h):\(pad(m)):\(pad(s))" : "\(m):\(pad(s))"
    }

    static func pace(_ secondsPerKm: Double) -> String {
        guard secondsPerKm > 0, secondsPerKm.isFinite else { return "--" }
        let total = Int(clamping: secondsPerKm.rounded())
        return "\(total / 60)'\(pad(total % 60))\"/km"
    }

    static func km(_ value: Double) -> String {
        let hundredths = Int(clamping: (value * 100).rounded())
        return "\(hundredths / 100).\(pad(hundredths % 100)) km"
    }

    static func heartRate(_ bpm: Double?) -> String {
        guard let bpm, bpm > 0, bpm.isFinite else { return "--" }
        return "\(Int(clamping: bpm.rounded())) bpm"
    }

    /// `2026-11-29T07:00:00Z` → `Sun 2026-11-29 16:00` in the calendar's local time.
    static func localDateTime(_ iso: String, calendar: LogbookCalendar) -> String {
        guard let seconds = Timestamp.parseISO8601(iso) else { return iso }
        let (date, minute) = calendar.localTime(of: seconds)
        return "\(date.weekday) \(date) \(pad(minute / 60)):\(pad(minute % 60))"
    }

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

/// The Flight Summary: the stored figures, then what the samples tell (splits, stops, peak heart rate).
enum FlightSummaryText {
    static func render(_ flight: JSONValue, calendar: LogbookCalendar) -> String {
        let samples = (flight["samples"]?.arrayValue ?? []).compactMap(sample)
        let analysis = FlightAnalysis(samples: samples)
        let started = flight["startedAt"]?.stringValue ?? ""
        let ended = flight["endedAt"]?.stringValue ?? ""
        let elapsed = (Timestamp.parseISO8601(ended) ?? 0) - (Timestamp.parseISO8601(started) ?? 0)
        let moving = flight["durationSeconds"]?.doubleValue ?? 0
        var lines = [
            "FLIGHT SUMMARY  \(flight["id"]?.stringValue ?? "?")",
            "  started     \(Format.localDateTime(started, calendar: calendar))",
            "  distance    \(Format.km(flight["distanceKm"]?.doubleValue ?? 0))",
            "  duration    \(Format.duration(moving)) moving, \(Format.duration(max(elapsed, moving))) elapsed",
            "  avg pace    \(Format.pace(flight["averagePaceSecondsPerKm"]?.doubleValue ?? 0))",
            "  heart rate  avg \(Format.heartRate(flight["averageHeartRate"]?.doubleValue)), max \(Format.heartRate(analysis.maximumHeartRate))",
            "  mode        \(flight["mode"]?.stringValue == "heartRate" ? "heart rate (Mission Flight)" : "pace")",
        ]
        if !analysis.stops.isEmpty {
            let standing = analysis.stops.reduce(0.0) { $0 + $1.seconds }
            let places = analysis.stops.map { "\(Format.km($0.atMeters / 1000)) (\(Format.duration($0.seconds)))" }
            lines.append("  stops       \(analysis.stops.count), \(Format.duration(standing)) standing: \(places.joined(separator: ", "))")
        }
        if !analysis.splits.isEmpty {
            lines.append("  splits (moving time)")
            for split in analysis.splits {
                let label = split.isPartial ? "km \(split.kilometre)*" : "km \(split.kilometre) "
                lines.append("    \(label.padding(6))  \(Format.pace(split.pace).padding(9))  \(Format.heartRate(split.averageHeartRate))")
            }
            if analysis.splits.last?.isPartial == true {
                lines.append("    * the last \(Int(clamping: analysis.splits.last!.meters.rounded())) m, as a pace per km")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `[time, distance, pace, heartRate]` as `runway phone flight --json` gives it.
    static func sample(_ value: JSONValue) -> FlightSample? {
        guard let values = value.arrayValue, values.count >= 4 else { return nil }
        let numbers = values.prefix(4).compactMap(\.doubleValue)
        guard numbers.count == 4 else { return nil }
        return FlightSample(time: Float(numbers[0]), distance: Float(numbers[1]), pace: Float(numbers[2]), heartRate: Float(numbers[3]))
    }
}

extension String {
    /// Left-aligned in `width` display columns (a Korean or Japanese character takes two).
    func padding(_ width: Int) -> String { TextWidth.pad(self, width) }
}
