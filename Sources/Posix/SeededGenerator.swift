/// A small, fast, seedable generator (SplitMix64): the same seed gives the same draws. The one generator
/// of the package: the flight generator's runs, the link's air (jitter, loss), the chaos schedules and the
/// property tests all draw from it, so a seed printed by any of them replays the same way. Here, in the
/// lowest module every one of them imports.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// Seeded from the system's generator: for a draw that need not repeat.
    package init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
