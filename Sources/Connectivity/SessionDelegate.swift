import PropertyLists
/// The session's activation states, as WatchConnectivity names them.
package enum ActivationState: String, Sendable {
    case notActivated
    case inactive
    case activated
}

/// What the app did with a received transfer.
package enum ReceiveOutcome: Sendable, Equatable {
    /// Taken: stored in the receive transaction, or deliberately ignored. The session records the
    /// transfer as received and acknowledges it once the transaction commits.
    case accepted
    /// The app cannot take it now (its store is not ready). Neither it nor anything after it is
    /// acknowledged; the sender keeps them and resends after the link is re-established.
    case notNow
    /// The app's write failed part-way (a full disk, an I/O error): the whole receive transaction is
    /// rolled back — nothing half-written survives — and nothing is acknowledged.
    case failed
    /// The app's store is full: as `failed`, and the sender hears `insufficientSpace` (7015).
    case insufficientSpace
    /// The app will never take it (it is malformed by the app's rules): the session keeps it in
    /// quarantine, in the receive transaction, and moves on. Never dropped.
    case rejected(String)
}

/// A transfer as the receiving app sees it.
package struct ReceivedTransfer: Sendable {
    /// The sender's sequence number: increasing, unique per sending device (and lane).
    package let seq: Int64
    /// The sending device's id.
    package let senderDeviceID: String
    /// `.complication` for a complication userInfo (`transferCurrentComplicationUserInfo`), else `.userInfo`.
    package var lane: TransferLane = .userInfo

    package init(seq: Int64, senderDeviceID: String, lane: TransferLane = .userInfo) {
        self.seq = seq
        self.senderDeviceID = senderDeviceID
        self.lane = lane
    }
}

/// A transfer the counterpart has finished with (`session(_:didFinish:error:)`).
package struct FinishedTransfer: Sendable, Equatable {
    /// The transfer's id: its sequence number on this device.
    package let seq: Int64
    /// True when this is a replay at activation: the transfer finished while the app was not running
    /// (or before it had been told).
    package let replayed: Bool
    /// The transfer's userInfo, given when it failed (`error` non-nil), so the app can queue it again
    /// (`WCSessionUserInfoTransfer.userInfo`); nil for a transfer that finished well.
    package var userInfo: UserInfo? = nil
    /// The error it finished with, as the app recorded it (`AppConnectivity.recentlyFinished`).
    package var error: WCError? = nil
    /// The lane it went in: a complication transfer has its own sequence numbers.
    package var lane: TransferLane = .userInfo
    /// A file transfer's record (its name, size, checksum, metadata, the path the app gave).
    package var file: FileRecord? = nil
}

/// The session's callbacks. All of them run on the daemon's event-loop thread, one at a time.
///
/// Delivery is at least once: after a crash the same transfer may arrive again, and an app must treat
/// a repeat as already handled (RunWay dedups flights by id).
package protocol SessionDelegate: SessionHandler {
    func session(_ session: Session, activationDidCompleteWith state: ActivationState, error: Error?)

    /// The session became inactive (the paired device was switched); `sessionDidDeactivate` follows.
    func sessionDidBecomeInactive(_ session: Session)
    /// The session is deactivated; the app should call `activate()` again to talk to the new device.
    func sessionDidDeactivate(_ session: Session)

    /// The fast path for apps that decode their own payloads: called first, inside the receive
    /// transaction, with the encoded dictionary (`EncodedDictionary` reads it in place). Return nil to
    /// have the session decode it and call `didReceiveUserInfo` instead.
    func session(_ session: Session, didReceiveEncodedUserInfo bytes: UnsafeRawBufferPointer, transfer: ReceivedTransfer) -> ReceiveOutcome?

    /// A userInfo transfer arrived. Runs inside the store transaction that records it as received:
    /// whatever the app writes to the same database here commits, or rolls back, together with it.
    func session(_ session: Session, didReceiveUserInfo userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome

    /// A batch of received transfers is about to be delivered, inside the session's receive transaction:
    /// an app that keeps its own store opens its transaction here (group commit: one per batch).
    func sessionWillReceiveTransfers(_ session: Session)

    /// Every transfer of the batch has been delivered; the session's own commit (its cursor) and then the
    /// acknowledgement follow. An app that keeps its own store commits here: what it saved must be
    /// durable before anything is acknowledged. Throwing rolls the whole batch back — nothing is
    /// acknowledged, the sender resends it.
    func sessionWillCommitReceivedTransfers(_ session: Session) throws

    /// The receive transaction for the transfers just delivered has committed: they are durable and
    /// about to be acknowledged. For effects that must not happen before that (notifying a UI).
    func sessionDidCommitReceivedTransfers(_ session: Session)

    /// The receive transaction failed and was rolled back: nothing from it is stored, nothing acknowledged.
    func session(_ session: Session, didRollBackReceivedTransfers error: Error)

    /// The counterpart has a transfer for good (`error` nil), or it could not be delivered.
    /// Replayed at activation for transfers that finished before the app was told.
    func session(_ session: Session, didFinish transfer: FinishedTransfer, error: WCError?)

    /// A new application context arrived (it is durable: `receivedApplicationContext` holds it).
    func session(_ session: Session, didReceiveApplicationContext context: UserInfo)

    /// A message arrived; call `reply` at most once (not calling it lets the sender time out).
    func session(_ session: Session, didReceiveMessage message: UserInfo, reply: @escaping (UserInfo) -> Void)

    /// A message arrived whose sender expects no reply (`sendMessage(_:replyExpected: false)`), as
    /// Apple's `session(_:didReceiveMessage:)`. The sender hears that it was delivered once this returns.
    func session(_ session: Session, didReceiveMessage message: UserInfo)

    /// A data message arrived (`sendMessageData` with a reply handler); call `reply` at most once.
    func session(_ session: Session, didReceiveMessageData data: [UInt8], reply: @escaping ([UInt8]) -> Void)

    /// A data message arrived whose sender expects no reply; the sender hears it was delivered once this returns.
    func session(_ session: Session, didReceiveMessageData data: [UInt8])

    /// A file arrived (`transferFile` on the other side), checked end to end, at `file.path` in the app's
    /// `Documents/Inbox`: move it before returning, or it is deleted. It is acknowledged once this
    /// returns `.accepted`; `.notNow` (or a failure) keeps it and delivers it again later.
    func session(_ session: Session, didReceiveFile file: ReceivedFile) -> ReceiveOutcome

    /// The counterpart has made `completed` of `total` bytes of file transfer `seq` durable.
    func session(_ session: Session, fileTransfer seq: Int64, didProgress completed: Int64, of total: Int64)

    func sessionReachabilityDidChange(_ session: Session)
    func sessionWatchStateDidChange(_ session: Session)
}

extension SessionDelegate {
    package func session(_ session: Session, didReceiveEncodedUserInfo bytes: UnsafeRawBufferPointer, transfer: ReceivedTransfer) -> ReceiveOutcome? { nil }
    package func sessionDidBecomeInactive(_ session: Session) {}
    package func sessionDidDeactivate(_ session: Session) {}
    package func sessionWillReceiveTransfers(_ session: Session) {}
    package func sessionWillCommitReceivedTransfers(_ session: Session) throws {}
    package func sessionDidCommitReceivedTransfers(_ session: Session) {}
    package func session(_ session: Session, didRollBackReceivedTransfers error: Error) {}
    package func session(_ session: Session, didFinish transfer: FinishedTransfer, error: WCError?) {}
    package func session(_ session: Session, didReceiveApplicationContext context: UserInfo) {}
    package func session(_ session: Session, didReceiveMessage message: UserInfo, reply: @escaping (UserInfo) -> Void) {}
    package func session(_ session: Session, didReceiveMessage message: UserInfo) {}
    package func session(_ session: Session, didReceiveMessageData data: [UInt8], reply: @escaping ([UInt8]) -> Void) {}
    package func session(_ session: Session, didReceiveMessageData data: [UInt8]) {}
    package func session(_ session: Session, didReceiveFile file: ReceivedFile) -> ReceiveOutcome { .accepted }
    package func session(_ session: Session, fileTransfer seq: Int64, didProgress completed: Int64, of total: Int64) {}
    package func sessionReachabilityDidChange(_ session: Session) {}
    package func sessionWatchStateDidChange(_ session: Session) {}
}

extension SessionDelegate {
    /// Each callback to its method (the delegate's form, until its conformers handle callbacks themselves).
    package func handle(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome? {
        switch callback {
        case let .activationDidComplete(state, error): self.session(session, activationDidCompleteWith: state, error: error)
        case .didBecomeInactive: sessionDidBecomeInactive(session)
        case .didDeactivate: sessionDidDeactivate(session)
        case .willReceiveTransfers: sessionWillReceiveTransfers(session)
        case let .didReceiveEncodedUserInfo(bytes, transfer): return self.session(session, didReceiveEncodedUserInfo: bytes, transfer: transfer)
        case let .didReceiveUserInfo(userInfo, transfer): return self.session(session, didReceiveUserInfo: userInfo, transfer: transfer)
        case .willCommitReceivedTransfers: try sessionWillCommitReceivedTransfers(session)
        case .didCommitReceivedTransfers: sessionDidCommitReceivedTransfers(session)
        case let .didRollBackReceivedTransfers(error): self.session(session, didRollBackReceivedTransfers: error)
        case let .didFinish(transfer, error): self.session(session, didFinish: transfer, error: error)
        case let .didReceiveApplicationContext(context): self.session(session, didReceiveApplicationContext: context)
        case let .didReceiveMessage(message, reply?): self.session(session, didReceiveMessage: message, reply: reply)
        case let .didReceiveMessage(message, nil): self.session(session, didReceiveMessage: message)
        case let .didReceiveMessageData(data, reply?): self.session(session, didReceiveMessageData: data, reply: reply)
        case let .didReceiveMessageData(data, nil): self.session(session, didReceiveMessageData: data)
        case let .didReceiveFile(file): return self.session(session, didReceiveFile: file)
        case let .fileTransferDidProgress(seq, completed, total): self.session(session, fileTransfer: seq, didProgress: completed, of: total)
        case .reachabilityDidChange: sessionReachabilityDidChange(session)
        case .watchStateDidChange: sessionWatchStateDidChange(session)
        }
        return nil
    }
}

/// One established link to the counterpart, as the session sees it: somewhere to write whole frames.
package protocol LinkChannel: AnyObject {
    /// Queues whole frames for sending.
    func send(_ frames: [UInt8])
    /// Bytes queued but not yet taken by the kernel: the session stops producing above a high-water mark.
    var pendingOutboundBytes: Int { get }
    /// Asks to be told (`Session.channelDidDrain`) when the queued bytes have gone.
    func requestDrainNotification()
    /// Sends `error` if given, then closes; the session hears `channelDidClose`.
    func close(error: WCError?, reason: String)
    /// Hands the session, now, the frames the counterpart has already sent (a watch switch delivers them
    /// before the link closes). A link with nothing in transit does nothing.
    func receiveWhatArrived()
    /// Fault injection: stop reading (what the counterpart sends waits in transit), or read again.
    func holdReceiving(_ held: Bool)
}

extension LinkChannel {
    package func receiveWhatArrived() {}
    package func holdReceiving(_ held: Bool) {}
}

/// How the session reaches its counterpart: the phone listens, the watch connects.
package protocol LinkTransport: AnyObject {
    /// Starts accepting or connecting; called when the session activates.
    func start(_ session: Session) throws
    /// Whether a link is expected as soon as it starts (the phone: a connection its OS handed over; the
    /// watch: in range): activation is announced once that first attempt settles.
    var expectsLinkAtStart: Bool { get }
    /// Closes every connection and stops.
    func stop()
    /// Whether `wakeCounterpart` can reach a counterpart app that is not running (the watch's connector
    /// while the link is in range: a message makes phone-os launch the phone app).
    var canWakeCounterpart: Bool { get }
    /// Connects now, saying in the handshake that messages are waiting (`Handshake.pendingMessages`); the
    /// session hears the outcome: `channelDidOpen`, or `linkAttemptFailed`.
    func wakeCounterpart()
}

extension LinkTransport {
    package var expectsLinkAtStart: Bool { false }
    package var canWakeCounterpart: Bool { false }
    package func wakeCounterpart() {}
}
