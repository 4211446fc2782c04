/// The Logbook as the home screen lists it: grouped by month, then by week, newest first.
///
/// A week that straddles two months shows up in both, each time with the runs of that month: the month
/// is the outer group, so a run is always under the month it was run in. Weeks start on the calendar's
/// first weekday, and every date is the local one (`LogbookCalendar`).
package enum LogbookGrouping {
    package struct Week<Entry> {
        /// The first day of the calendar week (it may lie in the month, or the year, before).
        package let start: CivilDate
        /// Newest first.
        package internal(set) var entries: [Entry] = []
        package internal(set) var distanceKm = 0.0

        /// The week's last day.
        package var end: CivilDate { CivilDate(daysSince1970: start.daysSince1970 + 6) }
    }

    package struct Month<Entry> {
        package let year: Int
        package let month: Int
        /// Newest first.
        package internal(set) var weeks: [Week<Entry>] = []
        package internal(set) var count = 0
        package internal(set) var distanceKm = 0.0

        /// `2026-11`: how `--expand` names a month.
        package var key: String { month < 10 ? "\(year)-0\(month)" : "\(year)-\(month)" }
    }

    /// Groups `entries` (in any order) month → week, newest first at every level. Entries that started
    /// at the same moment keep their relative order, reversed (the later arrival first).
    package static func group<Entry>(
        _ entries: [Entry], calendar: LogbookCalendar,
        startedAt: (Entry) -> Double, distanceKm: (Entry) -> Double
    ) -> [Month<Entry>] {
        let ordered = entries.enumerated()
            .map { (index: $0.offset, started: startedAt($0.element), entry: $0.element) }
            .sorted { ($0.started, $0.index) > ($1.started, $1.index) }
        var months: [Month<Entry>] = []
        // Looked up, not just compared with the last group: a daylight-saving shift near midnight can
        // put a later run on an earlier local date.
        var monthIndex: [Int: Int] = [:]
        var weekIndex: [WeekKey: Int] = [:]
        for item in ordered {
            let date = calendar.date(of: item.started)
            let weekStart = calendar.weekStart(of: date)
            let distance = distanceKm(item.entry)
            let m = monthIndex.index(of: date.year * 12 + date.month - 1, in: &months) { Month(year: date.year, month: date.month) }
            let w = weekIndex.index(of: WeekKey(month: m, start: weekStart), in: &months[m].weeks) { Week(start: weekStart) }
            months[m].weeks[w].entries.append(item.entry)
            months[m].weeks[w].distanceKm += distance
            months[m].count += 1
            months[m].distanceKm += distance
        }
        months.sort { ($0.year, $0.month) > ($1.year, $1.month) }
        for m in months.indices { months[m].weeks.sort { $0.start > $1.start } }
        return months
    }

    private struct WeekKey: Hashable {
        let month: Int
        let start: CivilDate
    }
}
