import Testing
@testable import Posix

/// The rule for repeated identical log lines, on a clock the test moves (no sleeping).
@Suite struct RepeatLimiterTests {
    let second: UInt64 = 1_000_000_000

    @Test func firstIsWrittenThenSuppressedThenSummarisedOncePerInterval() {
        var limiter = RepeatLimiter(intervalMilliseconds: 60_000)
        var now: UInt64 = 5 * second
        #expect(limiter.note("refused", now: now) == .write)
        var decisions: [RepeatLimiter.Decision] = []
        // One a second for 59 s: all held back.
        for _ in 1...59 {
            now += second
            decisions.append(limiter.note("refused", now: now))
        }
        #expect(decisions.allSatisfy { $0 == .suppress })
        // The 60th second: one line standing for the 59 held back and itself.
        now += second
        #expect(limiter.note("refused", now: now) == .summary(repeated: 60))
        // And again: the count starts afresh from that line.
        now += second
        #expect(limiter.note("refused", now: now) == .suppress)
        now += 60 * second
        #expect(limiter.note("refused", now: now) == .summary(repeated: 2))
    }

    @Test func aQuietIntervalMeansTheNextOneIsWrittenPlain() {
        var limiter = RepeatLimiter(intervalMilliseconds: 1_000)
        #expect(limiter.note("x", now: 0) == .write)
        #expect(limiter.note("x", now: 2 * second) == .write)
        #expect(limiter.note("x", now: 2 * second + 1) == .suppress)
        #expect(limiter.note("x", now: 3 * second) == .summary(repeated: 2))
    }

    @Test func differentLinesAreCountedApart() {
        var limiter = RepeatLimiter(intervalMilliseconds: 1_000)
        #expect(limiter.note("a", now: 0) == .write)
        #expect(limiter.note("b", now: 1) == .write)
        #expect(limiter.note("a", now: 2) == .suppress)
        #expect(limiter.note("b", now: 3) == .suppress)
        #expect(limiter.note("b", now: 4) == .suppress)
        #expect(limiter.note("a", now: second) == .summary(repeated: 2))
        #expect(limiter.note("b", now: second + 3) == .summary(repeated: 3))
    }

    @Test func memoryIsBoundedByCapacity() {
        var limiter = RepeatLimiter(intervalMilliseconds: 1_000, capacity: 8)
        for i in 0..<1_000 { #expect(limiter.note("line \(i)", now: UInt64(i)) == .write) }
        #expect(limiter.rememberedCount == 8)
        // The most recent lines are remembered; the oldest were forgotten (written again if they return).
        #expect(limiter.note("line 999", now: 1_000) == .suppress)
        #expect(limiter.note("line 0", now: 1_001) == .write)
    }

    @Test func aClockThatGoesBackwardsDoesNotSilenceForever() {
        var limiter = RepeatLimiter(intervalMilliseconds: 1_000)
        #expect(limiter.note("x", now: 10 * second) == .write)
        #expect(limiter.note("x", now: 10 * second + 1) == .suppress)
        #expect(limiter.note("x", now: 1) == .summary(repeated: 2))
    }
}
