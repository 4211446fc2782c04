/// ISO 8601 in UTC without Foundation's formatters: a logbook of 100,000 flights formats 200,000 dates,
/// and `ISO8601DateFormatter` is the slow part of that.
package enum Timestamp {
    /// `2026-11-29T12:32:01Z`, or with `milliseconds`, `2026-11-29T12:32:01.123Z`.
    package static func iso8601(_ secondsSince1970: Double, milliseconds: Bool = false) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(secondsSince1970, milliseconds: milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The range this formatter writes: years 0001 to 9999. Anything outside (and NaN, which becomes
    /// the earliest) is clamped to it, so formatting never traps, whatever a store holds.
    package static let formattableRange: ClosedRange<Double> = -62_135_596_800...253_402_300_799.999

    package static func appendISO8601(_ secondsSince1970: Double, milliseconds: Bool = false, to out: inout [UInt8]) {
        let clamped =
            secondsSince1970 == secondsSince1970
            ? min(max(secondsSince1970, formattableRange.lowerBound), formattableRange.upperBound)
            : formattableRange.lowerBound
        // Rounded down to the millisecond — but a time read from milliseconds (k / 1000, the nearest
        // Double) can land a hair below k once scaled, and must be written as k: within two ulps it is.
        let scaled = clamped * 1000
        let totalMs = Int64(clamping: (scaled + 2 * scaled.ulp).rounded(.down))
        var seconds = totalMs >= 0 ? totalMs / 1000 : (totalMs - 999) / 1000
        let ms = Int(totalMs - seconds * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        seconds -= days * 86_400
        let (year, month, day) = civil(fromDays: days)
        appendDigits(year, 4, &out); out.append(0x2D)
        appendDigits(month, 2, &out); out.append(0x2D)
        appendDigits(day, 2, &out); out.append(0x54)
        appendDigits(Int(seconds / 3600), 2, &out); out.append(0x3A)
        appendDigits(Int(seconds / 60 % 60), 2, &out); out.append(0x3A)
        appendDigits(Int(seconds % 60), 2, &out)
        if milliseconds { out.append(0x2E); appendDigits(ms, 3, &out) }
        out.append(0x5A)
    }

    /// The most digits a fraction of a second may have: nanoseconds, as far as any clock here goes. A
    /// longer one is refused, not rounded: a range for every number a peer can send.
    package static let maximumFractionDigits = 9

    /// Parses the forms `iso8601` writes, with a fraction of 1 to `maximumFractionDigits` digits. Total,
    /// for any text at all: a date the calendar does not have (`2026-02-30`), a second of 60, a year 0000
    /// or a longer fraction is nil.
    package static func parseISO8601(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 21 + maximumFractionDigits, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A,
            b[16] == 0x3A, b.last == 0x5A
        else { return nil }
        /// A field of at most nine digits: cannot overflow.
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range { guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }; value = value * 10 + Int(b[i] - 0x30) }
            return value
        }
        guard let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10),
            let h = number(11..<13), let mi = number(14..<16), let s = number(17..<19),
            y >= 1, (1...12).contains(mo), (1...daysIn(month: mo, year: y)).contains(d), h < 24, mi < 60, s < 60
        else { return nil }
        var fraction: (digits: Int64, scale: Int64) = (0, 1)
        if b.count > 20 {
            guard b[19] == 0x2E, b.count > 21, let f = number(20..<(b.count - 1)) else { return nil }
            var scale: Int64 = 1
            for _ in 20..<(b.count - 1) { scale *= 10 }
            fraction = (Int64(f), scale)
        } else if b.count != 20 {
            return nil
        }
        let whole = Self.days(fromCivil: y, mo, d) * 86_400 + Int64(h * 3600 + mi * 60 + s)
        // One rounding, not two, where the digits fit a Double exactly: `.352` is then the Double
        // nearest to whole + 352/1000, the one `iso8601` writes back as `.352`.
        let (digits, scale) = fraction
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: scale)
        let exact: Int64 = (1 << 53) - scale
        if !overflow, scaled > -exact, scaled < exact { return Double(scaled + digits) / Double(scale) }
        return Double(whole) + Double(digits) / Double(scale)
    }

    /// 28 to 31: the proleptic Gregorian calendar's month lengths.
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's algorithm).
    package static func civil(fromDays z0: Int64) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    package static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    @inline(__always)
    static func appendDigits(_ value: Int, _ width: Int, _ out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var v = value
        while divisor > 0 {
            out.append(UInt8(truncatingIfNeeded: 0x30 + (v / divisor) % 10))
            v %= divisor * 10
            divisor /= 10
        }
    }
}
