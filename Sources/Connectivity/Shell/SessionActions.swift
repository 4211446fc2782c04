import Posix
import Storage
import PropertyLists

// MARK: - The shell: events into the core, its actions carried out

extension Session {
    /// Feeds `event` to the core and carries out what it asks, in order.
    func handle(_ event: SessionEvent) {
        var actions = core.handle(event)
        guard core.announcementAwaitsLink else { return apply(actions) }
        actions.removeAll(where: SessionCore.isStateChangeNotice)
        apply(actions)
        // The first attempt ended without a link: what is known now is what activation reports.
        switch event {
        case .linkClosed, .linkAttemptFailed, .counterpartStateOutsideLink, .counterpartOutOfRange: handle(.firstLinkSettled)
        default: break
        }
    }

    func apply(_ actions: [SessionAction]) {
        for action in actions { apply(action) }
    }

    private func apply(_ action: SessionAction) {
        switch action {
        case .completeActivationSoon:
            loop.deferToEndOfIteration { [weak self] in self?.completeActivation() }
        case let .tell(callback):
            emit(callback)
        case let .log(line):
            logger.log(line.level, line.event, fields: line.fields.map { ($0.key, $0.value) })
        case let .send(frames):
            channel?.send(frames)
        case let .closeLink(error, reason):
            channel?.close(error: error, reason: reason)
        case let .protocolViolation(why):
            if let channel { protocolViolation(channel, why) }
        case .dropLink:
            channel = nil
        case let .announceLink(handshake):
            onLinkEstablished?(handshake)
        case let .saveCounterpartState(presence, version):
            saveCounterpartState(presence, version: version)
        case .sendApplicationContextIfNeeded:
            sendApplicationContextIfNeeded()
        case .pump:
            pump()
        case .restartLinkIfHeld:
            guard heldFrames > 0 else { return }
            heldFrames = 0
            channel?.close(error: nil, reason: "the app activated its session: the counterpart resends what waited for it")
        case let .reportFinishedTransfers(replayed):
            reportFinished(replayed: replayed)
        case let .releaseOutbox(upTo, lane):
            do {
                try outboxes[lane].acknowledge(upTo: upTo)
            } catch {
                // Harmless: the transfers are resent and the receiver acknowledges them again.
                logger.warning("outbox.ack-not-saved", ["upTo": upTo, "error": "\(error)"])
            }
        case let .then(event):
            handle(event)
        case let .later(event):
            loop.deferToEndOfIteration { [weak self] in self?.handle(event) }
        case let .messageAccepted(id, timeout, timeoutError, completion):
            let timer = loop.schedule(afterMilliseconds: timeout) { [weak self] in
                self?.handle(.messageTimedOut(id: id, error: timeoutError))
            }
            messageCompletions[id] = PendingMessage(timer: timer, completion: completion)
        case let .messageRefused(error, completion):
            loop.deferToEndOfIteration { completion(.failure(error)) }
        case let .deliverMessage(id, message, replyExpected):
            deliver(message, id: id, replyExpected: replyExpected)
        case let .completeMessage(id, result):
            guard let pending = messageCompletions.removeValue(forKey: id) else { return }
            loop.cancel(pending.timer)
            pending.completion(result)
        case .wakeCounterpart:
            transport?.wakeCounterpart()
        case let .acknowledge(upTo, lane):
            if let channel, mayAcknowledge(channel) { channel.send(SequencedFrame.frame(lane.spec.ack, number: upTo)) }
        case let .crashPoint(name):
            CrashPoint.hit(name)
        }
    }

    /// A message to the app. With a reply handler: the reply goes back on the link it came by, once,
    /// and only while that link is the session's; a data message's reply is data. Without one: the
    /// sender hears it was delivered once the app's callback returned. Either way, an app whose delegate
    /// lacks the method for it (the handler answers `.rejected`) fails the send at once with
    /// `deliveryFailed` (7014), and the session says so in its log, as Apple's does.
    private func deliver(_ message: MessageBody, id: Int64, replyExpected: Bool) {
        guard let source = channel else { return }
        var replied = false
        let answer: (MessageBody) -> Void = { [weak self, weak source] reply in
            guard let self, let source, !replied, self.channel === source else { return }
            replied = true
            source.send(self.core.replyFrame(id, reply))
        }
        let callback: SessionCallback
        switch (message, replyExpected) {
        case let (.dictionary(dictionary), true): callback = .didReceiveMessage(dictionary, reply: { answer(.dictionary($0)) })
        case let (.dictionary(dictionary), false): callback = .didReceiveMessage(dictionary, reply: nil)
        case let (.data(bytes), true): callback = .didReceiveMessageData(bytes, reply: { answer(.data($0)) })
        case let (.data(bytes), false): callback = .didReceiveMessageData(bytes, reply: nil)
        }
        let outcome: ReceiveOutcome?
        do {
            outcome = try handler?.handle(callback, from: self)
        } catch {
            logger.warning("handler.threw", ["error": "\(error)"])
            outcome = nil
        }
        guard channel === source else { return }
        if case let .rejected(reason)? = outcome {
            replied = true
            source.send(SessionCore.messageErrorFrame(id, WCError(.deliveryFailed, reason)))
            return
        }
        if !replyExpected { source.send(SequencedFrame.frame(.messageDelivered, number: id)) }
    }

    /// The app's delegate lacks `method` for what arrived: one line, as Apple's session logs it.
    package func delegateDoesNotImplement(_ method: String, _ consequence: String) {
        logger.warning("delegate.not-implemented", ["method": method, "consequence": consequence])
    }

    /// Tells the app of a callback that asks nothing back; an error its handler throws is logged.
    func emit(_ callback: SessionCallback) {
        // An app that has not activated its session hears nothing of it (`appHeld`).
        guard !core.appHeld else { return }
        do {
            _ = try handler?.handle(callback, from: self)
        } catch {
            logger.warning("handler.threw", ["error": "\(error)"])
        }
    }

    /// The counterpart app's state, kept across restarts (a failed save only costs a stale value).
    private func saveCounterpartState(_ presence: AppPresence, version: String?) {
        do {
            try database.transaction {
                try SessionStore.setStateValue(database, "peer.installed", presence.installed ? "1" : "0")
                try SessionStore.setStateValue(database, "peer.active", presence.active ? "1" : "0")
                try SessionStore.setStateValue(database, "peer.complication", presence.complicationEnabled ? "1" : "0")
                if let version { try SessionStore.setStateValue(database, "peer.version", version) }
            }
        } catch {
            logger.warning("peer.state-not-saved", ["error": "\(error)"])
        }
    }
}
