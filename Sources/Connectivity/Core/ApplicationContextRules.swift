/// The application context's rules, pure: the session's shell reads and writes `cx_context`
/// (`SessionContext.swift`) and asks these what to do — only the newest value, never delivered twice,
/// finished by the counterpart's acknowledgement of its version. Unit tests: `ApplicationContextRulesTests`.
enum ApplicationContextRules {
    typealias Stored = SessionStore.StoredContext

    /// What the sender stores for a new value: the next version, keeping what was acknowledged; nil
    /// when `payload` is the current value (nothing to deliver, the version stays).
    static func updated(_ current: Stored?, payload: [UInt8], peer: String) -> Stored? {
        if let current, current.payload == payload { return nil }
        return Stored(peerDeviceID: peer, version: (current?.version ?? 0) + 1, payload: payload, ackedVersion: current?.ackedVersion ?? 0)
    }

    /// Whether the sender's context must go on the link (its version is not acknowledged).
    static func needsSending(_ sent: Stored?) -> Bool {
        guard let sent else { return false }
        return sent.version > sent.ackedVersion
    }

    /// What a received context does: `store` it if it is newer than the one kept (or comes from another
    /// device), and `deliver` it to the app only if its content changed. Either way it is acknowledged
    /// (once stored, if it is stored).
    static func received(version: Int64, payload: [UInt8], from peer: String, stored: Stored?) -> (store: Bool, deliver: Bool) {
        guard let stored, stored.peerDeviceID == peer else { return (true, true) }
        guard version > stored.version else { return (false, false) }
        return (true, stored.payload != payload)
    }

    /// The sent context once the counterpart acknowledged `version` (never past what was sent); nil if
    /// the acknowledgement changes nothing.
    static func acknowledged(_ sent: Stored?, version: Int64) -> Stored? {
        guard var sent, version > sent.ackedVersion else { return nil }
        sent.ackedVersion = min(version, sent.version)
        return sent
    }
}
