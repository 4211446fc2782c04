import PropertyLists

/// What the session tells its app: one case per callback, handed to one `SessionHandler`.
///
/// A callback the app answers carries what the answer needs: a message's reply closure, or the
/// handler's return value (`ReceiveOutcome` for a received transfer or file). Two switches name every
/// case without a `default`, so a new case does not compile until they say what it does: how it is
/// traced (`traced(in:)`, below, in this file) and how Apple's `WCSessionDelegate` hears it
/// (`SessionAdapter`). Forwarding needs nothing per case (the system's ledger keeps what it counts and
/// hands on the rest).
///
/// Delivery is at least once: after a crash the same transfer may arrive again, and an app must treat a
/// repeat as already handled (RunWay dedups flights by id).
package enum SessionCallback {
    case activationDidComplete(ActivationState, error: (any Error)?)
    /// The session became inactive (the paired device was switched); `didDeactivate` follows.
    case didBecomeInactive
    /// The session is deactivated; the app should call `activate()` again to talk to the new device.
    case didDeactivate

    // MARK: Receiving, inside the receive transaction

    /// A batch of received transfers is about to be delivered, inside the session's receive transaction:
    /// an app that keeps its own store opens its transaction here (group commit: one per batch).
    case willReceiveTransfers
    /// The fast path for apps that decode their own payloads: delivered first, inside the receive
    /// transaction, with the encoded dictionary (`EncodedDictionary` reads it in place). The handler
    /// returns what it did, or nil to have the session decode it and deliver `didReceiveUserInfo`.
    case didReceiveEncodedUserInfo(UnsafeRawBufferPointer, ReceivedTransfer)
    /// A userInfo transfer arrived. Runs inside the store transaction that records it as received:
    /// whatever the app writes to the same database here commits, or rolls back, together with it. The
    /// handler returns what it did; nil is `.notNow` (kept, delivered again), never `.accepted`.
    case didReceiveUserInfo(UserInfo, ReceivedTransfer)
    /// Every transfer of the batch has been delivered; the session's own commit (its cursor) and then the
    /// acknowledgement follow. An app that keeps its own store commits here: what it saved must be
    /// durable before anything is acknowledged. Throwing rolls the whole batch back — nothing is
    /// acknowledged, the sender resends it.
    case willCommitReceivedTransfers
    /// The receive transaction for the transfers just delivered has committed: they are durable and
    /// about to be acknowledged. For effects that must not happen before that (notifying a UI).
    case didCommitReceivedTransfers
    /// The receive transaction failed and was rolled back: nothing from it is stored, nothing acknowledged.
    case didRollBackReceivedTransfers(any Error)

    // MARK: Finished transfers, contexts, messages, files, state

    /// The counterpart has a transfer for good (`error` nil), or it could not be delivered.
    /// Replayed at activation for transfers that finished before the app was told.
    case didFinish(FinishedTransfer, error: WCError?)
    /// A new application context arrived (it is durable: `receivedApplicationContext` holds it).
    case didReceiveApplicationContext(UserInfo)
    /// A message arrived. With `reply`, the sender waits for an answer: call it at most once (not calling
    /// it lets the sender time out). Without, the sender expects none (`sendMessage(_:replyExpected:
    /// false)`, Apple's `session(_:didReceiveMessage:)`) and hears it was delivered once this returns.
    case didReceiveMessage(UserInfo, reply: ((UserInfo) -> Void)?)
    /// A data message arrived (`sendMessageData`); `reply` as for `didReceiveMessage`.
    case didReceiveMessageData([UInt8], reply: (([UInt8]) -> Void)?)
    /// A file arrived (`transferFile` on the other side), checked end to end, at `file.path` in the app's
    /// `Documents/Inbox`: move it before returning, or it is deleted. The handler returns what it did: it
    /// is acknowledged once that is `.accepted`; `.notNow`, nil or a throw keeps it and delivers it again.
    case didReceiveFile(ReceivedFile)
    /// The counterpart has made `completed` of `total` bytes of file transfer `seq` durable.
    case fileTransferDidProgress(seq: Int64, completed: Int64, total: Int64)
    case reachabilityDidChange
    case watchStateDidChange
}

/// How `runway … events` records a callback (`TracingHandler` carries it out).
package enum CallbackTrace {
    /// Recorded as it is handed on.
    case record(DelegateEvent.Call)
    /// Not shown: file progress, a batch's start and its commit call.
    case none
    /// Recorded by the trace itself, around the app's call: after the app's answer (a received transfer
    /// or file, a message with a reply), or with what the batch delivered (its commit, its roll back).
    case aroundTheCall
}

extension SessionCallback {
    /// How this callback is traced: the one switch besides the adapter's that a new case must join.
    package func traced(in session: Session) -> CallbackTrace {
        switch self {
        case let .activationDidComplete(state, error): .record(.activationDidComplete(state: state, error: error.map { "\($0)" }))
        case .didBecomeInactive: .record(.didBecomeInactive)
        case .didDeactivate: .record(.didDeactivate)
        case .willReceiveTransfers, .willCommitReceivedTransfers, .fileTransferDidProgress: .none
        case .didReceiveEncodedUserInfo, .didReceiveUserInfo, .didReceiveFile, .didCommitReceivedTransfers, .didRollBackReceivedTransfers: .aroundTheCall
        case let .didReceiveMessage(message, reply):
            if reply != nil { .aroundTheCall } else { .record(Self.messageRecord(message, replyHandler: false, repliedAtOnce: false)) }
        case let .didReceiveMessageData(data, reply):
            reply != nil ? .aroundTheCall : .record(.didReceiveMessageData(bytes: data.count, replyHandler: false, repliedAtOnce: false))
        case let .didFinish(transfer, error):
            transfer.lane == .file
                ? .record(.didFinishFileTransfer(seq: transfer.seq, replayed: transfer.replayed, error: error))
                : .record(
                    .didFinishUserInfoTransfer(seq: transfer.seq, replayed: transfer.replayed, error: error, complication: transfer.lane == .complication))
        case let .didReceiveApplicationContext(context):
            .record(Self.contextRecord(context))
        case .reachabilityDidChange: .record(.reachabilityDidChange(reachable: session.isReachable))
        case .watchStateDidChange: .record(.watchStateDidChange(paired: session.isPaired, watchAppInstalled: session.isWatchAppInstalled))
        }
    }

    /// A message's record: its payload kept when small (`DelegateTrace.payloadLimit`).
    package static func messageRecord(_ message: UserInfo, replyHandler: Bool, repliedAtOnce: Bool) -> DelegateEvent.Call {
        let size = PropertyListCodec.encode(message).count
        return .didReceiveMessage(
            keys: message.keys.sorted(), bytes: size, payload: size <= DelegateTrace.payloadLimit ? message : nil, replyHandler: replyHandler,
            repliedAtOnce: repliedAtOnce)
    }

    private static func contextRecord(_ context: UserInfo) -> DelegateEvent.Call {
        let size = PropertyListCodec.encode(context).count
        return .didReceiveApplicationContext(keys: context.keys.sorted(), bytes: size, payload: size <= DelegateTrace.payloadLimit ? context : nil)
    }
}

/// The one place the session's callbacks go. All of them run on the daemon's event-loop thread, one at
/// a time.
///
/// A wrapper holds the next handler and forwards, as NIO's handlers do: `record(callback); return try
/// next.handle(callback, from: session)`.
package protocol SessionHandler: AnyObject {
    /// Handles one callback and returns the app's answer to a received transfer or file (see each case);
    /// nil for every other callback. Throwing inside the receive transaction (`willReceiveTransfers`, a
    /// received transfer, `willCommitReceivedTransfers`) rolls the batch back; a received file that throws
    /// is kept and delivered again; elsewhere the session logs the error and goes on.
    func handle(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome?
}

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
