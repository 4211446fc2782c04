import Posix
import Testing
@testable import RunWayApp
@testable import RunWayDomain

/// A moment from an ISO 8601 text (UTC).
private func at(_ iso: String) -> Double { Timestamp.parseISO8601(iso)! }

private struct Run: Equatable {
    let name: String
    let startedAt: Double
    var distanceKm = 5.0
}

private func group(_ runs: [Run], _ calendar: LogbookCalendar) -> [LogbookGrouping.Month<Run>] {
    LogbookGrouping.group(runs, calendar: calendar, startedAt: \.startedAt, distanceKm: \.distanceKm)
}

@Suite struct LogbookCalendarTests {
    /// CLDR 38 weekData: the territories of the app's languages and of the brief's examples.
    @Test(arguments: [
        ("ko_KR.UTF-8", Weekday.sunday), ("ja_JP.UTF-8", .sunday), ("en_US.UTF-8", .sunday),
        ("en_GB.UTF-8", .monday), ("de_DE.UTF-8", .monday), ("de_DE@euro", .monday), ("fr_FR", .monday),
        ("en-GB", .monday), ("zh_Hant_TW.UTF-8", .sunday), ("ar_EG.UTF-8", .saturday), ("dv_MV", .friday),
        ("ko", .sunday), ("ja", .sunday), ("en", .sunday), ("de", .monday), ("pt_PT", .sunday), ("pt_BR", .sunday),
    ])
    func theLocaleDecidesTheFirstWeekday(locale: String, expected: Weekday) {
        #expect(LogbookCalendar.firstWeekday(locale: locale) == expected)
    }

    @Test func localesWithoutATerritoryTakeTheWorldDefault() {
        for locale in ["C", "POSIX", "C.UTF-8", "", "xx"] {
            #expect(LogbookCalendar.firstWeekday(locale: locale) == nil, "\(locale)")
        }
        #expect(LogbookCalendar.firstWeekday(environment: [:]) == .monday)
        #expect(LogbookCalendar.firstWeekday(environment: ["LANG": "C.UTF-8"]) == .monday)
    }

    @Test func lcAllBeatsLcTimeBeatsLang() {
        #expect(LogbookCalendar.firstWeekday(environment: ["LANG": "en_US.UTF-8"]) == .sunday)
        #expect(LogbookCalendar.firstWeekday(environment: ["LANG": "en_US.UTF-8", "LC_TIME": "en_GB.UTF-8"]) == .monday)
        #expect(LogbookCalendar.firstWeekday(environment: ["LC_ALL": "ko_KR.UTF-8", "LC_TIME": "en_GB.UTF-8"]) == .sunday)
        // An empty variable counts as unset, as in POSIX.
        #expect(LogbookCalendar.firstWeekday(environment: ["LC_ALL": "", "LC_TIME": "en_GB.UTF-8", "LANG": "en_US"]) == .monday)
    }

    @Test func weekdaysAndWeekStarts() {
        #expect(CivilDate(daysSince1970: 0).weekday == .thursday)
        #expect(CivilDate(daysSince1970: -1).weekday == .wednesday)
        let sunday = CivilDate(year: 2026, month: 11, day: 29)
        #expect(sunday.weekday == .sunday)
        #expect(LogbookCalendar(firstWeekday: .sunday).weekStart(of: sunday) == sunday)
        #expect(LogbookCalendar(firstWeekday: .monday).weekStart(of: sunday) == CivilDate(year: 2026, month: 11, day: 23))
        #expect(LogbookCalendar(firstWeekday: .saturday).weekStart(of: sunday) == CivilDate(year: 2026, month: 11, day: 28))
        // Across a year boundary: Friday 2027-01-01's week began in 2026.
        let newYear = CivilDate(year: 2027, month: 1, day: 1)
        #expect(newYear.weekday == .friday)
        #expect(LogbookCalendar(firstWeekday: .monday).weekStart(of: newYear) == CivilDate(year: 2026, month: 12, day: 28))
        #expect(LogbookCalendar(firstWeekday: .sunday).weekStart(of: newYear) == CivilDate(year: 2026, month: 12, day: 27))
    }

    @Test func datesAreLocal() {
        let seoul = LogbookCalendar(firstWeekday: .sunday, utcOffset: { _ in 9 * 3600 })
        let newYork = LogbookCalendar(firstWeekday: .sunday, utcOffset: { _ in -5 * 3600 })
        let moment = at("2026-11-30T20:30:00Z")
        #expect(LogbookCalendar(firstWeekday: .sunday).date(of: moment) == CivilDate(year: 2026, month: 11, day: 30))
        #expect(seoul.date(of: moment) == CivilDate(year: 2026, month: 12, day: 1))
        #expect(seoul.localTime(of: moment).minute == 5 * 60 + 30)
        #expect(newYork.date(of: at("2026-12-01T03:00:00Z")) == CivilDate(year: 2026, month: 11, day: 30))
        #expect(newYork.date(of: -1) == CivilDate(year: 1969, month: 12, day: 31))
    }
}

@Suite struct LogbookGroupingTests {
    @Test func groupsMonthThenWeekNewestFirst() {
        let runs = [
            Run(name: "oct-a", startedAt: at("2026-10-14T07:00:00Z"), distanceKm: 4),
            Run(name: "nov-sun", startedAt: at("2026-11-29T07:00:00Z"), distanceKm: 10),
            Run(name: "nov-mon", startedAt: at("2026-11-23T07:00:00Z"), distanceKm: 5),
            Run(name: "nov-sat", startedAt: at("2026-11-28T07:00:00Z"), distanceKm: 6),
            Run(name: "oct-b", startedAt: at("2026-10-15T07:00:00Z"), distanceKm: 3),
        ]
        let months = group(runs, LogbookCalendar(firstWeekday: .monday))
        #expect(months.map(\.key) == ["2026-11", "2026-10"])
        #expect(months.map(\.count) == [3, 2])
        #expect(months.map(\.distanceKm) == [21, 7])
        // Monday weeks: 23rd to 29th is one week.
        #expect(months[0].weeks.map(\.start) == [CivilDate(year: 2026, month: 11, day: 23)])
        #expect(months[0].weeks[0].entries.map(\.name) == ["nov-sun", "nov-sat", "nov-mon"])
        #expect(months[0].weeks[0].end == CivilDate(year: 2026, month: 11, day: 29))
        #expect(months[1].weeks[0].entries.map(\.name) == ["oct-b", "oct-a"])

        // Sunday weeks: the 29th starts a week of its own.
        let sundays = group(runs, LogbookCalendar(firstWeekday: .sunday))
        #expect(sundays[0].weeks.map(\.start) == [CivilDate(year: 2026, month: 11, day: 29), CivilDate(year: 2026, month: 11, day: 22)])
        #expect(sundays[0].weeks.map { $0.entries.map(\.name) } == [["nov-sun"], ["nov-sat", "nov-mon"]])
        #expect(sundays[0].weeks.map(\.distanceKm) == [10, 11])
    }

    /// A week that straddles New Year is split between the two months (and years); its start stays the
    /// calendar's.
    @Test func aWeekAcrossTheYearBoundary() {
        let runs = [
            Run(name: "dec-30", startedAt: at("2026-12-30T07:00:00Z")),
            Run(name: "jan-2", startedAt: at("2027-01-02T07:00:00Z")),
            Run(name: "jan-4", startedAt: at("2027-01-04T07:00:00Z")),
        ]
        let months = group(runs, LogbookCalendar(firstWeekday: .monday))
        #expect(months.map(\.key) == ["2027-01", "2026-12"])
        #expect(months[0].weeks.map(\.start) == [CivilDate(year: 2027, month: 1, day: 4), CivilDate(year: 2026, month: 12, day: 28)])
        #expect(months[0].weeks.map { $0.entries.map(\.name) } == [["jan-4"], ["jan-2"]])
        #expect(months[1].weeks.map(\.start) == [CivilDate(year: 2026, month: 12, day: 28)])
        #expect(months[1].weeks[0].entries.map(\.name) == ["dec-30"])

        // With Sunday weeks, 2027-01-04 (a Monday) shares the week of Sunday 2027-01-03.
        let sundays = group(runs, LogbookCalendar(firstWeekday: .sunday))
        #expect(sundays[0].weeks.map(\.start) == [CivilDate(year: 2027, month: 1, day: 3), CivilDate(year: 2026, month: 12, day: 27)])
    }

    @Test func theTimeZoneDecidesTheMonth() {
        let run = Run(name: "late", startedAt: at("2026-11-30T22:00:00Z"))
        #expect(group([run], LogbookCalendar(firstWeekday: .monday)).map(\.key) == ["2026-11"])
        let seoul = LogbookCalendar(firstWeekday: .monday, utcOffset: { _ in 9 * 3600 })
        #expect(group([run], seoul).map(\.key) == ["2026-12"])
    }

    /// A daylight-saving shift can put a later run on an earlier local date: it still joins its group
    /// rather than opening a second one.
    @Test func anOffsetThatChangesBetweenRunsKeepsOneGroupPerMonth() {
        let shift = at("2026-11-01T00:30:00Z")
        let calendar = LogbookCalendar(firstWeekday: .monday, utcOffset: { $0 < shift ? 3600 : -3600 })
        let runs = [
            Run(name: "before", startedAt: at("2026-10-31T23:15:00Z")),  // local 2026-11-01 00:15
            Run(name: "after", startedAt: at("2026-11-01T00:45:00Z")),  // local 2026-10-31 23:45
            Run(name: "oct", startedAt: at("2026-10-20T10:00:00Z")),
        ]
        let months = group(runs, calendar)
        #expect(months.map(\.key) == ["2026-11", "2026-10"])
        #expect(months[1].weeks.flatMap { $0.entries.map(\.name) } == ["after", "oct"])
    }

    @Test func runsStartedAtTheSameMomentShowTheLaterArrivalFirst() {
        let moment = at("2026-11-29T07:00:00Z")
        let runs = [Run(name: "first", startedAt: moment), Run(name: "second", startedAt: moment)]
        #expect(group(runs, LogbookCalendar(firstWeekday: .monday))[0].weeks[0].entries.map(\.name) == ["second", "first"])
        #expect(group([], LogbookCalendar(firstWeekday: .monday)).isEmpty)
    }
}
