/// One read's consecutive userInfo transfers as the receive transaction folds them, with no database: which
/// are new (after the cursor), what each outcome the app gave does to the cursor, which are quarantined,
/// which one the app deferred, and what is acknowledged once the transaction commits. `Session` runs the
/// transaction (`SessionReceiver.swift`) and feeds each outcome to `record`; `SessionCore` turns the
/// committed or rolled-back result into actions. Unit tests: `ReceiveTransactionTests`.
struct ReceiveTransaction {
    /// The transfers after the cursor, in order: what this transaction hands to the app.
    let fresh: [InboundAction.Transfer]
    /// The lane they came in: its cursor moves, its acknowledgement answers.
    let lane: TransferLane
    /// The cursor before the transaction.
    let startCursor: Int64
    /// RunWay 1.x's bug, kept behind a switch for the tests: acknowledge before committing.
    let acknowledgesBeforeCommit: Bool
    /// The last transfer taken (accepted or quarantined): the cursor once the transaction commits.
    private(set) var cursor: Int64
    /// The transfer the app could not take yet: neither it nor anything after it is acknowledged.
    private(set) var refused: Int64?
    private(set) var quarantined: [(seq: Int64, reason: String)] = []

    /// The sequence rule: the first transfer that is not the one after the cursor (or after the transfer
    /// before it): a gap, or a number out of order. The transfers before it are taken (`fresh` ends
    /// there); nothing from it on is, and the link closes once they are committed.
    let outOfSequence: (expected: Int64, got: Int64)?

    /// `acceptsAnySequence`: the receiver before the sequence rule (a test switch), which takes every
    /// transfer after the cursor, gaps and all.
    init(
        _ batch: [InboundAction.Transfer], after cursor: Int64, lane: TransferLane = .userInfo, acknowledgesBeforeCommit: Bool = false,
        acceptsAnySequence: Bool = false
    ) {
        let after = batch.filter { $0.seq > cursor }
        let broken = acceptsAnySequence ? nil : after.indices.first { after[$0].seq != cursor + 1 + Int64($0) }
        fresh = broken.map { Array(after[..<$0]) } ?? after
        outOfSequence = broken.map { (cursor + 1 + Int64($0), after[$0].seq) }
        self.lane = lane
        startCursor = cursor
        self.cursor = cursor
        self.acknowledgesBeforeCommit = acknowledgesBeforeCommit
    }

    /// Only resends of what is already durable: acknowledge the cursor again so the sender lets go.
    var isResendOnly: Bool { fresh.isEmpty }

    var firstSeq: Int64 { fresh.first?.seq ?? startCursor }

    /// The buggy path's early acknowledgement, sent before the transaction (nil on the right path).
    var acknowledgementBeforeCommit: Int64? { acknowledgesBeforeCommit ? fresh.last?.seq : nil }

    /// What the transaction does next, given the app's outcome for one transfer.
    enum Step: Equatable {
        /// Go on with the next transfer.
        case next
        /// Keep the transfer in quarantine (in this transaction), then go on.
        case quarantine(String)
        /// Roll the whole transaction back: nothing of it survives, nothing is acknowledged.
        case rollBack
        /// Stop here and commit what came before.
        case stop
    }

    mutating func record(_ seq: Int64, _ outcome: ReceiveOutcome) -> Step {
        switch outcome {
        case .accepted:
            cursor = seq
            return .next
        case .failed, .insufficientSpace:
            return .rollBack
        case .notNow:
            refused = seq
            return .stop
        case let .rejected(reason):
            // Undecodable or refused for good: kept, with the cursor moving past it — never dropped,
            // never acknowledged away without a trace.
            quarantined.append((seq, reason))
            cursor = seq
            return .quarantine(reason)
        }
    }

    /// Whether the commit must move the stored cursor.
    var movesCursor: Bool { cursor > startCursor }

    /// What is acknowledged after the commit: the new cursor (again, if the buggy path already did, only
    /// when a deferred transfer stops the batch short of what it acknowledged).
    var acknowledgementAfterCommit: Int64? { !acknowledgesBeforeCommit || refused != nil ? cursor : nil }
}
