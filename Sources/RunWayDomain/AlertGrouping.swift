/// The Alerts view's grouping (1.3, #15): month → **day**, with no week level (warnings do not pile up
/// per day the way runs do), newest first at both levels, in local dates (`LogbookCalendar`).
public enum AlertGrouping {
    public struct AlertDayGroup<Entry> {
        public let date: CivilDate
        /// Newest first.
        public internal(set) var entries: [Entry] = []
    }

    public struct AlertMonthGroup<Entry> {
        public let year: Int
        public let month: Int
        /// Newest first.
        public internal(set) var days: [AlertDayGroup<Entry>] = []
        public internal(set) var count = 0

        /// `2026-10`: how `--expand` and `--toggle` name a month.
        public var key: String { month < 10 ? "\(year)-0\(month)" : "\(year)-\(month)" }
    }

    /// Groups `entries` (in any order); entries at the same moment keep their order, reversed.
    public static func group<Entry>(_ entries: [Entry], calendar: LogbookCalendar, at: (Entry) -> Double) -> [AlertMonthGroup<Entry>] {
        let ordered = entries.enumerated()
            .map { (index: $0.offset, at: at($0.element), entry: $0.element) }
            .sorted { ($0.at, $0.index) > ($1.at, $1.index) }
        var months: [AlertMonthGroup<Entry>] = []
        var monthIndex: [Int: Int] = [:]
        var dayIndex: [CivilDate: Int] = [:]
        for item in ordered {
            let date = calendar.date(of: item.at)
            let monthKey = date.year * 12 + date.month - 1
            let m: Int
            if let index = monthIndex[monthKey] {
                m = index
            } else {
                m = months.count
                monthIndex[monthKey] = m
                months.append(AlertMonthGroup(year: date.year, month: date.month))
            }
            let d: Int
            if let index = dayIndex[date] {
                d = index
            } else {
                d = months[m].days.count
                dayIndex[date] = d
                months[m].days.append(AlertDayGroup(date: date))
            }
            months[m].days[d].entries.append(item.entry)
            months[m].count += 1
        }
        // A daylight-saving shift near midnight can list a later alert under an earlier date first.
        for m in months.indices { months[m].days.sort { $0.date > $1.date } }
        return months.sorted { ($0.year, $0.month) > ($1.year, $1.month) }
    }
}
