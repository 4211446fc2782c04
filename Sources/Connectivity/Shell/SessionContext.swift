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

    /// Sends the current context if the counterpart has not acknowledged this version.
    func sendApplicationContextIfNeeded() {
        guard let channel, core.maySend, let sent = try? SessionStore.context(database, .sent),
            ApplicationContextRules.needsSending(sent)
        else { return }
        channel.send(SequencedFrame.frame(.applicationContext, number: sent.version, body: sent.payload))
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

    func handleContextAcknowledgement(_ version: Int64) {
        guard let sent = ApplicationContextRules.acknowledged(try? SessionStore.context(database, .sent), version: version) else { return }
        do {
            try database.transaction { try SessionStore.setContext(database, .sent, sent) }
        } catch {
            logger.warning("context.ack-not-saved", ["error": "\(error)"])
        }
    }
}
