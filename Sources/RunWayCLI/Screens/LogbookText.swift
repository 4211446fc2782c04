import JSONText
import Posix
import RunWayDomain

/// The Logbook as the home screen shows it: month → week, newest first; the newest month expanded,
/// older months one line each (count, distance) unless asked for.
enum LogbookText {
    /// Which months to show in full.
    enum Expansion: Equatable {
        /// The newest month, plus these (`2026-11`).
        case newest(plus: Set<String>)
        case all

        /// `--expand all` or `--expand 2026-10[,2026-09...]`.
        static func parse(_ text: String?) throws(UsageError) -> Expansion {
            guard let text else { return .newest(plus: []) }
            if text == "all" { return .all }
            var months = Set<String>()
            for month in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                guard GroupExpansion.isMonthKey(month) else {
                    throw UsageError("--expand takes 'all' or months like 2026-11 (comma-separated), not \(OneLine.quote(text))")
                }
                months.insert(month)
            }
            return .newest(plus: months)
        }

        /// `--expand` on top of the remembered rule (#16): a month the user toggled keeps its state, one
        /// never touched is expanded only if it is the newest.
        func expands(_ key: String, isNewest: Bool, remembered: [String: Bool] = [:]) -> Bool {
            switch self {
            case .all: true
            case let .newest(plus): plus.contains(key) || GroupExpansion.isExpanded(key, isNewest: isNewest, remembered: remembered)
            }
        }
    }

    /// A logbook entry from `runway phone logbook`'s JSON.
    struct Entry {
        let json: JSONValue
        let startedAt: Double
        let distanceKm: Double

        init(_ json: JSONValue) {
            self.json = json
            startedAt = json["startedAt"]?.stringValue.flatMap(Timestamp.parseISO8601) ?? 0
            distanceKm = json["distanceKm"]?.doubleValue ?? 0
        }
    }

    /// The month keys, newest first.
    static func monthKeys(_ flights: [JSONValue], calendar: LogbookCalendar) -> [String] {
        LogbookGrouping.group(flights.map(Entry.init), calendar: calendar, startedAt: \.startedAt, distanceKm: \.distanceKm).map(\.key)
    }

    static func render(
        _ flights: [JSONValue], calendar: LogbookCalendar, expansion: Expansion = .newest(plus: []),
        remembered: [String: Bool] = [:]
    ) -> String {
        guard !flights.isEmpty else { return "The logbook is empty." }
        let months = LogbookGrouping.group(
            flights.map(Entry.init), calendar: calendar,
            startedAt: \.startedAt, distanceKm: \.distanceKm)
        let total = months.reduce(0.0) { $0 + $1.distanceKm }
        var lines = ["Logbook: \(count(flights.count)), \(Format.km(total)) (local time; weeks start on \(calendar.firstWeekday.fullName))"]
        for (index, month) in months.enumerated() {
            let expanded = expansion.expands(month.key, isNewest: index == 0, remembered: remembered)
            lines.append("\(expanded ? "[-]" : "[+]") \(monthName(month))  \(count(month.count))  \(Format.km(month.distanceKm))")
            guard expanded else { continue }
            for week in month.weeks {
                lines.append(
                    "    week \(week.start.weekday) \(week.start) - \(week.end.weekday) \(week.end)  \(count(week.entries.count))  \(Format.km(week.distanceKm))"
                )
                for entry in week.entries { lines.append("      " + line(entry.json, calendar: calendar)) }
            }
        }
        if case let .newest(plus) = expansion {
            for key in plus.sorted(by: >) where !months.contains(where: { $0.key == key }) {
                lines.append("(no flights in \(key))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `Sun 2026-11-29 07:00  5.02 km  28:41  5'42"/km  <id>`, in local time.
    static func line(_ flight: JSONValue, calendar: LogbookCalendar) -> String {
        let started = Format.localDateTime(flight["startedAt"]?.stringValue ?? "", calendar: calendar)
        let distance = Format.km(flight["distanceKm"]?.doubleValue ?? 0)
        let duration = Format.duration(flight["durationSeconds"]?.doubleValue ?? 0)
        let pace = Format.pace(flight["averagePaceSecondsPerKm"]?.doubleValue ?? 0)
        let id = flight["id"]?.stringValue ?? "?"
        return "\(started)  \(distance)  \(duration)  \(pace)  \(id)"
    }

    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August",
        "September", "October", "November", "December",
    ]

    static func monthName(_ month: LogbookGrouping.Month<Entry>) -> String {
        "\(month.key) \(monthNames[month.month - 1]) \(month.year)"
    }

    static func count(_ n: Int) -> String { n == 1 ? "1 flight" : "\(n) flights" }
}

extension Weekday {
    var fullName: String {
        ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][rawValue]
    }
}
