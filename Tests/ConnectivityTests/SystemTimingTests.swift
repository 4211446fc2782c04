import Testing

@testable import Connectivity

/// Issue 50, item 3: the realistic system's model, pure — reproducible from its seed, within its documented
/// ranges, and never over watchOS's refresh budget (four an hour).
@Suite struct SystemTimingTests {
    @Test func theSameSeedGivesTheSameScheduleAndAnotherSeedAnother() throws {
        let one = SystemTiming.realistic(seed: 42), again = SystemTiming.realistic(seed: 42), other = SystemTiming.realistic(seed: 43)
        let seqs = Array(Int64(1)...200)
        let first = seqs.map { one.transferDeferralMilliseconds(lane: "userInfo", seq: $0) }
        #expect(first == seqs.map { again.transferDeferralMilliseconds(lane: "userInfo", seq: $0) })
        #expect(first != seqs.map { other.transferDeferralMilliseconds(lane: "userInfo", seq: $0) })
        #expect((0..<50).map { one.refreshDelaySeconds(index: $0) } == (0..<50).map { again.refreshDelaySeconds(index: $0) })
        // Spread over the range, not one value: at least 100 distinct delays among 200 draws of 9,001.
        #expect(Set(first).count > 100)
    }

    @Test func everyDelayIsInItsDocumentedRangeAndImmediateDefersNothing() {
        for lowPower in [false, true] {
            let timing = SystemTiming.realistic(seed: 7, lowPower: lowPower)
            for seq in Int64(1)...2000 { #expect(timing.transferDeferralRange.contains(timing.transferDeferralMilliseconds(lane: "userInfo", seq: seq))) }
            for index in 0..<500 { #expect(timing.refreshDelayRange.contains(timing.refreshDelaySeconds(index: index))) }
        }
        #expect(
            SystemTiming.realistic(seed: 7, lowPower: true).transferDeferralRange.lowerBound > SystemTiming.realistic(seed: 7).transferDeferralRange.lowerBound)
        #expect(SystemTiming.immediate.transferDeferralMilliseconds(lane: "userInfo", seq: 5) == 0)
        #expect(SystemTiming.immediate.refreshDelaySeconds(index: 5) == 0)
    }

    /// Item 1 and 3: files, contexts and task runtimes draw their own sequences, each reproducible and in its
    /// documented range (`transferFile`: "transferred … asynchronously on a background thread";
    /// `updateApplicationContext`: "when the opportunity arises"; `setTaskCompleted()`: "a limited amount
    /// of time to finish the task (on the order of seconds)").
    @Test func filesContextsAndTaskRuntimesAreSeededAndInTheirRanges() {
        for lowPower in [false, true] {
            let timing = SystemTiming.realistic(seed: 5, lowPower: lowPower), again = SystemTiming.realistic(seed: 5, lowPower: lowPower)
            for seq in Int64(1)...500 {
                let file = timing.transferDeferralMilliseconds(lane: "file", seq: seq)
                let context = timing.transferDeferralMilliseconds(lane: SystemTiming.contextLane, seq: seq)
                #expect(timing.transferDeferralRange.contains(file) && timing.contextDeferralRange.contains(context))
                #expect(file == again.transferDeferralMilliseconds(lane: "file", seq: seq))
                #expect(context == again.transferDeferralMilliseconds(lane: SystemTiming.contextLane, seq: seq))
            }
            let runtimes = (0..<500).map { timing.taskRuntimeMilliseconds(index: $0) }
            #expect(runtimes == (0..<500).map { again.taskRuntimeMilliseconds(index: $0) }, "the same seed, the same expiries")
            for runtime in runtimes { #expect(runtime.map { timing.taskRuntimeRange.contains($0) } == true) }
            #expect(Set(runtimes).count > 100, "spread over the range")
        }
        let timing = SystemTiming.realistic(seed: 5)
        // Each kind its own sequence: files are not userInfo's delays again.
        #expect(
            (Int64(1)...50).map { timing.transferDeferralMilliseconds(lane: "file", seq: $0) }
                != (Int64(1)...50).map { timing.transferDeferralMilliseconds(lane: "userInfo", seq: $0) })
        #expect(SystemTiming.immediate.taskRuntimeMilliseconds(index: 3) == nil)
        #expect(SystemTiming.immediate.transferDeferralMilliseconds(lane: "file", seq: 3) == 0)
        #expect(SystemTiming.realistic(seed: 5, lowPower: true).taskRuntimeRange.upperBound < timing.taskRuntimeRange.upperBound)
    }

    @Test func itsTextReadsBackAndAnythingElseIsOneLine() throws {
        for timing in [SystemTiming.immediate, .realistic(seed: 0), .realistic(seed: 18_446_744_073_709_551_615, lowPower: true)] {
            #expect(try SystemTiming(parsing: timing.text) == timing)
        }
        for bad in [
            "", "realistic", "realistic:", "realistic:-1", "realistic:1:fast", "realistic:18446744073709551616", "immediate:1", "Realistic:1",
            "realistic:1:low-power:x",
        ] {
            do {
                _ = try SystemTiming(parsing: bad)
                Issue.record("accepted \(bad)")
            } catch {
                #expect(!error.description.contains("\n") && error.description.contains("immediate or realistic:SEED"), "\(error.description)")
            }
        }
    }

    /// An app that asks for a refresh every minute for ten hours, at random moments: no hour-long window
    /// ever holds more than four, and each refresh fires at or after the time it asked for.
    @Test func theRefreshBudgetIsNeverExceeded() {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<20 {
            var fired: [Double] = []
            var asked = 0.0
            while asked < 36_000 {
                asked += Double.random(in: 1...600, using: &generator)
                let at = RefreshBudget.earliest(asked, after: fired)
                #expect(at >= asked)
                fired.append(at)
                asked = at
            }
            for time in fired {
                let window = fired.filter { $0 + 3600 > time && $0 <= time }
                #expect(window.count <= SystemTiming.refreshesPerHour, "\(window)")
            }
        }
        // Under the budget nothing waits.
        #expect(RefreshBudget.earliest(100, after: [10, 20, 30]) == 100)
        #expect(RefreshBudget.earliest(100, after: [10, 20, 30, 40]) == 3610)
    }
}

/// A small deterministic generator (SplitMix64) for the property test.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
