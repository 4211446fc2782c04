import Posix
import Storage
import PropertyLists

// MARK: - Application context: the latest value only, durable on both sides

extension Session {
    /// Replaces the application context the counterpart sees (`updateApplicationContext`). Committed
    /// before this returns; delivered when the link is up, only the newest value, never twice. Setting
    /// a context identical to the current one delivers nothing. Returns the context's version.
    @discardableResult
    package func updateApplicationContext(_ context: UserInfo) throws -> Int64 {
        try requireActivated()
        try requireCounterpartApp()
        let payload = try encodeChecked(context, limit: configuration.contextByteLimit, what: "application context")
        let current = try SessionStore.context(database, .sent)
        guard let updated = ApplicationContextRules.updated(current, payload: payload, peer: pairing?.counterpartID(of: role) ?? "") else {
            let version = current?.version ?? 0
            logger.info("context.unchanged", ["version": version])
            return version
        }
        try database.transaction { try SessionStore.setContext(database, .sent, updated) }
        logger.info("context.updated", ["version": updated.version, "bytes": payload.count])
        sendApplicationContextIfNeeded()
        return updated.version
    }

    /// Whether the context this side set has not been acknowledged by the counterpart yet (content pending).
    package var sentApplicationContextPending: Bool {
        ((try? SessionStore.context(database, .sent)) ?? nil).map(ApplicationContextRules.needsSending) ?? false
    }

    /// The context this side last set (`applicationContext`).
    package var applicationContext: UserInfo { storedContext(.sent) }

    /// The context last received from the counterpart (`receivedApplicationContext`); kept across restarts.
    package var receivedApplicationContext: UserInfo { storedContext(.received) }

    private func storedContext(_ direction: SessionStore.ContextDirection) -> UserInfo {
        guard let stored = try? SessionStore.context(database, direction),
            let context = try? PropertyListCodec.decodeDictionary(stored.payload)
        else { return [:] }
        return context
    }

    /// Sends the current context if the counterpart has not acknowledged this version — never past
    /// what the receiver can take on this link (`ApplicationContextRules.sendLimit`).
    func sendApplicationContextIfNeeded() {
        guard let channel, core.maySend, let sent = try? SessionStore.context(database, .sent),
            ApplicationContextRules.needsSending(sent)
        else { return }
        // The realistic system sends it "when the opportunity arises" (`SystemTiming`): the wait starts
        // with the first version not yet sent, and what goes when it ends is the latest version.
        let due = systemDue(.applicationContext, id: contextDeferralID ?? sent.version)
        if contextDeferralID == nil, systemTiming.realistic { contextDeferralID = sent.version }
        if due > loop.nowNanoseconds { return pumpAgain(at: due) }
        if let waited = contextDeferralID { systemSent(.applicationContext, id: waited) }
        contextDeferralID = nil
        let limit = ApplicationContextRules.sendLimit(
            announced: core.contextAnnounced, peerHolds: peer?.contextHeld ?? 0, sentOnLink: core.contextSentOnLink)
        if sent.version > limit, !core.trustsCounterpart {
            // Set more than once while the handshake was under way: said in the next one.
            logger.info("context.after-handshake", ["version": sent.version, "limit": limit, "action": "the link is made again"])
            channel.close(error: nil, reason: "the application context changed during the handshake")
            return
        }
        core.contextSentOnLink = max(core.contextSentOnLink, sent.version)
        channel.send(SequencedFrame.frame(.applicationContext, number: sent.version, body: sent.payload))
    }

    /// At a new link: a counterpart holding a context version from this side that this side never set
    /// gets the current value again under the version after it (`ApplicationContextRules.healed`).
    func healContextVersion(_ handshake: Handshake) {
        guard !core.trustsCounterpart, let sent = try? SessionStore.context(database, .sent), sent.peerDeviceID == handshake.deviceID,
            let healed = ApplicationContextRules.healed(sent, peerHolds: handshake.contextHeld)
        else { return }
        do {
            try database.transaction { try SessionStore.setContext(database, .sent, healed) }
            logger.warning(
                "context.version-behind-peer", ["peerHolds": handshake.contextHeld, "ours": sent.version, "now": healed.version])
        } catch {
            logger.warning("context.version-not-saved", ["error": "\(error)"])
        }
    }

    func receiveApplicationContext(_ payload: [UInt8], from source: LinkChannel) {
        guard let peer, let (version, body) = try? SequencedFrame.split(payload) else {
            protocolViolation(source, "malformed applicationContext frame")
            return
        }
        let bytes = Array(body)
        guard let context = try? PropertyListCodec.decodeDictionary(bytes) else {
            protocolViolation(source, "undecodable application context")
            return
        }
        let stored = try? SessionStore.context(database, .received)
        let limit = ApplicationContextRules.limit(
            announced: peer.contextVersion, held: stored, from: peer.deviceID, receivedOnLink: core.contextReceivedOnLink)
        if let why = ApplicationContextRules.violation(version: version, limit: limit), !core.trustsCounterpart {
            protocolViolation(source, why + " (the \(role.counterpart.rawValue) said it had version \(peer.contextVersion))")
            return
        }
        core.contextReceivedOnLink = max(core.contextReceivedOnLink, version)
        let decision = ApplicationContextRules.received(version: version, payload: bytes, from: peer.deviceID, stored: stored)
        // The context the counterpart's handshake said was pending is here (kept, or the one already kept).
        core.contextPending = false
        if decision.store {
            do {
                try database.transaction {
                    try SessionStore.setContext(
                        database, .received, .init(peerDeviceID: peer.deviceID, version: version, payload: bytes, ackedVersion: version))
                }
            } catch {
                logger.error("context.save-failed", ["version": version, "error": "\(error)"])
                return  // not acknowledged: the counterpart sends it again on the next link
            }
            if decision.deliver { emit(.didReceiveApplicationContext(context)) }
            logger.info("context.received", ["version": version, "delivered": decision.deliver])
        }
        source.send(SequencedFrame.frame(.contextAck, number: version))
    }

    func handleContextAcknowledgement(_ version: Int64, from source: LinkChannel) {
        let sent: SessionStore.StoredContext
        switch ApplicationContextRules.acknowledged(try? SessionStore.context(database, .sent), version: version, trusting: core.trustsCounterpart) {
        case .nothingNew: return
        case let .violation(why): return protocolViolation(source, why)
        case let .moved(acknowledged): sent = acknowledged
        }
        do {
            try database.transaction { try SessionStore.setContext(database, .sent, sent) }
        } catch {
            logger.warning("context.ack-not-saved", ["error": "\(error)"])
        }
    }
}
