/// Conversions from `Double` that never trap. Swift's `Int(_: Double)` traps on NaN, on infinities
/// and on anything beyond the integer's range; every formatter fed by stored or received data uses
/// these instead, so no value in a store or on the wire can crash a daemon or the CLI.
extension Int64 {
    /// `value` rounded toward zero, clamped to ±2^62; NaN is 0.
    @inline(__always)
    package init(clamping value: Double) {
        guard value == value else { self = 0; return }
        let limit = 4.611_686_018_427_387_904e18  // 2^62, exactly representable
        self = Int64(Swift.min(Swift.max(value, -limit), limit))
    }
}

extension Int {
    /// `value` rounded toward zero, clamped to ±2^62; NaN is 0.
    @inline(__always)
    package init(clamping value: Double) { self = Int(Int64(clamping: value)) }
}
