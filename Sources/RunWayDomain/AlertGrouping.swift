/// The Alerts view's grouping (1.3, #15): month → **day**, with no week level (warnings do not pile up
/// per day the way runs do), newest first at both levels, in local dates (`LogbookCalendar`).
package enum AlertGrouping {
    package struct AlertDayGroup<Entry> {
        package let date: CivilDate
        /// Newest first.
        package internal(set) var entries: [Entry] = []
    }

    package struct AlertMonthGroup<Entry> {
        package let year: Int
        package let month: Int
        /// Newest first.
        package internal(set) var days: [AlertDayGroup<Entry>] = []
        package internal(set) var count = 0

        /// `2026-10`: how `--expand` and `--toggle` name a month.
        package var key: String { month < 10 ? "\(year)-0\(month)" : "\(year)-\(month)" }
    }

    /// Groups `entries` (in any order); entries at the same moment keep their order, reversed.
    package static func group<Entry>(_ entries: [Entry], calendar: LogbookCalendar, at: (Entry) -> Double) -> [AlertMonthGroup<Entry>] {
        let ordered = entries.enumerated()
            .map { (index: $0.offset, at: at($0.element), entry: $0.element) }
            .sorted { ($0.at, $0.index) > ($1.at, $1.index) }
        var months: [AlertMonthGroup<Entry>] = []
        var monthIndex: [Int: Int] = [:]
        var dayIndex: [CivilDate: Int] = [:]
        for item in ordered {
            let date = calendar.date(of: item.at)
            let monthKey = date.year * 12 + date.month - 1
            let m = monthIndex.index(of: monthKey, in: &months) { AlertMonthGroup(year: date.year, month: date.month) }
            let d = dayIndex.index(of: date, in: &months[m].days) { AlertDayGroup(date: date) }
            months[m].days[d].entries.append(item.entry)
            months[m].count += 1
        }
        // A daylight-saving shift near midnight can list a later alert under an earlier date first.
        for m in months.indices { months[m].days.sort { $0.date > $1.date } }
        return months.sorted { ($0.year, $0.month) > ($1.year, $1.month) }
    }
}

extension Dictionary where Value == Int {
    /// The index of `key`'s group in `groups`: the first time, `make()` is appended to them and its
    /// index remembered here (the groups in the order their first entries came).
    mutating func index<Group>(of key: Key, in groups: inout [Group], _ make: () -> Group) -> Int {
        if let index = self[key] { return index }
        self[key] = groups.count
        groups.append(make())
        return groups.count - 1
    }
}
