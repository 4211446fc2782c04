/// Pure text pictures for a terminal: sparklines, line charts, bars, the timeline — and its SVG twin.
/// Nothing here does I/O, reads a clock or a locale: the `runway` CLI hands in numbers and a style and
/// prints what comes back, so every function is tested alone, with any values at all.

/// Unicode blocks and braille, or plain ASCII for a terminal that cannot show them.
package enum GlyphStyle: Sendable {
    case unicode, ascii
}

/// Maps values onto 0...1 between a low and a high, for any finite values: huge ones (±1e308, whose
/// difference overflows), equal ones (a constant series sits in the middle), one value alone.
package struct Scale: Sendable, Equatable {
    package let low: Double
    package let high: Double

    /// The range of the finite values, widened to include `floor` when given (counts start at 0); nil
    /// when there is no finite value at all.
    package init?(_ values: [Double?], floor: Double? = nil) {
        var low = Double.infinity, high = -Double.infinity
        for case let value? in values where value.isFinite {
            low = Swift.min(low, value)
            high = Swift.max(high, value)
        }
        if let floor, floor.isFinite, low <= high { low = Swift.min(low, floor) }
        guard low <= high else { return nil }
        self.low = low
        self.high = high
    }

    package init(low: Double, high: Double) {
        self.low = low.isFinite ? low : 0
        self.high = high.isFinite ? Swift.max(high, self.low) : Swift.max(self.low, 0)
    }

    /// Where `value` falls, 0 (low) to 1 (high), clamped; 0.5 for a constant range or a non-finite value.
    package func fraction(_ value: Double) -> Double {
        guard value.isFinite, high > low else { return 0.5 }
        let span = high - low
        let result = span.isFinite ? (value - low) / span : (value / 2 - low / 2) / (high / 2 - low / 2)
        return result.isFinite ? Swift.min(1, Swift.max(0, result)) : 0.5
    }

    /// `fraction` as one of `levels` steps, 0 ..< levels (levels below 1 count as 1).
    package func level(_ value: Double, levels: Int) -> Int {
        let top = Swift.max(1, levels) - 1
        return Int((fraction(value) * Double(top)).rounded())
    }
}

/// Puts `values` into `count` buckets in order, each the mean of its finite values (nil when it has
/// none). Fewer values than buckets spread out, leaving empty buckets between them.
package func resample(_ values: [Double?], into count: Int) -> [Double?] {
    let count = Swift.max(0, count)
    guard count > 0, !values.isEmpty else { return Array(repeating: nil, count: count) }
    var members = [[Double]](repeating: [], count: count)
    for (index, value) in values.enumerated() {
        guard let value, value.isFinite else { continue }
        // Integer arithmetic: the bucket of index i of n is i * count / n (no overflow below 2^31 values).
        let bucket = values.count == 1 ? 0 : Swift.min(count - 1, index * count / values.count)
        members[bucket].append(value)
    }
    return (0..<count).map { bucket in
        let values = members[bucket]
        guard !values.isEmpty else { return nil }
        // The mean of the parts, not the part of the sum: the sum of two 1e308 overflows.
        let n = Double(values.count)
        return values.reduce(0) { $0 + $1 / n }
    }
}
