import Posix
import Storage
import PropertyLists

/// A userInfo transfer as its sender sees it (`WCSessionUserInfoTransfer`).
package struct UserInfoTransfer: Sendable, Equatable {
    /// The transfer's id: its sequence number on this device, in its lane.
    package let seq: Int64
    package let userInfo: UserInfo
    /// `.complication` for a complication transfer sent as one (its own sequence numbers).
    package var lane: TransferLane = .userInfo

    package init(seq: Int64, userInfo: UserInfo, lane: TransferLane = .userInfo) {
        self.seq = seq
        self.userInfo = userInfo
        self.lane = lane
    }
}

// MARK: - Sending: the outbox, the window, acknowledgements

extension Session {
    // The sender's window (`SendWindow`, in the core): what is on the wire, acknowledged, failing.
    package var lastSentSeq: Int64 { core.window.lastSentSeq }
    package var lastAckedSeq: Int64 { core.window.lastAckedSeq }
    /// Transfers sent and not yet acknowledged (never more than the window).
    package var transfersInFlight: Int { core.window.transfersInFlight }
    /// Fault injection (`runway link fail-next`): how many transfers are still to fail, and with what.
    package var failNextCount: Int { core.window.failNextCount }
    package var failNextCode: WCError.Code { core.window.failNextCode }

    /// Queues `userInfo` for delivery to the counterpart: committed to the outbox (fsync) before this
    /// returns, delivered in order, kept until the counterpart has made it durable.
    @discardableResult
    package func transferUserInfo(_ userInfo: UserInfo) throws -> UserInfoTransfer {
        try transferUserInfo(batch: [userInfo])[0]
    }

    /// Queues several transfers in one transaction (one fsync, not one per transfer).
    package func transferUserInfo(batch: [UserInfo]) throws -> [UserInfoTransfer] {
        try requireActivated()
        try requireCounterpartApp()
        let payloads = try checkedPayloads(batch)
        let seqs = try database.transaction { try outbox.enqueue(.userInfo, payloads) }
        outboxQueued()
        return zip(seqs, batch).map { UserInfoTransfer(seq: $0, userInfo: $1) }
    }

    /// Queues a series made a slice at a time — `next` returns the next slice, nil when done — all in
    /// one outbox transaction: the whole series is durable together or not at all, and only one slice
    /// is in memory at once. The session owns the outbox, so it opens the transaction. Returns the
    /// first and last transfer ids (0 if the series was empty).
    package func transferUserInfo(slices next: () throws -> [UserInfo]?) throws -> (first: Int64, last: Int64) {
        try requireActivated()
        try requireCounterpartApp()
        var first: Int64 = 0, last: Int64 = 0
        try database.transaction {
            while let slice = try next() {
                let seqs = try outbox.enqueue(.userInfo, try checkedPayloads(slice))
                if first == 0, let seq = seqs.first { first = seq }
                last = seqs.last ?? last
            }
        }
        outboxQueued()
        return (first, last)
    }

    /// Each userInfo validated (the apps' rule) and encoded (the decoder's limits), or the first refusal.
    private func checkedPayloads(_ batch: [UserInfo]) throws(WCError) -> [[UInt8]] {
        try batch.map { (userInfo) throws(WCError) -> [UInt8] in
            if let problem = userInfoValidator?(userInfo) {
                throw WCError(.payloadUnsupportedTypes, "the counterpart's app could not take this userInfo: \(problem)")
            }
            return try encodeChecked(userInfo, limit: configuration.userInfoByteLimit, what: "userInfo")
        }
    }

    /// Something was committed to `lane`'s outbox: its pump reads it at the end of this iteration.
    func outboxQueued(_ lane: TransferLane = .userInfo) {
        core.lanes[lane].mayHaveMore = true
        loop.deferToEndOfIteration { [weak self] in self?.pump() }
    }

    /// The userInfo of transfer `seq` while the outbox still holds it (it does until the app has been
    /// told the transfer finished), nil after.
    package func outboxUserInfo(seq: Int64, lane: TransferLane = .userInfo) throws -> UserInfo? {
        guard let payload = try outboxes[lane].payload(seq: seq) else { return nil }
        return try PropertyListCodec.decodeDictionary(payload)
    }

    /// The transfers queued and not yet acknowledged (`outstandingUserInfoTransfers.count`).
    package func outstandingUserInfoTransferCount() throws -> Int { try outbox.count() }

    /// Everything this side has queued for the other and not yet seen acknowledged, every lane: what
    /// the handshake says is pending (phone-os launches the app for it).
    package func outstandingTransferCount() throws -> Int { try TransferLane.allCases.reduce(0) { try $0 + outboxes[$1].count() } }

    /// Cancels a queued transfer; false if it was already delivered (or never existed).
    ///
    /// A transfer already on the wire (`isOnTheWire`) is not cancelled either: the counterpart may be
    /// storing it right now, and a cancel that might or might not take would be worse than none.
    package func cancelUserInfoTransfer(seq: Int64) throws -> Bool {
        try cancelUserInfoTransferTelling(seq: seq) == .cancelled
    }

    /// Cancels transfer `seq` if it can be, and otherwise says why not — the four cases a user must tell
    /// apart (`runway … cancel`): already cancelled, already delivered, on the wire, never made.
    package func cancelUserInfoTransferTelling(seq: Int64) throws -> TransferCancellation {
        if isOnTheWire(seq) { return .onTheWire }
        if try outbox.cancel(seq: seq) {
            logger.info("transfer.cancelled", ["seq": seq])
            return .cancelled
        }
        return try outbox.whyNotCancelled(seq: seq)
    }

    /// Whether transfer `seq` is still outstanding, and so `isTransferring` — as Apple documents it,
    /// true for every transfer not yet delivered, queued ones included.
    package func transferState(seq: Int64, lane: TransferLane = .userInfo) throws -> (outstanding: Bool, transferring: Bool) {
        let outstanding = try outboxes[lane].contains(seq: seq)
        return (outstanding, outstanding)
    }

    /// Cancels complication transfer `seq` if it is queued and not on the wire (`WCSessionUserInfoTransfer.cancel()`).
    package func cancelComplicationTransfer(seq: Int64) throws -> Bool {
        guard !(channel != nil && core.lanes.complication.window.isOnTheWire(seq)) else { return false }
        let cancelled = try outboxes.complication.cancel(seq: seq)
        if cancelled { logger.info("transfer.cancelled", ["seq": seq, "lane": "complication"]) }
        return cancelled
    }

    /// Internal to the simulator (no WatchConnectivity property): sent on the current link and not
    /// yet acknowledged. Such a transfer cannot be cancelled.
    package func isOnTheWire(_ seq: Int64) -> Bool { channel != nil && core.window.isOnTheWire(seq) }

    /// The outstanding transfers, oldest first (`outstandingUserInfoTransfers`), at most `limit`; every
    /// one `isTransferring`, and whether it is on the wire right now.
    package func outstandingUserInfoTransfers(limit: Int) throws -> [(transfer: UserInfoTransfer, isTransferring: Bool, onTheWire: Bool)] {
        try outbox.first(limit).map { entry in
            let userInfo = (try? PropertyListCodec.decodeDictionary(entry.payload)) ?? [:]
            return (UserInfoTransfer(seq: entry.seq, userInfo: userInfo), true, isOnTheWire(entry.seq))
        }
    }

    func requireActivated() throws(WCError) { try core.requireActivated() }

    /// The phone cannot send to a watch app that is not installed (as far as the watch last said).
    func requireCounterpartApp() throws(WCError) { try core.requireCounterpartApp() }

    func encodeChecked(_ userInfo: UserInfo, limit: Int, what: String) throws(WCError) -> [UInt8] {
        try PropertyListCodec.encodeChecked(userInfo, limit: limit, what: what)
    }

    // MARK: - The pump

    /// The counterpart has everything of each lane up to its cursor (`cursors`, from its handshake):
    /// those transfers are finished (the app hears of them) and each lane resumes after them.
    func resumeSending(after cursors: Lanes<Int64>) throws {
        for lane in TransferLane.allCases {
            let acknowledged = try resume(outboxes[lane], after: cursors[lane])
            if lane.spec.kind == .sequenced { core.lanes[lane].window.resume(acknowledged: acknowledged, peerCursor: cursors[lane]) }
            core.lanes[lane].mayHaveMore = true
        }
        core.fileWindow.resume(peerCursor: cursors[.file])
        sendingFile = nil
        reportFinished()
    }

    /// One lane's part of resuming: what the counterpart has is acknowledged; returns the watermark.
    private func resume(_ lane: Outbox, after seq: Int64) throws -> Int64 {
        let assigned = try lane.lastAssignedSeq()
        if seq > assigned {
            logger.warning("outbox.sequence-behind-peer", ["lane": lane.lane.rawValue, "peerResume": seq, "lastAssigned": assigned])
            try lane.skipSequence(to: seq)
        }
        if seq > 0 { try lane.acknowledge(upTo: seq) }
        let acked: Int64 = try lane.watermarks().acked
        return seq > acked ? seq : acked
    }

    /// Sends queued transfers while the window and the socket have room. Reads the outbox a page at a
    /// time: memory is bounded by the window, whatever the backlog.
    func pump() {
        // The phone holds transfers for a watch app that is not installed until it is (`maySend`).
        guard let channel, core.maySend else { return }
        // The sequenced lanes in their order (complications first, never behind a backlog), then files.
        for lane in TransferLane.sequenced {
            pump(lane, channel)
            guard self.channel === channel else { return }
        }
        pumpFiles(channel)
    }

    /// One sequenced lane's part of the pump: its window's room, a page of its outbox at a time.
    private func pump(_ lane: TransferLane, _ channel: LinkChannel) {
        let spec = lane.spec
        while core.lanes[lane].mayHaveMore, core.lanes[lane].window.room > 0,
            channel.pendingOutboundBytes < configuration.outboundHighWaterBytes
        {
            var room = core.lanes[lane].window.room
            if spec.paced, configuration.maximumTransfersPerSecond != nil {
                room = min(room, takeRateTokens(upTo: room))
                if room == 0 { return }
            }
            let entries: [OutboxEntry]
            do {
                entries = try outboxes[lane].entries(after: core.lanes[lane].window.lastSentSeq, limit: min(room, spec.page))
            } catch {
                logger.error("outbox.read-failed", ["lane": lane.rawValue, "error": "\(error)"])
                loop.schedule(afterMilliseconds: 500) { [weak self] in self?.pump() }
                return
            }
            if entries.isEmpty { core.lanes[lane].mayHaveMore = false; break }
            // The realistic system holds a background transfer a while; the pump comes back when it may go.
            let due = systemDue(lane, entries)
            if due.isEmpty { return }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(entries.reduce(0) { $0 + $1.payload.count + 14 })
            for entry in due {
                switch core.lanes[lane].window.take(seq: entry.seq, bytes: entry.payload.count) {
                case .send: Self.append(spec.frame, entry, window: &core.lanes[lane].window, to: &bytes)
                case let .fail(code): failTransfer(entry, lane: lane, code: code)
                }
            }
            if bytes.isEmpty { continue }
            CrashPoint.hit("send.before-send")
            channel.send(bytes)
            if self.channel == nil { return }
        }
        if core.lanes[lane].mayHaveMore, self.channel != nil, channel.pendingOutboundBytes >= configuration.outboundHighWaterBytes {
            channel.requestDrainNotification()
        }
    }

    /// The first of `entries` the system lets go now (`SystemTiming`): under the realistic system each
    /// userInfo transfer waits its drawn delay from when the pump first saw it, and no transfer goes before
    /// the one ahead of it (`systemDue`: told once in the log, the trace and `status`). Immediate, or
    /// the complication lane (sent at once while the budget lasts): all of them.
    private func systemDue(_ lane: TransferLane, _ entries: [OutboxEntry]) -> ArraySlice<OutboxEntry> {
        guard systemTiming.realistic, lane == .userInfo else { return entries[...] }
        let now = loop.nowNanoseconds
        var previous: UInt64 = 0
        for (index, entry) in entries.enumerated() {
            let at = systemDue(.userInfo, id: entry.seq, notBefore: previous)
            previous = at
            if at > now {
                pumpAgain(at: at)
                for sent in entries[..<index] { systemSent(.userInfo, id: sent.seq) }
                return entries[..<index]
            }
        }
        for sent in entries { systemSent(.userInfo, id: sent.seq) }
        return entries[...]
    }

    /// One transfer's frame, after a skip (an empty frame of its lane) for each number before it that
    /// the counterpart will never get a transfer for: its receiver takes only the number after its
    /// cursor, so none is ever missing from the stream (`docs/protocol.md`, "the sequence rule").
    static func append(_ type: FrameType, _ entry: OutboxEntry, window: inout SendWindow, to bytes: inout [UInt8]) {
        if let skipped = window.skips(before: entry.seq) {
            for seq in skipped { SequencedFrame.append(type, number: seq, body: [], to: &bytes) }
        }
        SequencedFrame.append(type, number: entry.seq, body: entry.payload, to: &bytes)
    }

    /// `runway link fail-next`: the next `count` transfers the pump takes finish with `code`.
    package func failNextTransfers(_ count: Int, code: WCError.Code) {
        core.window.failNext(count, code: code)
        logger.warning("fault.fail-next", ["transfers": count, "code": code.rawValue])
    }

    /// A transfer that could not be delivered: it leaves the outbox (never reported as finished
    /// well), and the app hears `didFinish` with the error, with its userInfo to queue again.
    private func failTransfer(_ entry: OutboxEntry, lane: TransferLane, code: WCError.Code) {
        let error = WCError(code, "the transfer failed (runway link fail-next)")
        do {
            guard try outboxes[lane].cancel(seq: entry.seq) else { return }
        } catch {
            logger.warning("transfer.fail-not-saved", ["seq": entry.seq, "error": "\(error)"])
            return
        }
        logger.warning("transfer.failed", ["seq": entry.seq, "code": error.code.rawValue])
        let userInfo = try? PropertyListCodec.decodeDictionary(entry.payload)
        loop.deferToEndOfIteration { [weak self] in
            guard let self else { return }
            self.emit(.didFinish(FinishedTransfer(seq: entry.seq, replayed: false, userInfo: userInfo, lane: lane), error: error))
        }
    }

    /// A token bucket for `maximumTransfersPerSecond` (bursts of at most a tenth of a second); when it
    /// is empty, the pump comes back once a token has accrued.
    private func takeRateTokens(upTo wanted: Int) -> Int {
        guard let rate = configuration.maximumTransfersPerSecond, rate > 0 else { return wanted }
        let granted = core.window.takeTokens(upTo: wanted, rate: rate, now: loop.nowNanoseconds)
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

    /// Tells the app (`didFinish`) about acknowledged transfers it has not heard of, then records that
    /// it has. A crash in between replays them at the next activation.
    func reportFinished(replayed: Bool = false) {
        // Not while the app is held: it hears them all, replayed, when it activates.
        guard !core.appHeld else { return }
        for lane in TransferLane.inOrder.map({ outboxes[$0] }) {
            do {
                let finished = try lane.unreportedFinished()
                guard let last = finished.last else { continue }
                CrashPoint.hit("send.before-did-finish")
                if replayed { logger.info("finished.replay", ["lane": lane.lane.rawValue, "transfers": finished.count]) }
                var files: [FileRecord] = []
                for seq in finished {
                    var transfer = FinishedTransfer(seq: seq, replayed: replayed, lane: lane.lane)
                    if lane.lane == .file, let record = (try? lane.payload(seq: seq)).flatMap({ try? FileRecord(decoding: $0) }) {
                        transfer.file = record
                        files.append(record)
                    }
                    emit(.didFinish(transfer, error: nil))
                }
                try lane.markReported(upTo: last)
                removeFinishedCopies(files)
            } catch {
                logger.warning("finished.report-failed", ["lane": lane.lane.rawValue, "error": "\(error)"])
            }
        }
        pruneDeliveredWhenQuiet()
    }

    /// How long the link must go without an acknowledgement before delivered rows are pruned.
    static let pruneQuietMilliseconds: UInt64 = 1000

    /// Deletes the delivered rows an outbox that did not empty keeps (`Outbox.pruneDelivered`) once no
    /// acknowledgement has come for `pruneQuietMilliseconds`: never between two batches of a drain, where
    /// it stalled the sender while the receiver waited, nor as the last acknowledgement of a long drain
    /// comes (emptying the table then held that acknowledgement's handling ~0.1 s a 100,000 transfers).
    func pruneDeliveredWhenQuiet() {
        if let pruneTimer { loop.cancel(pruneTimer) }
        pruneTimer = nil
        let lanes = TransferLane.inOrder.map { outboxes[$0] }
        guard lanes.contains(where: { (try? $0.hasDeliveredToPrune()) == true }) else { return }
        pruneTimer = loop.schedule(afterMilliseconds: Self.pruneQuietMilliseconds) { [weak self] in
            guard let self else { return }
            self.pruneTimer = nil
            for lane in lanes {
                do {
                    try lane.pruneDelivered()
                } catch {
                    self.logger.warning("outbox.prune-failed", ["lane": lane.lane.rawValue, "error": "\(error)"])
                }
            }
        }
    }
}
