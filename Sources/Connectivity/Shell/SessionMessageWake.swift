/// A watch's message waking the phone app (Apple, `sendMessage(_:replyHandler:errorHandler:)`: "the
/// counterpart app will be launched upon receiving the message"). Only the watch wakes the phone: a
/// phone's message to a watch app that is not in the foreground fails with `notReachable` (7007).
///
/// While the link is down, a message from a foreground watch app waits in `MessageBook.awaitingLink` (its
/// time-out already running) and the connector connects at once; its `hello` carries `pendingMessages`,
/// which phone-os reads to launch the app (reason `message`). Then exactly one of these completes it:
/// the link comes up and it is sent (`messagesAwaitingLinkMaySend`); nobody listens on the phone's link
/// socket — the phone is off or out of range — (`notReachable` 7007); the phone turns the connection
/// away with an error, e.g. a force-quit app (that error, 7007); the time-out (7012). A connection
/// declined without an error is retried with the usual backoff, within the time-out.
extension Session {
    /// How many messages wait for the link (what the next `hello` says).
    package var messagesAwaitingLinkCount: Int { core.messages.awaitingLink.count }

    /// The connector could not bring the link up for the waiting messages: fail them with `error`.
    package func linkAttemptFailed(_ error: WCError) {
        handle(.linkAttemptFailed(error))
    }
}
