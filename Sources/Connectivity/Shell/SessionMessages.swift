import Posix
import PropertyLists

/// A message waiting for its reply: exactly one of the reply or an error will complete it.
struct PendingMessage {
    let timer: EventLoop.TimerID
    let completion: (Result<MessageBody, WCError>) -> Void
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
    package func sendMessage(
        _ message: UserInfo, replyExpected: Bool = true, timeoutMilliseconds: UInt64? = nil,
        completion: @escaping (Result<UserInfo, WCError>) -> Void
    ) {
        send(.dictionary(message), replyExpected: replyExpected, timeoutMilliseconds: timeoutMilliseconds) { result in
            switch result {
            case let .success(.dictionary(reply)): completion(.success(reply))
            case .success where !replyExpected: completion(.success([:]))
            case .success: completion(.failure(WCError(.messageReplyFailed, "the counterpart answered a message with data")))
            case let .failure(error): completion(.failure(error))
            }
        }
    }

    /// `sendMessageData`: as `sendMessage`, with bytes the app encoded itself (at most
    /// `SessionConfiguration.userInfoByteLimit`, else `payloadTooLarge` 7009). The counterpart's app hears
    /// `didReceiveMessageData` (with a reply handler, whose bytes come back here, or without one); without a
    /// reply `completion` gets empty bytes once it was delivered.
    package func sendMessageData(
        _ data: [UInt8], replyExpected: Bool = true, timeoutMilliseconds: UInt64? = nil,
        completion: @escaping (Result<[UInt8], WCError>) -> Void
    ) {
        send(.data(data), replyExpected: replyExpected, timeoutMilliseconds: timeoutMilliseconds) { result in
            switch result {
            case let .success(.data(reply)): completion(.success(reply))
            case .success where !replyExpected: completion(.success([]))
            case .success: completion(.failure(WCError(.messageReplyFailed, "the counterpart answered a data message with a dictionary")))
            case let .failure(error): completion(.failure(error))
            }
        }
    }

    private func send(
        _ body: MessageBody, replyExpected: Bool, timeoutMilliseconds: UInt64?, completion: @escaping (Result<MessageBody, WCError>) -> Void
    ) {
        handle(
            .messageSendRequested(
                body, replyExpected: replyExpected, timeoutMilliseconds: timeoutMilliseconds ?? configuration.messageTimeoutMilliseconds,
                transportCanWake: transport?.canWakeCounterpart ?? false, completion: completion))
    }

    /// A message frame from the link (a message, a reply, an error, a delivery): the core decides.
    func receiveMessageFrame(_ type: FrameType, id: Int64, body: [UInt8]) {
        handle(.messageFrameReceived(type, id: id, body: body))
    }
}
