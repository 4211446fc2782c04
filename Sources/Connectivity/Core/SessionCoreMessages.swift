import PropertyLists
/// The messages a session has sent and not yet seen answered: each completes exactly once — with its
/// reply, its delivery, an error frame, the link going down, a time-out — and anything later for it is
/// ignored. The completions themselves (the app's closures) and their timers stay in the shell, by id.
struct MessageBook {
    private(set) var nextID: Int64 = 1
    private(set) var pending: Set<Int64> = []
    /// Messages sent from the watch while the link was down, waiting for it (their whole frames, by id):
    /// the `hello` says how many, phone-os launches the phone app for them (`SessionMessageWake.swift`).
    private(set) var awaitingLink: [Int64: [UInt8]] = [:]
    /// `message` and `messageNoReply` frames received since launch.
    private(set) var receivedCount = 0

    mutating func register(waitingForLink frame: [UInt8]?) -> Int64 {
        let id = nextID
        nextID += 1
        pending.insert(id)
        if let frame { awaitingLink[id] = frame }
        return id
    }

    /// Takes `id` off the book: false if it was already completed.
    mutating func finish(_ id: Int64) -> Bool {
        awaitingLink[id] = nil
        return pending.remove(id) != nil
    }

    mutating func takeAwaiting(_ id: Int64) -> [UInt8]? { awaitingLink.removeValue(forKey: id) }

    mutating func countReceived() { receivedCount += 1 }
}

// MARK: - sendMessage's rules

extension SessionCore {
    /// Only the watch wakes its counterpart, only from a foreground app, only over a link in range.
    func mayWakeCounterpart(transportCanWake: Bool) -> Bool {
        role == .watch && activationState == .activated && !isLinked && local.installed && announcedPresence.active && transportCanWake
    }

    /// The `messageError` frame that answers message `id` with `error`.
    static func messageErrorFrame(_ id: Int64, _ error: WCError) -> [UInt8] {
        SequencedFrame.frame(.messageError, number: id, body: ErrorFrame.encode(error))
    }

    /// The frame that carries the app's `reply` to message `id` (a dictionary, or bytes for a data
    /// message): an error frame if it is over the limit.
    func replyFrame(_ id: Int64, _ reply: MessageBody) -> [UInt8] {
        let (type, encoded): (FrameType, [UInt8]) =
            switch reply {
            case let .dictionary(dictionary): (.messageReply, PropertyListCodec.encode(dictionary))
            case let .data(bytes): (.messageDataReply, bytes)
            }
        if encoded.count > userInfoByteLimit {
            return Self.messageErrorFrame(id, WCError(.messageReplyFailed, "the reply is \(encoded.count) bytes, over the \(userInfoByteLimit)-byte limit"))
        }
        return SequencedFrame.frame(type, number: id, body: encoded)
    }

    mutating func handleMessageEvent(_ event: SessionEvent) -> [SessionAction] {
        switch event {
        case let .messageSendRequested(message, replyExpected, timeout, transportCanWake, completion):
            return sendRequested(
                message, replyExpected: replyExpected, timeoutMilliseconds: timeout, transportCanWake: transportCanWake, completion: completion)
        case let .messageFrameReceived(type, id, body):
            return frameReceived(type, id: id, body: body)
        case let .messageTimedOut(id, error):
            return finish(id, .failure(error))
        case let .messagesFailed(error):
            return messages.pending.sorted().flatMap { finish($0, .failure(error)) }
        case .messagesAwaitingLinkMaySend:
            return sendAwaiting()
        case let .linkAttemptFailed(error):
            guard !messages.awaitingLink.isEmpty else { return [] }
            let ids = messages.awaitingLink.keys.sorted()
            return [.log(LogLine(.info, "message.wake-failed", ("count", ids.count), ("code", error.code.rawValue), ("reason", error.message)))]
                + ids.flatMap { finish($0, .failure(error)) }
        default:
            return []
        }
    }

    /// Sent now while reachable; from a foreground watch app with the link down, held for the link while
    /// the transport wakes the phone; refused otherwise (`notReachable` 7007, and the session's own errors).
    private mutating func sendRequested(
        _ message: MessageBody, replyExpected: Bool, timeoutMilliseconds timeout: UInt64, transportCanWake: Bool,
        completion: @escaping MessageCompletion
    ) -> [SessionAction] {
        do throws(WCError) {
            try requireActivated()
            try requireCounterpartApp()
            // Reachable with no link (the phone in range, its app not running): the message waits for it.
            let direct = isReachable && isLinked
            guard direct || mayWakeCounterpart(transportCanWake: transportCanWake) else {
                throw WCError(
                    .notReachable,
                    role == .phone
                        ? "the watch is not reachable (link down, or the watch app is not in the foreground)"
                        : "the phone is not reachable (link down, or the watch app is not in the foreground)")
            }
            let payload: [UInt8]
            let type: FrameType
            switch message {
            case let .dictionary(dictionary):
                payload = try PropertyListCodec.encodeChecked(dictionary, limit: userInfoByteLimit, what: "message")
                type = replyExpected ? .message : .messageNoReply
            case let .data(bytes):
                guard bytes.count <= userInfoByteLimit else {
                    throw WCError(.payloadTooLarge, "the data message is \(bytes.count) bytes, more than the \(userInfoByteLimit)-byte limit")
                }
                payload = bytes
                type = replyExpected ? .messageData : .messageDataNoReply
            }
            let id = messages.nextID
            let frame = SequencedFrame.frame(type, number: id, body: payload)
            _ = messages.register(waitingForLink: direct ? nil : frame)
            let timeoutError =
                replyExpected
                ? WCError(.messageReplyTimedOut, "no reply within \(timeout) ms")
                : WCError(.deliveryFailed, "delivery not confirmed within \(timeout) ms")
            var actions: [SessionAction] = [
                .messageAccepted(id: id, timeoutMilliseconds: timeout, timeoutError: timeoutError, completion: completion)
            ]
            if direct {
                actions.append(.send(frame))
            } else {
                actions += [.log(LogLine(.info, "message.waking-counterpart", ("id", id), ("waiting", messages.awaitingLink.count))), .wakeCounterpart]
            }
            return actions
        } catch {
            return [.messageRefused(error, completion: completion)]
        }
    }

    private mutating func frameReceived(_ type: FrameType, id: Int64, body: [UInt8]) -> [SessionAction] {
        // An answer names a message this side sent (issue 51's rule): one never sent is forged. A late
        // answer to one sent (after its time-out) is honest, and ignored below.
        let answers: Set<FrameType> = [.messageDelivered, .messageDataReply, .messageReply, .messageError]
        if answers.contains(type), id < 1 || id >= messages.nextID, !trustsCounterpart {
            return [.protocolViolation("\(type) for message \(id), but only messages up to \(messages.nextID - 1) were sent")]
        }
        if appHeld, [.message, .messageNoReply, .messageData, .messageDataNoReply].contains(type) {
            // The app has not activated its session: nobody takes the message (Apple: the counterpart's
            // session must be active for a message to be delivered).
            messages.countReceived()
            return [.send(Self.messageErrorFrame(id, WCError(.notReachable, "the counterpart's app has not activated its session")))]
        }
        switch type {
        case .message, .messageNoReply:
            messages.countReceived()
            guard let message = try? PropertyListCodec.decodeDictionary(body) else {
                return [.send(Self.messageErrorFrame(id, WCError(.payloadUnsupportedTypes, "the message could not be decoded")))]
            }
            return [.deliverMessage(id: id, .dictionary(message), replyExpected: type == .message)]
        case .messageData, .messageDataNoReply:
            messages.countReceived()
            return [.deliverMessage(id: id, .data(body), replyExpected: type == .messageData)]
        case .messageDelivered:
            return finish(id, .success(.dictionary([:])))
        case .messageDataReply:
            return finish(id, .success(.data(body)))
        case .messageReply:
            guard let reply = try? PropertyListCodec.decodeDictionary(body) else {
                return finish(id, .failure(WCError(.messageReplyFailed, "the reply could not be decoded")))
            }
            return finish(id, .success(.dictionary(reply)))
        default:
            let error = (try? ErrorFrame.decode(body)) ?? WCError(.messageReplyFailed, "undecodable message error")
            return finish(id, .failure(error))
        }
    }

    /// Completes message `id` once; anything later for it (a reply after its time-out) is ignored.
    private mutating func finish(_ id: Int64, _ result: Result<MessageBody, WCError>) -> [SessionAction] {
        guard messages.finish(id) else { return [.log(LogLine(.debug, "message.late-reply-ignored", ("id", id)))] }
        return [.completeMessage(id: id, result)]
    }

    /// The link is up: send what waited for it, in the order it was sent — or fail it, if the watch app
    /// left the foreground meanwhile.
    private mutating func sendAwaiting() -> [SessionAction] {
        guard !messages.awaitingLink.isEmpty else { return [] }
        let ids = messages.awaitingLink.keys.sorted()
        guard isReachable else {
            return ids.flatMap { finish($0, .failure(WCError(.notReachable, "the watch app left the foreground before the phone was reached"))) }
        }
        var actions: [SessionAction] = ids.compactMap { messages.takeAwaiting($0).map(SessionAction.send) }
        actions.append(.log(LogLine(.info, "message.sent-after-wake", ("count", ids.count))))
        return actions
    }
}
