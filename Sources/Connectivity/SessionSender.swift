import Posix
import Storage

/// A userInfo transfer as its sender sees it (`WCSessionUserInfoTransfer`).
public struct UserInfoTransfer: Sendable, Equatable {
    /// The transfer's id: its sequence number on this device.
    public let seq: Int64
    public let userInfo: UserInfo
}

// MARK: - Sending: the outbox, the window, acknowledgements

extension Session {
    /// Queues `userInfo` for delivery to the counterpart: committed to the outbox (fsync) before this
    /// returns, delivered in order, kept until the counterpart has made it durable.
    @discardableResult
    public func transferUserInfo(_ userInfo: UserInfo) throws -> UserInfoTransfer {
        try transferUserInfo(batch: [userInfo])[0]
    }

    /// Queues several transfers in one transaction (one fsync, not one per transfer).
    public func transferUserInfo(batch: [UserInfo]) throws -> [UserInfoTransfer] {
        try requireActivated()
        let payloads = try batch.map { (userInfo) throws(WCError) -> [UInt8] in try encodeChecked(userInfo, limit: configuration.userInfoByteLimit, what: "userInfo") }
        let seqs = try outbox.enqueue(.userInfo, payloads)
        outboxMayHaveMore = true
        loop.deferToEndOfIteration { [weak self] in self?.pump() }
        return zip(seqs, batch).map { UserInfoTransfer(seq: $0, userInfo: $1) }
    }

    /// The transfers queued and not yet acknowledged (`outstandingUserInfoTransfers.count`).
    public func outstandingUserInfoTransferCount() throws -> Int { try outbox.count() }

    /// Cancels a queued transfer; false if it was already delivered (or never existed).
    public func cancelUserInfoTransfer(seq: Int64) throws -> Bool {
        let cancelled = try outbox.cancel(seq: seq)
        if cancelled { logger.info("transfer.cancelled", ["seq": seq]) }
        return cancelled
    }

    /// Whether transfer `seq` is still queued, and whether it is on the wire right now.
    public func transferState(seq: Int64) throws -> (outstanding: Bool, transferring: Bool) {
        let outstanding = try outbox.contains(seq: seq)
        return (outstanding, outstanding && channel != nil && seq <= lastSentSeq)
    }

    func requireActivated() throws(WCError) {
        guard activationState == .activated else {
            throw WCError(.sessionNotActivated, "activate the session before sending")
        }
    }

    /// Encodes a payload, enforcing the size limit at the sender (`payloadTooLarge`).
    func encodeChecked(_ userInfo: UserInfo, limit: Int, what: String) throws(WCError) -> [UInt8] {
        let encoded = PropertyListCodec.encode(userInfo)
        guard encoded.count <= limit else {
            throw WCError(.payloadTooLarge, "\(what) is \(encoded.count) bytes encoded, more than the \(limit)-byte limit")
        }
        return encoded
    }

    // MARK: - The pump

    /// The counterpart has everything up to `seq`: drop it from the outbox and send what follows.
    func resumeSending(after seq: Int64) throws {
        inFlight.removeAll()
        inFlightBytes = 0
        let assigned = try outbox.lastAssignedSeq()
        if seq > assigned {
            // The counterpart remembers more than this store ever assigned (a restored backup?):
            // never reuse those numbers, or new transfers would be taken for resends and dropped.
            logger.warning("outbox.sequence-behind-peer", ["peerResume": seq, "lastAssigned": assigned])
            try database.execute("UPDATE sqlite_sequence SET seq = \(seq) WHERE name = 'cx_outbox'")
            try database.execute("INSERT INTO sqlite_sequence (name, seq) SELECT 'cx_outbox', \(seq) WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'cx_outbox')")
        }
        if seq > 0 { try outbox.acknowledge(upTo: seq) }
        lastAckedSeq = seq
        lastSentSeq = seq
        outboxMayHaveMore = true
    }

    /// Sends queued transfers while the window and the socket have room. Reads the outbox a page at a
    /// time: memory is bounded by the window, whatever the backlog.
    func pump() {
        guard let channel, activationState == .activated else { return }
        while outboxMayHaveMore,
              inFlight.count < configuration.windowTransfers,
              inFlightBytes < configuration.windowBytes,
              channel.pendingOutboundBytes < configuration.outboundHighWaterBytes {
            var room = configuration.windowTransfers - inFlight.count
            if configuration.maximumTransfersPerSecond != nil {
                room = min(room, takeRateTokens(upTo: room))
                if room == 0 { return }
            }
            let entries: [OutboxEntry]
            do {
                entries = try outbox.entries(after: lastSentSeq, limit: min(room, 256))
            } catch {
                logger.error("outbox.read-failed", ["error": "\(error)"])
                loop.schedule(afterMilliseconds: 500) { [weak self] in self?.pump() }
                return
            }
            if entries.isEmpty { outboxMayHaveMore = false; break }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(entries.reduce(0) { $0 + $1.payload.count + 14 })
            for entry in entries {
                SequencedFrame.append(.userInfo, number: entry.seq, body: entry.payload, to: &bytes)
                inFlight.append((entry.seq, entry.payload.count))
                inFlightBytes += entry.payload.count
                lastSentSeq = entry.seq
            }
            CrashPoint.hit("send.before-send")
            channel.send(bytes)
            if self.channel == nil { return }
        }
        if outboxMayHaveMore, self.channel != nil, channel.pendingOutboundBytes >= configuration.outboundHighWaterBytes {
            channel.requestDrainNotification()
        }
    }

    /// A token bucket for `maximumTransfersPerSecond` (bursts of at most a tenth of a second); when it
    /// is empty, the pump comes back once a token has accrued.
    private func takeRateTokens(upTo wanted: Int) -> Int {
        guard let rate = configuration.maximumTransfersPerSecond, rate > 0 else { return wanted }
        let now = loop.nowNanoseconds
        if rateRefilledAt == 0 { rateRefilledAt = now; rateTokens = 1 }
        rateTokens = min(max(1, Double(rate) / 10), rateTokens + Double(now - rateRefilledAt) * Double(rate) / 1e9)
        rateRefilledAt = now
        let granted = min(wanted, Int(rateTokens))
        rateTokens -= Double(granted)
        if granted == 0 && !ratePumpScheduled {
            ratePumpScheduled = true
            let waitMs = max(1, UInt64(1000 / rate))
            loop.schedule(afterMilliseconds: waitMs) { [weak self] in
                self?.ratePumpScheduled = false
                self?.pump()
            }
        }
        return granted
    }

    /// The counterpart made everything up to `seq` durable.
    func handleAcknowledgement(upTo seq: Int64) {
        // Never accept an acknowledgement for something not sent: deleting it would lose it.
        let upTo = min(seq, lastSentSeq)
        guard upTo > lastAckedSeq else { return }
        CrashPoint.hit("send.after-ack-received")
        do {
            try outbox.acknowledge(upTo: upTo)
        } catch {
            // Harmless: the entries stay and are resent; the receiver acknowledges them again.
            logger.warning("outbox.delete-failed", ["upTo": upTo, "error": "\(error)"])
        }
        lastAckedSeq = upTo
        while let first = inFlight.first, first.seq <= upTo {
            inFlightBytes -= first.bytes
            inFlight.removeFirst()
        }
        delegate?.session(self, didFinishUserInfoTransfersUpTo: upTo)
        pump()
    }
}
