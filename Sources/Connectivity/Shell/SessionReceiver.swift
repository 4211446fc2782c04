import Posix
import Storage
import PropertyLists

// MARK: - Receiving: group commit, then acknowledge

extension Session {
    /// Handles the frames of one read: `LinkInbound` decides what they ask for, this carries it out, in
    /// order, for as long as the link that brought them is the session's.
    func receive(_ frames: [Frame], from source: LinkChannel) {
        for action in LinkInbound.actions(for: frames) {
            guard channel === source else { return }
            if core.appHeld {
                // The app has not activated its session: its traffic is neither taken nor acknowledged.
                // The counterpart keeps it; the link starts again when the app activates (`appJoins`).
                switch action {
                case .userInfoBatch, .applicationContext, .file(.fileBegin, _, _), .file(.fileChunk, _, _), .file(.fileCancel, _, _):
                    heldFrames += 1
                    continue
                default: break
                }
            }
            switch action {
            case let .userInfoBatch(transfers, lane): receiveBatch(transfers, lane: lane, from: source)
            case let .acknowledge(upTo, lane): handle(.acknowledgementReceived(upTo: upTo, lane: lane))
            case let .peerError(error):
                logger.warning("link.peer-error", ["code": error.code.rawValue, "name": error.name, "message": error.message])
                source.close(error: nil, reason: "counterpart reported \(error)")
            case let .appState(payload): receiveAppState(payload)
            case let .applicationContext(payload): receiveApplicationContext(payload, from: source)
            case let .contextAck(version): handleContextAcknowledgement(version, from: source)
            case let .workout(payload): receiveWorkoutFrame(payload, from: source)
            case let .message(type, id, body): receiveMessageFrame(type, id: id, body: body)
            case let .file(type, seq, body):
                switch type {
                case .fileBegin, .fileChunk, .fileCancel: receiveFileFrame(type, seq: seq, body: body, from: source)
                default: receiveFileAnswer(type, seq: seq, body: body, from: source)
                }
            case let .violation(why): protocolViolation(source, why)
            }
        }
        // What this read wrote of a file becomes durable together: one fsync and one row update a read.
        if channel === source { syncIncomingFile(source) }
    }

    /// One batch of transfers in one transaction: the app stores each (`deliver`) — in its own store, in
    /// a transaction of its own that it opens when the batch starts and commits just before the
    /// session's — `ReceiveTransaction` folds the outcomes, the cursor moves in the session's
    /// transaction; the core then says what follows the commit (the acknowledgement) or the rollback
    /// (nothing acknowledged, the link closed). A crash between the app's commit and the session's
    /// delivers the batch again: the app's own dedup (RunWay's by flight id) takes it once.
    private func receiveBatch(_ batch: [InboundAction.Transfer], lane: TransferLane, from source: LinkChannel) {
        // Inactive (a watch switch under way) still receives: Apple delivers the old watch's pending data.
        guard let peer, activationState != .notActivated else { return }
        CrashPoint.hit("receive.frame-read")
        let cursor = core.lanes[lane].receiveCursor
        let ackType = lane.spec.ack
        var transaction = ReceiveTransaction(
            batch, after: cursor, lane: lane, acknowledgesBeforeCommit: configuration.acknowledgeBeforeCommit,
            acceptsAnySequence: configuration.acceptsAnySequence)
        // The sequence rule: only the number after the cursor is taken. A number further ahead (a frame
        // lost from the stream, a forged or replayed one) would move the cursor past what was never
        // stored, and the transfers it skipped would be acknowledged as duplicates and lost. What came
        // before it is taken; then the link closes and the sender resends from the cursor.
        defer {
            if let (expected, got) = transaction.outOfSequence, channel === source {
                protocolViolation(source, "\(lane.rawValue) transfer \(got) arrived where \(expected) was expected (after the cursor \(cursor))")
            }
        }
        if transaction.isResendOnly {
            // Only resends of what is already durable: acknowledge again so the sender can let go.
            if mayAcknowledge(source) { source.send(SequencedFrame.frame(ackType, number: cursor)) }
            return
        }
        if let early = transaction.acknowledgementBeforeCommit { source.send(SequencedFrame.frame(ackType, number: early)) }
        let batchStarted = SystemClock.now()
        let fresh = transaction.fresh
        do {
            // The session's own commit moves the cursor only: what was received is durable in the app's
            // store (its commit, just before, is fsynced), so this one need not be — after an OS crash
            // that lost it the batch is delivered again and the app's dedup takes it once. Quarantined
            // transfers are the session's to keep: when there are some, a FULL commit follows.
            try database.with(.normal) {
                try database.transaction {
                    _ = try handler?.handle(.willReceiveTransfers, from: self)
                    transfers: for (index, item) in fresh.enumerated() {
                        if index == fresh.count / 2 { CrashPoint.hit("receive.mid-batch") }
                        // A skip: a number the sender will never send a transfer for. It moves the
                        // cursor; the app hears nothing.
                        if item.body.isEmpty {
                            _ = transaction.record(item.seq, .accepted)
                            continue
                        }
                        let transfer = ReceivedTransfer(seq: item.seq, senderDeviceID: peer.deviceID, lane: lane)
                        let outcome = try deliverCounted(item.body, transfer)
                        switch transaction.record(item.seq, outcome) {
                        case .next: continue
                        case let .quarantine(reason): try quarantine(item.body, transfer, reason: reason)
                        case .rollBack: throw ReceiveAborted(seq: item.seq, storeFull: outcome == .insufficientSpace)
                        case .stop: break transfers
                        }
                    }
                    if transaction.movesCursor {
                        try SessionStore.setReceiveCursor(database, peer: peer.deviceID, seq: transaction.cursor, lane: lane)
                    }
                    CrashPoint.hit("receive.before-commit")
                    // The app's own store commits first: nothing is acknowledged before what it saved is durable.
                    _ = try handler?.handle(.willCommitReceivedTransfers, from: self)
                    // The app's store has the batch, the session's cursor does not: delivered again, deduped.
                    CrashPoint.hit("receive.after-app-commit")
                }
            }
            if !transaction.quarantined.isEmpty { try makeCursorDurable(peer: peer.deviceID, lane: lane) }
        } catch {
            // The app's own write may have failed first: the store's last error says why.
            let storage = (error as? StorageError) ?? database.lastStatementError
            let storeFull = (error as? ReceiveAborted)?.storeFull ?? (storage?.kind == .full)
            handle(.batchRolledBack(transaction, error: error, storeFull: storeFull || storage?.kind == .full))
            return
        }
        CrashPoint.hit("receive.after-commit")
        handle(.batchCommitted(transaction, milliseconds: Double(SystemClock.now() - batchStarted) / 1e6))
    }

    /// Writes the cursor again at FULL: with WAL, that fsync makes durable every commit before it too
    /// (the quarantined transfers just acknowledged with the batch).
    private func makeCursorDurable(peer: String, lane: TransferLane) throws {
        try database.transaction {
            try SessionStore.setReceiveCursor(database, peer: peer, seq: try SessionStore.receiveCursor(database, peer: peer, lane: lane), lane: lane)
        }
    }

    /// `deliver`, with undecodable bytes made a rejection and the duplicating link's second delivery.
    private func deliverCounted(_ body: ArraySlice<UInt8>, _ transfer: ReceivedTransfer) throws -> ReceiveOutcome {
        let outcome: ReceiveOutcome
        do {
            outcome = try deliver(body, transfer)
        } catch {
            // Undecodable bytes cannot become anything the app could store, and resending them would
            // wedge the link forever: they are quarantined, durably, with the cursor moving past them in
            // the same transaction — never acknowledged away.
            outcome = .rejected("undecodable: \(error)")
        }
        if outcome == .accepted, configuration.duplicateDeliveryRate > 0, Double.random(in: 0..<1) < configuration.duplicateDeliveryRate {
            // The duplicating link: the app gets the same transfer again.
            switch try? deliver(body, transfer) {
            case .failed?: throw ReceiveAborted(seq: transfer.seq, storeFull: false)
            case .insufficientSpace?: throw ReceiveAborted(seq: transfer.seq, storeFull: true)
            default: break
            }
            duplicatedDeliveries += 1
            logger.debug("fault.duplicate-delivery", ["seq": transfer.seq])
        }
        return outcome
    }

    /// The app reported a failed write: the batch's transaction must not commit.
    struct ReceiveAborted: Error, CustomStringConvertible {
        let seq: Int64
        /// The app said its store is full (the sender hears 7015).
        let storeFull: Bool
        var description: String { "the app could not store transfer \(seq)" }
    }

    /// Hands one transfer to the handler: its fast path first, else the decoded dictionary. Unanswered
    /// is `.notNow` (kept, delivered again), never taken.
    private func deliver(_ body: ArraySlice<UInt8>, _ transfer: ReceivedTransfer) throws(DecodeError) -> ReceiveOutcome {
        guard let handler else { return .notNow }
        var result: Result<ReceiveOutcome, DecodeError> = .success(.notNow)
        body.withUnsafeBytes { raw in
            if let outcome = ask(handler, .didReceiveEncodedUserInfo(raw, transfer), seq: transfer.seq) {
                result = .success(outcome)
                return
            }
            do throws(DecodeError) {
                let userInfo = try PropertyListCodec.decodeDictionary(raw)
                result = .success(ask(handler, .didReceiveUserInfo(userInfo, transfer), seq: transfer.seq) ?? .notNow)
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// The handler's answer to a received transfer; one that throws could not store it (`.failed`: the
    /// batch rolls back).
    private func ask(_ handler: any SessionHandler, _ callback: SessionCallback, seq: Int64) -> ReceiveOutcome? {
        do {
            return try handler.handle(callback, from: self)
        } catch {
            logger.warning("receive.handler-threw", ["seq": seq, "error": "\(error)"])
            return .failed
        }
    }

    private func receiveAppState(_ payload: [UInt8]) {
        guard let fields = try? PropertyListCodec.decodeDictionary(payload) else { return }
        handle(
            .counterpartAppStateReported(
                installed: fields["appInstalled"]?.boolValue, active: fields["appActive"]?.boolValue,
                complicationEnabled: fields["complicationEnabled"]?.boolValue))
    }

    func protocolViolation(_ source: LinkChannel, _ why: String) {
        logger.error("link.protocol-violation", ["reason": why])
        source.close(error: WCError(.genericError, why), reason: why)
    }
}
