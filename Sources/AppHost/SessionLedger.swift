import Connectivity
import Posix
import PropertyLists

/// The system's own record of what the session told the app — finished transfers, messages without a
/// reply — kept so that `runway … transfers` and `status` can answer whatever the app is; and the
/// host's hook on activation. Stands between the trace and the app's delegate (the `WatchConnectivity`
/// adapter), forwarding every call unchanged.
///
/// Like `TracingDelegate`, it implements every method of `SessionDelegate`: one it lacked would fall to
/// the protocol's empty default and never reach the app.
final class SessionLedger: SessionDelegate {
    /// The app's delegate, through the `WatchConnectivity` adapter; nil until the app sets one. With none
    /// a received transfer is not taken now (resent later), never dropped.
    var app: SessionDelegate?
    /// Told of every completed activation before the app is (the host opens its control socket then).
    var onActivation: (ActivationState, Error?) -> Void = { _, _ in }
    /// The most recent `didFinish` calls, newest last (for `runway … transfers`).
    private(set) var recentlyFinished = RecentItems<FinishedTransfer>(capacity: 1000)
    private(set) var finishedCount = 0
    /// Messages whose sender expected no reply, since start-up, and the latest of them.
    private(set) var messagesWithoutReply = 0
    private(set) var lastMessageWithoutReply: UserInfo?
    /// Data messages received since start-up (with a reply handler or without), and the size of the latest.
    private(set) var messageDataReceived = 0
    private(set) var lastMessageDataBytes: Int?

    func session(_ session: Session, activationDidCompleteWith state: ActivationState, error: Error?) {
        onActivation(state, error)
        app?.session(session, activationDidCompleteWith: state, error: error)
    }

    func sessionDidBecomeInactive(_ session: Session) { app?.sessionDidBecomeInactive(session) }
    func sessionDidDeactivate(_ session: Session) { app?.sessionDidDeactivate(session) }

    func session(_ session: Session, didReceiveEncodedUserInfo bytes: UnsafeRawBufferPointer, transfer: ReceivedTransfer) -> ReceiveOutcome? {
        guard let app else { return .notNow }
        return app.session(session, didReceiveEncodedUserInfo: bytes, transfer: transfer)
    }

    func session(_ session: Session, didReceiveUserInfo userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome {
        app?.session(session, didReceiveUserInfo: userInfo, transfer: transfer) ?? .notNow
    }

    func sessionWillReceiveTransfers(_ session: Session) { app?.sessionWillReceiveTransfers(session) }
    func sessionWillCommitReceivedTransfers(_ session: Session) throws { try app?.sessionWillCommitReceivedTransfers(session) }
    func sessionDidCommitReceivedTransfers(_ session: Session) { app?.sessionDidCommitReceivedTransfers(session) }

    func session(_ session: Session, didRollBackReceivedTransfers error: Error) {
        app?.session(session, didRollBackReceivedTransfers: error)
    }

    func session(_ session: Session, didFinish transfer: FinishedTransfer, error: WCError?) {
        var kept = transfer
        kept.userInfo = nil
        kept.error = error
        recentlyFinished.append(kept)
        finishedCount += 1
        app?.session(session, didFinish: transfer, error: error)
    }

    func session(_ session: Session, didReceiveApplicationContext context: UserInfo) {
        app?.session(session, didReceiveApplicationContext: context)
    }

    func session(_ session: Session, didReceiveMessage message: UserInfo, reply: @escaping (UserInfo) -> Void) {
        app?.session(session, didReceiveMessage: message, reply: reply)
    }

    func session(_ session: Session, didReceiveMessage message: UserInfo) {
        messagesWithoutReply += 1
        lastMessageWithoutReply = message
        app?.session(session, didReceiveMessage: message)
    }

    func session(_ session: Session, didReceiveMessageData data: [UInt8], reply: @escaping ([UInt8]) -> Void) {
        messageDataReceived += 1
        lastMessageDataBytes = data.count
        app?.session(session, didReceiveMessageData: data, reply: reply)
    }

    func session(_ session: Session, didReceiveMessageData data: [UInt8]) {
        messageDataReceived += 1
        lastMessageDataBytes = data.count
        app?.session(session, didReceiveMessageData: data)
    }

    func session(_ session: Session, didReceiveFile file: ReceivedFile) -> ReceiveOutcome {
        app?.session(session, didReceiveFile: file) ?? .notNow
    }

    func session(_ session: Session, fileTransfer seq: Int64, didProgress completed: Int64, of total: Int64) {
        app?.session(session, fileTransfer: seq, didProgress: completed, of: total)
    }

    func sessionReachabilityDidChange(_ session: Session) { app?.sessionReachabilityDidChange(session) }
    func sessionWatchStateDidChange(_ session: Session) { app?.sessionWatchStateDidChange(session) }
}

/// The last `capacity` items, oldest first.
package struct RecentItems<Element: Sendable>: Sendable {
    package let capacity: Int
    package private(set) var items: [Element] = []

    package init(capacity: Int) { self.capacity = capacity }

    package mutating func append(_ item: Element) {
        items.append(item)
        if items.count > capacity * 2 { items.removeFirst(items.count - capacity) }
    }

    package var last: [Element] { Array(items.suffix(capacity)) }
}
