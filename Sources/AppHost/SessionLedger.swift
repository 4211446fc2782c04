import Connectivity
import Posix
import PropertyLists

/// The system's own record of what the session told the app — finished transfers, messages without a
/// reply — kept so that `runway … transfers` and `status` can answer whatever the app is; and the
/// host's hook on activation. Stands between the trace and the app's handler (the `WatchConnectivity`
/// adapter): records what it keeps, then forwards every callback unchanged.
final class SessionLedger: SessionHandler {
    /// The app's handler, the `WatchConnectivity` adapter; nil until the app sets a delegate. With none
    /// a received transfer or file is not taken now (resent later), never dropped.
    var app: (any SessionHandler)?
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

    func handle(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome? {
        switch callback {
        case let .activationDidComplete(state, error): onActivation(state, error)
        case let .didFinish(transfer, error):
            var kept = transfer
            kept.userInfo = nil
            kept.error = error
            recentlyFinished.append(kept)
            finishedCount += 1
        case let .didReceiveMessage(message, nil):
            messagesWithoutReply += 1
            lastMessageWithoutReply = message
        case let .didReceiveMessageData(data, _):
            messageDataReceived += 1
            lastMessageDataBytes = data.count
        default: break  // kept by the app alone
        }
        // No app: unanswered, so a received transfer or file is `.notNow`.
        return try app?.handle(callback, from: session)
    }
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
