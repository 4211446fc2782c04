import Posix
import Storage

// MARK: - Receiving: group commit, then acknowledge

extension Session {
    /// Handles the frames of one read: `LinkInbound` decides what they ask for, this carries it out, in
    /// order, for as long as the link that brought them is the session's.
    func receive(_ frames: [Frame], from source: LinkChannel) {
        for action in LinkInbound.actions(for: frames) {
            guard channel === source else { return }
            switch action {
            case let .userInfoBatch(transfers): receiveBatch(transfers.map { ($0.seq, $0.body) }, from: source)
            case let .acknowledge(upTo): handleAcknowledgement(upTo: upTo)
            case let .peerError(error):
                logger.warning("link.peer-error", ["code": error.code.rawValue, "name": error.name, "message": error.message])
                source.close(error: nil, reason: "counterpart reported \(error)")
            case let .appState(payload): receiveAppState(payload)
            case let .applicationContext(payload): receiveApplicationContext(payload, from: source)
            case let .contextAck(version): handleContextAcknowledgement(version)
            case let .workout(payload): receiveWorkoutFrame(payload, from: source)
            case let .message(type, id, body):
                if type == .message || type == .messageNoReply { receivedMessageCount += 1 }
                receiveMessageFrame(type, id: id, body: body, from: source)
            case let .violation(why): protocolViolation(source, why)
            }
        }
    }

    private func receiveBatch(_ batch: [(seq: Int64, body: ArraySlice<UInt8>)], from source: LinkChannel) {
        guard let peer, activationState == .activated else { return }
        CrashPoint.hit("receive.frame-read")
        let fresh = batch.filter { $0.seq > receiveCursor }
        if fresh.isEmpty {
            // Only resends of what is already durable: acknowledge again so the sender can let go.
            if mayAcknowledge(source) { source.send(SequencedFrame.frame(.ack, number: receiveCursor)) }
            return
        }
        if configuration.acknowledgeBeforeCommit {
            source.send(SequencedFrame.frame(.ack, number: fresh.last!.seq))
        }
        let batchStarted = SystemClock.now()
        var cursor = receiveCursor
        var refused: Int64?
        var quarantined: [(seq: Int64, reason: String)] = []
        do {
            try database.transaction {
                for (index, item) in fresh.enumerated() {
                    if index == fresh.count / 2 { CrashPoint.hit("receive.mid-batch") }
                    let transfer = ReceivedTransfer(seq: item.seq, senderDeviceID: peer.deviceID)
                    let outcome: ReceiveOutcome
                    do {
                        outcome = try deliver(item.body, transfer)
                    } catch {
                        // Undecodable bytes cannot become anything the app could store, and resending
                        // them would wedge the link forever: they are quarantined, durably, with the
                        // cursor moving past them in the same transaction — never acknowledged away.
                        outcome = .rejected("undecodable: \(error)")
                    }
                    if outcome == .accepted, configuration.duplicateDeliveryRate > 0,
                        Double.random(in: 0..<1) < configuration.duplicateDeliveryRate
                    {
                        // The duplicating link: the app gets the same transfer again.
                        if (try? deliver(item.body, transfer)) == .failed { throw ReceiveAborted(seq: item.seq) }
                        duplicatedDeliveries += 1
                        logger.debug("fault.duplicate-delivery", ["seq": item.seq])
                    }
                    switch outcome {
                    case .accepted: break
                    case .failed: throw ReceiveAborted(seq: item.seq)
                    case .notNow: refused = item.seq
                    case let .rejected(reason):
                        try quarantine(item.body, transfer, reason: reason)
                        quarantined.append((item.seq, reason))
                    }
                    if refused != nil { break }
                    cursor = item.seq
                }
                if cursor > receiveCursor {
                    try SessionStore.setReceiveCursor(database, peer: peer.deviceID, seq: cursor)
                }
                CrashPoint.hit("receive.before-commit")
            }
        } catch {
            delegate?.session(self, didRollBackReceivedTransfers: error)
            // The app's own write may have failed first: the store's last error says why.
            let storage = (error as? StorageError) ?? database.lastStatementError
            let code: WCError.Code = storage?.kind == .full ? .insufficientSpace : .deliveryFailed
            failedCommits += 1
            logger.error(
                "receive.commit-failed",
                [
                    "transfers": fresh.count, "firstSeq": fresh[0].seq, "code": code.rawValue, "name": code.name,
                    "error": "\(error)", "action": "not acknowledged; the sender keeps them and resends after reconnecting",
                ])
            source.close(
                error: WCError(code, "the \(role.rawValue) could not store transfers \(fresh[0].seq)...: \(error)"),
                reason: "receive commit failed")
            return
        }
        CrashPoint.hit("receive.after-commit")
        // One line per committed batch, with its range: what arrived, without a line per transfer.
        logger.info(
            "receive.batch",
            [
                "firstSeq": fresh[0].seq, "lastSeq": cursor, "transfers": fresh.count,
                "ms": Double(SystemClock.now() - batchStarted) / 1e6,
            ])
        receiveCursor = cursor
        for (seq, reason) in quarantined {
            logger.error(
                "transfer.quarantined",
                [
                    "seq": seq, "peer": peer.deviceID, "reason": reason,
                    "action": "kept in quarantine; see runway \(role.rawValue) quarantine",
                ])
        }
        delegate?.sessionDidCommitReceivedTransfers(self)
        if !configuration.acknowledgeBeforeCommit || refused != nil, mayAcknowledge(source) {
            source.send(SequencedFrame.frame(.ack, number: cursor))
        }
        CrashPoint.hit("receive.after-ack")
        if let refused {
            logger.warning("receive.deferred", ["seq": refused, "action": "not acknowledged; the sender resends it"])
            source.close(
                error: WCError(.deliveryFailed, "the \(role.rawValue)'s app could not take transfer \(refused) yet"),
                reason: "app deferred a transfer")
        }
    }

    /// The app reported a failed write: the batch's transaction must not commit.
    struct ReceiveAborted: Error, CustomStringConvertible {
        let seq: Int64
        var description: String { "the app could not store transfer \(seq)" }
    }

    /// Hands one transfer to the delegate: its fast path first, else the decoded dictionary.
    private func deliver(_ body: ArraySlice<UInt8>, _ transfer: ReceivedTransfer) throws(DecodeError) -> ReceiveOutcome {
        guard let delegate else { return .notNow }
        var result: Result<ReceiveOutcome, DecodeError> = .success(.notNow)
        body.withUnsafeBytes { raw in
            if let outcome = delegate.session(self, didReceiveEncodedUserInfo: raw, transfer: transfer) {
                result = .success(outcome)
                return
            }
            do throws(DecodeError) {
                let userInfo = try PropertyListCodec.decodeDictionary(raw)
                result = .success(delegate.session(self, didReceiveUserInfo: userInfo, transfer: transfer))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    private func receiveAppState(_ payload: [UInt8]) {
        guard let fields = try? PropertyListCodec.decodeDictionary(payload) else { return }
        let wasReachable = isReachable
        let installed = fields["appInstalled"]?.boolValue ?? counterpartAppInstalled
        let active = fields["appActive"]?.boolValue ?? counterpartAppActive
        logger.info("peer.app-state", ["installed": installed, "active": active])
        updateCounterpartAppState(installed: installed, active: active, version: nil)
        if wasReachable != isReachable { delegate?.sessionReachabilityDidChange(self) }
        pump()
    }

    func protocolViolation(_ source: LinkChannel, _ why: String) {
        logger.error("link.protocol-violation", ["reason": why])
        source.close(error: WCError(.genericError, why), reason: why)
    }
}
