import Posix

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
        let payload: [UInt8]
        do throws(WCError) {
            try requireActivated()
            try requireCounterpartApp()
            let direct = isReachable && channel != nil
            let wake = !direct && mayWakeCounterpart
            guard direct || wake else {
                throw WCError(
                    .notReachable,
                    role == .phone
                        ? "the watch is not reachable (link down, or the watch app is not in the foreground)"
                        : "the phone is not reachable (link down, or the watch app is not in the foreground)")
            }
            payload = try encodeChecked(message, limit: configuration.userInfoByteLimit, what: "message")
            let id = nextMessageID
            nextMessageID += 1
            let timeout = timeoutMilliseconds ?? configuration.messageTimeoutMilliseconds
            let timer = loop.schedule(afterMilliseconds: timeout) { [weak self] in
                self?.completeMessage(
                    id,
                    .failure(
                        replyExpected
                            ? WCError(.messageReplyTimedOut, "no reply within \(timeout) ms")
                            : WCError(.deliveryFailed, "delivery not confirmed within \(timeout) ms")))
            }
            pendingMessages[id] = PendingMessage(timer: timer, completion: completion)
            let frame = SequencedFrame.frame(replyExpected ? .message : .messageNoReply, number: id, body: payload)
            if direct, let channel {
                channel.send(frame)
            } else {
                messagesAwaitingLink[id] = frame
                logger.info("message.waking-counterpart", ["id": id, "waiting": messagesAwaitingLink.count])
                transport?.wakeCounterpart()
            }
        } catch {
            loop.deferToEndOfIteration { completion(.failure(error)) }
        }
    }

    /// Completes a pending message once; later replies for it (after a time-out) are ignored.
    func completeMessage(_ id: Int64, _ result: Result<UserInfo, WCError>) {
        guard let pending = pendingMessages.removeValue(forKey: id) else {
            logger.debug("message.late-reply-ignored", ["id": id])
            return
        }
        loop.cancel(pending.timer)
        messagesAwaitingLink[id] = nil
        pending.completion(result)
    }

    func failPendingMessages(_ error: WCError) {
        for id in pendingMessages.keys.sorted() { completeMessage(id, .failure(error)) }
    }

    /// The `messageError` frame that answers message `id` with `error`.
    static func messageErrorFrame(_ id: Int64, _ error: WCError) -> [UInt8] {
        SequencedFrame.frame(.messageError, number: id, body: ErrorFrame.encode(error))
    }

    /// A received message's dictionary; nil, after answering the sender with 7010, if it cannot be decoded.
    private func decodedMessage(_ body: [UInt8], id: Int64, answering source: LinkChannel) -> UserInfo? {
        guard let message = try? PropertyListCodec.decodeDictionary(body) else {
            source.send(Self.messageErrorFrame(id, WCError(.payloadUnsupportedTypes, "the message could not be decoded")))
            return nil
        }
        return message
    }

    func receiveMessageFrame(_ type: FrameType, id: Int64, body: [UInt8], from source: LinkChannel) {
        switch type {
        case .message:
            guard let message = decodedMessage(body, id: id, answering: source) else { return }
            var replied = false
            delegate?.session(self, didReceiveMessage: message) { [weak self, weak source] reply in
                guard let self, let source, !replied, self.channel === source else { return }
                replied = true
                let encoded = PropertyListCodec.encode(reply)
                if encoded.count > self.configuration.userInfoByteLimit {
                    source.send(Self.messageErrorFrame(id, WCError(.messageReplyFailed, "the reply is \(encoded.count) bytes, over the limit")))
                } else {
                    source.send(SequencedFrame.frame(.messageReply, number: id, body: encoded))
                }
            }
        case .messageNoReply:
            guard let message = decodedMessage(body, id: id, answering: source) else { return }
            delegate?.session(self, didReceiveMessage: message)
            source.send(SequencedFrame.frame(.messageDelivered, number: id))
        case .messageDelivered:
            completeMessage(id, .success([:]))
        case .messageReply:
            guard let reply = try? PropertyListCodec.decodeDictionary(body) else {
                completeMessage(id, .failure(WCError(.messageReplyFailed, "the reply could not be decoded")))
                return
            }
            completeMessage(id, .success(reply))
        default:
            let error = (try? ErrorFrame.decode(body)) ?? WCError(.messageReplyFailed, "undecodable message error")
            completeMessage(id, .failure(error))
        }
    }
}
