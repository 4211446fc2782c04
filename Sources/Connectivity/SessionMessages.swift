import Posix
import PropertyLists

/// A message waiting for its reply: exactly one of the reply or an error will complete it.
struct PendingMessage {
    let timer: EventLoop.TimerID
    let completion: (Result<UserInfo, WCError>) -> Void
}

// MARK: - sendMessage: immediate, only while reachable, answered or failed exactly once

extension Session {
    /// Sends `message` now and calls `completion` exactly once: with the counterpart's reply, or with
    /// an error — `notReachable` (7007) if the counterpart cannot be reached, `messageReplyTimedOut`
    /// (7012) if no reply comes within the timeout, `payloadTooLarge` (7009), `sessionNotActivated` (7004).
    ///
    /// `replyExpected: false` is Apple's `sendMessage` with no reply handler: the counterpart's app hears
    /// `didReceiveMessage` without a reply, and `completion` gets an empty dictionary once the message was
    /// handed to it (`deliveryFailed` 7014 if that is not confirmed within the timeout).
    ///
    /// From the watch, with its app in the foreground and the link down but in range, the message waits
    /// for the link and the connection says so (`Handshake.pendingMessages`): phone-os launches the phone
    /// app for it, as iOS does ("the counterpart app will be launched upon receiving the message").
    public func sendMessage(
        _ message: UserInfo, replyExpected: Bool = true, timeoutMilliseconds: UInt64? = nil,
        completion: @escaping (Result<UserInfo, WCError>) -> Void
    ) {
        handle(
            .messageSendRequested(
                message, replyExpected: replyExpected, timeoutMilliseconds: timeoutMilliseconds ?? configuration.messageTimeoutMilliseconds,
                transportCanWake: transport?.canWakeCounterpart ?? false, completion: completion))
    }

    /// A message frame from the link (a message, a reply, an error, a delivery): the core decides.
    func receiveMessageFrame(_ type: FrameType, id: Int64, body: [UInt8]) {
        handle(.messageFrameReceived(type, id: id, body: body))
    }
}
