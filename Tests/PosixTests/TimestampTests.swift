import Testing
@testable import Posix

@Suite struct TimestampTests {
    @Test func formatsKnownInstants() {
        #expect(Timestamp.iso8601(0) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.iso8601(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(Timestamp.iso8601(1_796_040_000) == "2026-11-30T12:00:00Z")
        #expect(Timestamp.iso8601(1_796_040_000.25, milliseconds: true) == "2026-11-30T12:00:00.250Z")
        #expect(Timestamp.iso8601(-1) == "1969-12-31T23:59:59Z")
    }

    @Test func parsesWhatItFormats() {
        for seconds in stride(from: -86_400.0 * 400, to: 86_400.0 * 365 * 80, by: 86_400.0 * 13.37) {
            let whole = seconds.rounded(.down)
            #expect(Timestamp.parseISO8601(Timestamp.iso8601(whole)) == whole)
        }
        #expect(Timestamp.parseISO8601("2026-11-29T12:00:00.5Z") == 1_795_953_600.5)
    }

    @Test func rejectsMalformedDates() {
        for text in [
            "", "2026-11-29", "2026-13-01T00:00:00Z", "2026-11-29T25:00:00Z", "2026-11-29T12:00:00", "2026-11-29T12:00:00+01:00", "x026-11-29T12:00:00Z",
        ] {
            #expect(Timestamp.parseISO8601(text) == nil, "\(text)")
        }
    }

    /// Issue 22: 19 fraction digits overflowed an `Int` (SIGILL in the router's argument check).
    @Test func aLongFractionIsRefusedNotOverflowed() {
        #expect(Timestamp.parseISO8601("2026-11-30T07:00:00.9999999999999999999Z") == nil)
        #expect(Timestamp.parseISO8601("2026-11-30T07:00:00." + String(repeating: "9", count: 10_000) + "Z") == nil)
        #expect(Timestamp.parseISO8601("2026-11-30T07:00:00.999999999Z") == 1_796_022_000.999999999)
        #expect(TimeText.parseInstant("2026-11-30T07:00:00.9999999999999999999Z") == .failure(.fractionTooLong))
        #expect(TimeText.parseInstant("2026-11-30T16:00:00.5+09:00") == .success(1_796_022_000.5))
        #expect(TimeText.parseInstant("2026-11-30t07:00:00z") == .success(1_796_022_000))
    }

    @Test func datesTheCalendarDoesNotHaveAreRefused() {
        for text in ["2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "0000-01-01T00:00:00Z", "2026-11-30T07:00:60Z", "1900-02-29T00:00:00Z"] {
            #expect(Timestamp.parseISO8601(text) == nil, "\(text)")
        }
        #expect(Timestamp.parseISO8601("2000-02-29T00:00:00Z") == 951_782_400)
        #expect(Timestamp.parseISO8601("2028-02-29T00:00:00Z") != nil)
    }

    /// The formatters fed by stored data or a peer take any `Double`.
    @Test func formattersTakeAnyNumber() {
        for value in [Double.nan, .infinity, -.infinity, 1e300, -1e300, Double(Int64.max), -Double(Int64.max)] {
            _ = TimeText.formatDuration(value)
            _ = TimeText.localDateTime(value)
            _ = Timestamp.iso8601(value, milliseconds: true)
        }
        #expect(TimeText.formatDuration(.nan) == "0s")
        #expect(TimeText.formatDuration(129_600) == "1d12h")
    }

    @Test func civilDatesRoundTrip() {
        for days in stride(from: Int64(-100_000), to: 100_000, by: 97) {
            let (y, m, d) = Timestamp.civil(fromDays: days)
            #expect(Timestamp.days(fromCivil: y, m, d) == days)
        }
    }
}

/// Outside text inside a one-line message.
@Suite struct OneLineTests {
    @Test func controlCharactersAreEscapedAndLongTextIsCut() {
        #expect(OneLine.quote("abc") == "'abc'")
        #expect(OneLine.quote("a\nb\tc\u{0}\u{1B}\u{2028}é") == #"'a\nb\tc\u{0}\u{1B}\u{2028}é'"#)
        #expect(OneLine.quote(String(repeating: "x", count: 500), limit: 10) == "'xxxxxxxxxx…'")
        #expect(!OneLine.escape(String(repeating: "\n\r", count: 100)).contains("\n"))
    }
}
