import Glibc

/// The two ways a person writes time to the device clock (`runway clock set|advance`): an instant with
/// its UTC offset, and a duration such as `1d12h`. Both parse strictly; the caller turns a nil into one
/// clear line and exit status 2.
package enum TimeText {
    /// Why a time did not parse.
    package enum InstantError: Error, Equatable, Sendable, CustomStringConvertible {
        /// A date and time with no `Z` or `±HH:MM`: which zone was meant is a guess we will not make.
        case missingOffset
        case malformed
        /// More digits after the seconds' point than `Timestamp.maximumFractionDigits`.
        case fractionTooLong

        package var description: String {
            switch self {
            case .missingOffset: "give a UTC offset or Z"
            case .fractionTooLong: "at most \(Timestamp.maximumFractionDigits) digits after the seconds' point"
            case .malformed: "not an ISO 8601 time (2026-10-01T07:00:00+09:00 or 2026-10-01T07:00:00Z)"
            }
        }
    }

    /// `2026-10-01T07:00:00Z`, `2026-10-01T07:00:00.5+09:00`, `2026-10-01T07:00:00-04:30` → seconds since
    /// 1970 (UTC).
    package static func parseInstant(_ text: String) -> Result<Double, InstantError> {
        let b = Array(text.utf8)
        // The date and time part: YYYY-MM-DDTHH:MM:SS, then an optional fraction.
        guard b.count >= 19, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x74, b[13] == 0x3A, b[16] == 0x3A
        else { return .failure(.malformed) }
        var end = 19
        if end < b.count, b[end] == 0x2E {
            end += 1
            while end < b.count, b[end] >= 0x30, b[end] <= 0x39 { end += 1 }
            if end == 20 { return .failure(.malformed) }
            if end - 20 > Timestamp.maximumFractionDigits { return .failure(.fractionTooLong) }
        }
        let zone = Array(b[end...])
        var offsetSeconds = 0
        if zone.isEmpty {
            return .failure(.missingOffset)
        } else if zone == [0x5A] || zone == [0x7A] {
            offsetSeconds = 0
        } else if zone.count == 6, zone[0] == 0x2B || zone[0] == 0x2D, zone[3] == 0x3A,
            let h = digits(zone[1..<3]), let m = digits(zone[4..<6]), h <= 18, m < 60
        {
            offsetSeconds = (h * 3600 + m * 60) * (zone[0] == 0x2D ? -1 : 1)
        } else {
            return .failure(.malformed)
        }
        // The calendar's own checks (no 2026-02-30) are parseISO8601's, which reads an upper-case T only.
        var dateTime = Array(b[0..<end]) + [0x5A]
        dateTime[10] = 0x54
        guard let utc = Timestamp.parseISO8601(String(decoding: dateTime, as: UTF8.self)) else {
            return .failure(.malformed)
        }
        return .success(utc - Double(offsetSeconds))
    }

    /// `[Nd][Nh][Nm][Ns]` in that order, at least one part, whole numbers: `7d`, `1d12h`, `90s`. Returns
    /// seconds, or nil if it does not parse (the caller checks the range).
    package static func parseDuration(_ text: String) -> Double? {
        let units: [(UInt8, Double)] = [(0x64, 86_400), (0x68, 3600), (0x6D, 60), (0x73, 1)]
        var b = Array(text.utf8)[...]
        var total = 0.0, next = 0, parts = 0
        while !b.isEmpty {
            var value = 0.0, sawDigit = false
            while let c = b.first, c >= 0x30, c <= 0x39 {
                value = value * 10 + Double(c - 0x30)
                sawDigit = true
                b = b.dropFirst()
                if value > 1e12 { return nil }
            }
            guard sawDigit, let unit = b.first,
                let index = units[next...].firstIndex(where: { $0.0 == unit })
            else { return nil }
            b = b.dropFirst()
            total += value * units[index].1
            next = index + 1
            parts += 1
        }
        return parts > 0 ? total : nil
    }

    /// `604800` → `7d`, `129600` → `1d12h`: the inverse of `parseDuration` for whole seconds. Total:
    /// beyond ±10^18 s (and infinities) it writes the clamped value, NaN is `0s`.
    package static func formatDuration(_ seconds: Double) -> String {
        var rest = Int64(seconds.isNaN ? 0 : min(max(seconds.rounded(), -1e18), 1e18))
        if rest == 0 { return "0s" }
        var text = rest < 0 ? "-" : ""
        rest = abs(rest)
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        return text
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for c in bytes {
            guard c >= 0x30, c <= 0x39 else { return nil }
            value = value * 10 + Int(c - 0x30)
        }
        return value
    }

    /// `2026-10-08 16:00:00 +09:00`: the instant in the C library's local time (`TZ`), clamped to the
    /// years `Timestamp` writes (NaN is the earliest), so it never traps.
    package static func localDateTime(_ seconds: Double) -> String {
        let range = Timestamp.formattableRange
        var time = time_t(seconds.isNaN ? range.lowerBound : min(max(seconds, range.lowerBound), range.upperBound).rounded(.down))
        var parts = tm()
        localtime_r(&time, &parts)
        let offset = parts.tm_gmtoff
        let pad = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return "\(Int(parts.tm_year) + 1900)-\(pad(Int(parts.tm_mon) + 1))-\(pad(Int(parts.tm_mday))) "
            + "\(pad(Int(parts.tm_hour))):\(pad(Int(parts.tm_min))):\(pad(Int(parts.tm_sec))) "
            + "\(sign)\(pad(minutes / 60)):\(pad(minutes % 60))"
    }
}
