import PairTesting
import Testing

/// What a failed `runway watch record` adds to the history the checker holds the phone to: a call of
/// more than one chunk commits chunk by chunk, so the chunks it printed are recorded, and only the chunk
/// in flight is in doubt.
@Suite struct FailedRecordingTests {
    @Test func aFailedSingleRequestIsIndeterminateWhole() {
        let (history, outcome) = SimulatedPair.failedRecording(count: 50, stdout: "[", why: "the daemon closed the connection")
        #expect(history == [.indeterminate(count: 50)])
        #expect(outcome == .indeterminate("the daemon closed the connection"))
    }

    @Test func theChunksPrintedBeforeTheFailureAreRecordedAndOnlyTheNextIsInDoubt() {
        let (history, _) = SimulatedPair.failedRecording(
            count: 25_000, stdout: "[\"A\",\"B\"]\n", why: "recorded 2 of 25000 runs (in chunks of 10000, each committed) before: reset")
        #expect(history == [.succeeded(["A", "B"]), .indeterminate(count: SimulatedPair.recordChunk)])
        // The last chunk is the rest: 10,005 runs are a chunk of 10,000 and one of 5.
        let chunk = (0..<SimulatedPair.recordChunk).map { "F\($0)" }
        let printed = "[" + chunk.map { "\"\($0)\"" }.joined(separator: ",") + "]\n"
        let (last, _) = SimulatedPair.failedRecording(count: 10_005, stdout: printed, why: "reset")
        #expect(last == [.succeeded(chunk), .indeterminate(count: 5)])
    }

    @Test func aChunkThatCouldNotConnectLeftNothingInDoubt() {
        let refused = SimulatedPair.failedRecording(count: 40, stdout: "", why: "the watch daemon is not running")
        #expect(refused.history.isEmpty)
        #expect(refused.outcome == .refused("the watch daemon is not running"))
        let (history, outcome) = SimulatedPair.failedRecording(
            count: 25_000, stdout: "[\"A\"]\n", why: "recorded 1 of 25000 runs before: the watch daemon is not running")
        #expect(history == [.succeeded(["A"])])
        #expect(outcome == .refused("recorded 1 of 25000 runs before: the watch daemon is not running"))
    }
}
