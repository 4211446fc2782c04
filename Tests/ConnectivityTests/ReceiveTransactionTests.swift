@testable import Connectivity
import Testing

/// The receive transaction's fold, pure (`ReceiveTransaction`): which transfers are new, what each of the
/// app's outcomes does to the cursor, and what is acknowledged once it commits.
@Suite struct ReceiveTransactionTests {
    static func batch(_ seqs: ClosedRange<Int64>) -> [InboundAction.Transfer] { SessionCoreTests.transfers(seqs) }

    @Test func onlyTransfersAfterTheCursorAreNew() {
        let resent = ReceiveTransaction(Self.batch(1...5), after: 5)
        #expect(resent.isResendOnly, "all durable already: acknowledge the cursor again")
        let partly = ReceiveTransaction(Self.batch(3...8), after: 5)
        #expect(partly.fresh.map(\.seq) == [6, 7, 8])
        #expect(partly.firstSeq == 6)
    }

    @Test func acceptedAndQuarantinedTransfersMoveTheCursorAndADeferredOneStopsIt() {
        var transaction = ReceiveTransaction(Self.batch(1...4), after: 0)
        #expect(transaction.record(1, .accepted) == .next)
        #expect(transaction.record(2, .rejected("bad distance")) == .quarantine("bad distance"))
        #expect(transaction.record(3, .notNow) == .stop)
        #expect(transaction.cursor == 2, "the deferred transfer and what follows it are not taken")
        #expect(transaction.refused == 3)
        #expect(transaction.quarantined.map(\.seq) == [2])
        #expect(transaction.movesCursor)
        #expect(transaction.acknowledgementAfterCommit == 2)
    }

    @Test func aFailedWriteRollsTheWholeTransactionBack() {
        var transaction = ReceiveTransaction(Self.batch(1...3), after: 0)
        _ = transaction.record(1, .accepted)
        #expect(transaction.record(2, .failed) == .rollBack)
    }

    @Test func theBuggyPathAcknowledgesBeforeCommittingAndNotAgain() {
        var buggy = ReceiveTransaction(Self.batch(1...3), after: 0, acknowledgesBeforeCommit: true)
        #expect(buggy.acknowledgementBeforeCommit == 3, "everything read, before anything is durable")
        for seq in Int64(1)...3 { _ = buggy.record(seq, .accepted) }
        #expect(buggy.acknowledgementAfterCommit == nil)
        var right = ReceiveTransaction(Self.batch(1...3), after: 0)
        #expect(right.acknowledgementBeforeCommit == nil)
        for seq in Int64(1)...3 { _ = right.record(seq, .accepted) }
        #expect(right.acknowledgementAfterCommit == 3)
    }

    @Test func nothingTakenMovesNothing() {
        var transaction = ReceiveTransaction(Self.batch(1...2), after: 0)
        _ = transaction.record(1, .notNow)
        #expect(!transaction.movesCursor && transaction.cursor == 0)
        #expect(transaction.acknowledgementAfterCommit == 0, "the cursor again: the sender keeps the rest")
    }
}
