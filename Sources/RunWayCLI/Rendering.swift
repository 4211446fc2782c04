import JSONText
import Posix

/// Human-readable forms of flights.
enum Format {
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? "\(h):\(pad(m)):\(pad(s))" : "\(m):\(pad(s))"
    }

    static func pace(_ secondsPerKm: Double) -> String {
        guard secondsPerKm > 0, secondsPerKm.isFinite else { return "--" }
        let total = Int(secondsPerKm.rounded())
        return "\(total / 60)'\(pad(total % 60))\"/km"
    }

    static func km(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(pad(hundredths % 100)) km"
    }

    static func date(_ iso: String) -> String {
        // 2026-11-29T07:00:00Z -> 2026-11-29 07:00
        let characters = Array(iso)
        guard characters.count >= 16 else { return iso }
        return String(characters[0..<10]) + " " + String(characters[11..<16])
    }

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

enum LogbookText {
    static func render(_ flights: [JSONValue]) -> String {
        guard !flights.isEmpty else { return "The logbook is empty." }
        let sorted = flights.sorted { ($0["startedAt"]?.stringValue ?? "") > ($1["startedAt"]?.stringValue ?? "") }
        return (["\(flights.count) flight(s), newest first:"] + sorted.map { "  " + line($0) }).joined(separator: "\n")
    }

    static func line(_ flight: JSONValue) -> String {
        let started = Format.date(flight["startedAt"]?.stringValue ?? "")
        let distance = Format.km(flight["distanceKm"]?.doubleValue ?? 0)
        let duration = Format.duration(flight["durationSeconds"]?.doubleValue ?? 0)
        let pace = Format.pace(flight["averagePaceSecondsPerKm"]?.doubleValue ?? 0)
        let id = flight["id"]?.stringValue ?? "?"
        return "\(started)  \(distance)  \(duration)  \(pace)  \(id)"
    }
}

enum FlightSummaryText {
    static func headline(_ flight: JSONValue) -> String { LogbookText.line(flight) }

    static func render(_ flight: JSONValue) -> String {
        var lines = [
            "FLIGHT SUMMARY  \(flight["id"]?.stringValue ?? "?")",
            "  started     \(Format.date(flight["startedAt"]?.stringValue ?? ""))",
            "  distance    \(Format.km(flight["distanceKm"]?.doubleValue ?? 0))",
            "  duration    \(Format.duration(flight["durationSeconds"]?.doubleValue ?? 0))",
            "  avg pace    \(Format.pace(flight["averagePaceSecondsPerKm"]?.doubleValue ?? 0))",
            "  avg HR      \(Int((flight["averageHeartRate"]?.doubleValue ?? 0).rounded())) bpm",
            "  mode        \(flight["mode"]?.stringValue ?? "?")",
        ]
        let splits = Splits.compute(flight["samples"]?.arrayValue ?? [])
        if !splits.isEmpty {
            lines.append("  splits")
            for (index, split) in splits.enumerated() {
                lines.append("    km \(index + 1)\(split.partial ? "*" : " ")  \(Format.pace(split.pace))")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// Per-kilometre splits from [time, distance, pace, heartRate] samples.
enum Splits {
    struct Split { let pace: Double; let partial: Bool }

    static func compute(_ samples: [JSONValue]) -> [Split] {
        var splits: [Split] = []
        var lastTime = 0.0, lastDistance = 0.0, nextKm = 1000.0
        var previous = (time: 0.0, distance: 0.0)
        for sample in samples {
            guard let values = sample.arrayValue, values.count >= 2,
                  let time = values[0].doubleValue, let distance = values[1].doubleValue else { continue }
            while distance >= nextKm {
                // Interpolate the moment the kilometre was crossed.
                let fraction = distance > previous.distance ? (nextKm - previous.distance) / (distance - previous.distance) : 1
                let crossed = previous.time + fraction * (time - previous.time)
                splits.append(Split(pace: crossed - lastTime, partial: false))
                lastTime = crossed
                lastDistance = nextKm
                nextKm += 1000
            }
            previous = (time, distance)
        }
        if previous.distance - lastDistance > 50 {
            splits.append(Split(pace: (previous.time - lastTime) / ((previous.distance - lastDistance) / 1000), partial: true))
        }
        return splits
    }
}
