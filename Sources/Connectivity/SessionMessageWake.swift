/// A watch's message waking the phone app (Apple, `sendMessage(_:replyHandler:errorHandler:)`: "the
/// counterpart app will be launched upon receiving the message"). Only the watch wakes the phone: a
/// phone's message to a watch app that is not in the foreground fails with `notReachable` (7007).
///
/// While the link is down, a message from a foreground watch app waits in `messagesAwaitingLink` (its
/// time-out already running) and the connector connects at once; its `hello` carries `pendingMessages`,
/// which phone-os reads to launch the app (reason `message`). Then exactly one of these completes it:
/// the link comes up and it is sent (`sendMessagesAwaitingLink`); nobody listens on the phone's link
/// socket — the phone is off or out of range — (`notReachable` 7007); the phone turns the connection
/// away with an error, e.g. a force-quit app (that error, 7007); the time-out (7012). A connection
/// declined without an error is retried with the usual backoff, within the time-out.
extension Session {
    /// Only the watch wakes its counterpart, only from a foreground app, only over a link in range.
    var mayWakeCounterpart: Bool {
        role == .watch && activationState == .activated && channel == nil
            && localAppInstalled && localAppActive && (transport?.canWakeCounterpart ?? false)
    }

    /// How many messages wait for the link (what the next `hello` says).
    public var messagesAwaitingLinkCount: Int { messagesAwaitingLink.count }

    /// The link is up: send what waited for it, in the order it was sent (or fail it, if the watch app
    /// left the foreground meanwhile).
    func sendMessagesAwaitingLink() {
        guard !messagesAwaitingLink.isEmpty else { return }
        let ids = messagesAwaitingLink.keys.sorted()
        guard isReachable, let channel else {
            for id in ids { completeMessage(id, .failure(WCError(.notReachable, "the watch app left the foreground before the phone was reached"))) }
            return
        }
        for id in ids {
            guard let frame = messagesAwaitingLink.removeValue(forKey: id) else { continue }
            channel.send(frame)
        }
        logger.info("message.sent-after-wake", ["count": ids.count])
    }

    /// The connector could not bring the link up for the waiting messages: fail them with `error`.
    public func linkAttemptFailed(_ error: WCError) {
        guard !messagesAwaitingLink.isEmpty else { return }
        logger.info("message.wake-failed", ["count": messagesAwaitingLink.count, "code": error.code.rawValue, "reason": error.message])
        for id in messagesAwaitingLink.keys.sorted() { completeMessage(id, .failure(error)) }
    }
}
