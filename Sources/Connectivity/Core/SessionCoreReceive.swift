import Posix
import PropertyLists

extension SessionCore {
    // MARK: - The end of a receive transaction

    mutating func batchCommitted(_ transaction: ReceiveTransaction, milliseconds: Double) -> [SessionAction] {
        contentPending = max(0, contentPending - Int64(transaction.fresh.count))
        lanes[transaction.lane].receiveCursor = transaction.cursor
        // The app hears of the commit and the sender is acknowledged first; then one line per committed
        // batch, with its range: what arrived, without a line per transfer. (A log line is a write to a
        // file, which can wait milliseconds on the file system's journal while other processes commit:
        // written first, it held a flight's event and acknowledgement back by up to 8 ms under load.)
        var actions: [SessionAction] = [.tell(.didCommitReceivedTransfers)]
        if let upTo = transaction.acknowledgementAfterCommit { actions.append(.acknowledge(upTo: upTo, lane: transaction.lane)) }
        actions.append(
            .log(
                LogLine(
                    .info, transaction.lane.spec.batchEvent, ("firstSeq", transaction.firstSeq),
                    ("lastSeq", transaction.cursor),
                    ("transfers", transaction.fresh.count), ("ms", milliseconds))))
        for (seq, reason) in transaction.quarantined {
            actions.append(
                .log(
                    LogLine(
                        .error, "transfer.quarantined", ("seq", seq), ("peer", peer?.deviceID ?? "-"), ("reason", reason),
                        ("action", "kept in quarantine; see runway \(role.rawValue) quarantine"))))
        }
        actions.append(.crashPoint("receive.after-ack"))
        if let refused = transaction.refused {
            actions += [
                .log(LogLine(.warning, "receive.deferred", ("seq", refused), ("action", "not acknowledged; the sender resends it"))),
                .closeLink(WCError(.deliveryFailed, "the \(role.rawValue)'s app could not take transfer \(refused) yet"), reason: "app deferred a transfer"),
            ]
        }
        return actions
    }

    mutating func batchRolledBack(_ transaction: ReceiveTransaction, error: any Error, storeFull: Bool) -> [SessionAction] {
        failedCommits += 1
        let code: WCError.Code = storeFull ? .insufficientSpace : .deliveryFailed
        return [
            .tell(.didRollBackReceivedTransfers(error)),
            .log(
                LogLine(
                    .error, "receive.commit-failed", ("transfers", transaction.fresh.count), ("firstSeq", transaction.firstSeq),
                    ("code", code.rawValue), ("name", code.name), ("error", "\(error)"),
                    ("action", "not acknowledged; the sender keeps them and resends after reconnecting"))),
            .closeLink(
                WCError(code, "the \(role.rawValue) could not store transfers \(transaction.firstSeq)...: \(error)"),
                reason: "receive commit failed"),
        ]
    }
}
