import Posix

/// A day of the week, numbered as `localtime` does (Sunday 0 … Saturday 6).
package enum Weekday: Int, Sendable, CaseIterable, CustomStringConvertible {
    case sunday, monday, tuesday, wednesday, thursday, friday, saturday

    /// `sun`, `mon`, … as CLDR and the command line spell them.
    package var shortName: String { ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][rawValue] }
    package var description: String { ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][rawValue] }

    package init?(shortName: String) {
        guard let day = Weekday.allCases.first(where: { $0.shortName == shortName.lowercased() }) else { return nil }
        self = day
    }
}

/// A date on the calendar, without a time or a zone.
package struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let year: Int
    package let month: Int
    package let day: Int

    package init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01.
    package init(daysSince1970 days: Int64) {
        (year, month, day) = Timestamp.civil(fromDays: days)
    }

    package var daysSince1970: Int64 { Timestamp.days(fromCivil: year, month, day) }
    /// 1970-01-01 was a Thursday.
    package var weekday: Weekday { Weekday(rawValue: Int(((daysSince1970 + 4) % 7 + 7) % 7))! }

    /// `2026-11-29`
    package var description: String {
        let pad = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(pad(month))-\(pad(day))"
    }

    package static func < (a: CivilDate, b: CivilDate) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }
}

/// The user's calendar as the Logbook needs it: which day a week starts on, and the offset of the local
/// time zone (so a run at 23:30 on the 30th belongs to the 30th where it was run, not to UTC's 31st).
///
/// Without Foundation, "the locale" is the POSIX environment (`LC_ALL`, `LC_TIME`, `LANG`) looked up in
/// CLDR's week data, and the time zone is the C library's (`TZ`, else `/etc/localtime`).
package struct LogbookCalendar: Sendable {
    package var firstWeekday: Weekday
    /// Seconds east of UTC at a given moment (it changes with daylight saving time).
    package var utcOffset: @Sendable (Double) -> Int

    package init(firstWeekday: Weekday, utcOffset: @escaping @Sendable (Double) -> Int = { _ in 0 }) {
        self.firstWeekday = firstWeekday
        self.utcOffset = utcOffset
    }

    /// The calendar of this process: the first weekday from the environment's locale, the offset from
    /// the C library's time zone.
    package static func current(firstWeekday: Weekday? = nil) -> LogbookCalendar {
        var environment: [String: String] = [:]
        for name in ["LC_ALL", "LC_TIME", "LANG"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return LogbookCalendar(
            firstWeekday: firstWeekday ?? Self.firstWeekday(environment: environment),
            utcOffset: Self.localUTCOffset)
    }

    /// The local date of a moment, and the minute of that day (0 for 00:00, 1439 for 23:59).
    package func localTime(of secondsSince1970: Double) -> (date: CivilDate, minute: Int) {
        // Clamped to the years 0001–9999 first: a stored time is formatted, never trusted (no trap).
        let range = Timestamp.formattableRange
        let seconds = secondsSince1970 == secondsSince1970 ? min(max(secondsSince1970, range.lowerBound), range.upperBound) : 0
        let local = Int64(clamping: (seconds + Double(utcOffset(seconds))).rounded(.down))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        return (CivilDate(daysSince1970: days), Int(local - days * 86_400) / 60)
    }

    package func date(of secondsSince1970: Double) -> CivilDate { localTime(of: secondsSince1970).date }

    /// The first day of the week that holds `date`.
    package func weekStart(of date: CivilDate) -> CivilDate {
        let back = (date.weekday.rawValue - firstWeekday.rawValue + 7) % 7
        return CivilDate(daysSince1970: date.daysSince1970 - Int64(back))
    }

    /// `localtime_r`'s offset for a moment: reads `TZ` (or `/etc/localtime`) once per process.
    @Sendable static func localUTCOffset(_ secondsSince1970: Double) -> Int {
        var time = time_t(Int64(clamping: secondsSince1970.rounded(.down)))
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return parts.tm_gmtoff
    }

    // MARK: - The first day of the week

    /// POSIX precedence: `LC_ALL`, then `LC_TIME` (dates are its category), then `LANG`. A locale with
    /// no territory CLDR knows (`C`, `POSIX`, unset) takes CLDR's world default, Monday.
    package static func firstWeekday(environment: [String: String]) -> Weekday {
        let locale = ["LC_ALL", "LC_TIME", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        return locale.flatMap(firstWeekday(locale:)) ?? .monday
    }

    /// `ko_KR.UTF-8`, `en-GB`, `de_DE@euro`, or a bare language (`ja`, through its likely territory);
    /// nil if no territory can be told.
    package static func firstWeekday(locale: String) -> Weekday? {
        let name = locale.split(separator: ".", maxSplits: 1).first.map { $0.split(separator: "@").first ?? $0 } ?? ""
        let parts = name.split(whereSeparator: { $0 == "_" || $0 == "-" }).map(String.init)
        guard let language = parts.first?.lowercased(), !language.isEmpty else { return nil }
        // A script subtag (zh-Hant-TW) sits between the language and the territory.
        let territory = parts.dropFirst().first { $0.count == 2 }?.uppercased() ?? likelyTerritory[language]
        guard let territory else { return nil }
        return CLDRWeekData.firstDay[territory] ?? .monday
    }

    /// CLDR's likely territory for the app's languages (Korean, English, Japanese) and a few others,
    /// for a locale that names only a language.
    static let likelyTerritory: [String: String] = [
        "ko": "KR", "en": "US", "ja": "JP", "de": "DE", "fr": "FR", "es": "ES", "it": "IT", "pt": "BR",
        "zh": "CN", "ru": "RU", "nl": "NL", "sv": "SE", "ar": "EG", "he": "IL", "hi": "IN",
    ]
}

/// CLDR 38 `supplemental/weekData.json`, `firstDay`: every territory whose week does not start on
/// Monday (the world default, `001`).
enum CLDRWeekData {
    static let firstDay: [String: Weekday] = {
        var table: [String: Weekday] = [:]
        let sunday = """
            AG AS AU BD BR BS BT BW BZ CA CN CO DM DO ET GT GU HK HN ID IL IN JM JP KE KH KR LA MH MM MO MT MX \
            MZ NI NP PA PE PH PK PR PT PY SA SG SV TH TT TW UM US VE VI WS YE ZA ZW
            """
        let saturday = "AE AF BH DJ DZ EG IQ IR JO KW LY OM QA SD SY"
        for territory in sunday.split(separator: " ") { table[String(territory)] = .sunday }
        for territory in saturday.split(separator: " ") { table[String(territory)] = .saturday }
        table["MV"] = .friday
        return table
    }()
}
