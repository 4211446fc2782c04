import Posix
import Storage

// MARK: - Application context: the latest value only, durable on both sides

extension Session {
    /// Replaces the application context the counterpart sees (`updateApplicationContext`). Committed
    /// before this returns; delivered when the link is up, only the newest value, never twice. Setting
    /// a context identical to the current one delivers nothing. Returns the context's version.
    @discardableResult
    public func updateApplicationContext(_ context: UserInfo) throws -> Int64 {
        try requireActivated()
        try requireCounterpartApp()
        let payload = try encodeChecked(context, limit: configuration.contextByteLimit, what: "application context")
        let current = try SessionStore.context(database, .sent)
        if let current, current.payload == payload {
            logger.info("context.unchanged", ["version": current.version])
            return current.version
        }
        let updated = SessionStore.StoredContext(
            peerDeviceID: pairing?.counterpartID(of: role) ?? "", version: (current?.version ?? 0) + 1,
            payload: payload, ackedVersion: current?.ackedVersion ?? 0)
        try database.transaction { try SessionStore.setContext(database, .sent, updated) }
        logger.info("context.updated", ["version": updated.version, "bytes": payload.count])
        sendApplicationContextIfNeeded()
        return updated.version
    }

    /// The context this side last set (`applicationContext`).
    public var applicationContext: UserInfo { storedContext(.sent) }

    /// The context last received from the counterpart (`receivedApplicationContext`); kept across restarts.
    public var receivedApplicationContext: UserInfo { storedContext(.received) }

    private func storedContext(_ direction: SessionStore.ContextDirection) -> UserInfo {
        guard let stored = try? SessionStore.context(database, direction),
            let context = try? PropertyListCodec.decodeDictionary(stored.payload)
        else { return [:] }
        return context
    }

    /// Sends the current context if the counterpart has not acknowledged this version.
    func sendApplicationContextIfNeeded() {
        guard let channel, activationState == .activated,
            let sent = try? SessionStore.context(database, .sent), sent.version > sent.ackedVersion
        else { return }
        if role == .phone && !counterpartAppInstalled { return }
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
        let isNewer = stored == nil || stored!.peerDeviceID != peer.deviceID || version > stored!.version
        if isNewer {
            let identical = stored?.payload == bytes && stored?.peerDeviceID == peer.deviceID
            do {
                try database.transaction {
                    try SessionStore.setContext(
                        database, .received,
                        .init(
                            peerDeviceID: peer.deviceID, version: version, payload: bytes, ackedVersion: version))
                }
            } catch {
                logger.error("context.save-failed", ["version": version, "error": "\(error)"])
                return  // not acknowledged: the counterpart sends it again on the next link
            }
            if !identical { delegate?.session(self, didReceiveApplicationContext: context) }
            logger.info("context.received", ["version": version, "delivered": !identical])
        }
        source.send(SequencedFrame.frame(.contextAck, number: version))
    }

    func handleContextAcknowledgement(_ version: Int64) {
        guard var sent = try? SessionStore.context(database, .sent), version > sent.ackedVersion else { return }
        sent.ackedVersion = min(version, sent.version)
        do {
            try database.transaction { try SessionStore.setContext(database, .sent, sent) }
        } catch {
            logger.warning("context.ack-not-saved", ["error": "\(error)"])
        }
    }
}
