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

    @Test func civilDatesRoundTrip() {
        for days in stride(from: Int64(-100_000), to: 100_000, by: 97) {
            let (y, m, d) = Timestamp.civil(fromDays: days)
            #expect(Timestamp.days(fromCivil: y, m, d) == days)
        }
    }
}
