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

    /// The sent context once the counterpart acknowledged `version`: moved, nothing new (an old
    /// acknowledgement), or a violation when it names a version never sent (issue 51: an acknowledgement
    /// names only what was sent). `trusting`: the rule before (a test switch), capped at the version sent.
    static func acknowledged(_ sent: Stored?, version: Int64, trusting: Bool = false) -> Acknowledged<Stored> {
        guard var sent, version <= sent.version || trusting else {
            return .violation("contextAck for version \(version), but the context sent is version \(sent?.version ?? 0)")
        }
        guard version > sent.ackedVersion else { return .nothingNew }
        sent.ackedVersion = min(version, sent.version)
        return .moved(sent)
    }

    /// The highest version a context may carry on this link (issue 51: versions only move forward from
    /// what the sender sent): one past the highest the receiver knows the sender had — what its
    /// handshake announced (`Handshake.contextVersion`), what the receiver holds from it, what arrived on
    /// this link. An honest sender sends each new value as it sets it, one version up, while linked; a
    /// context further ahead (a forged or replayed one, a million up) would make every later real one
    /// look old, so it closes the link instead.
    static func limit(announced: Int64, held: Stored?, from peer: String, receivedOnLink: Int64) -> Int64 {
        let holds = held?.peerDeviceID == peer ? held?.version ?? 0 : 0
        return max(announced, holds, receivedOnLink) + 1
    }

    /// Why a received context's version breaks the rule, if it does: below 1, or past `limit`.
    static func violation(version: Int64, limit: Int64) -> String? {
        guard version < 1 || version > limit else { return nil }
        return "application context version \(version) arrived where at most \(limit) was possible"
    }

    /// The sender's side of the same rule: the highest version it may send on this link without the
    /// receiver refusing it — one past its own announcement, what the receiver said it holds, and what it
    /// sent on the link. A value set twice while the handshake was under way is past it: the link is
    /// made again rather than send it (its next handshake announces it).
    static func sendLimit(announced: Int64, peerHolds: Int64, sentOnLink: Int64) -> Int64 {
        max(announced, peerHolds, sentOnLink) + 1
    }

    /// The sent context moved past `peerHolds` when the counterpart holds a version from this side that
    /// this side never set (its store rolled back, or a forged context taken before the rule): the
    /// current value goes again under the next version, so the counterpart takes it and every later one.
    /// Nil when nothing needs to move.
    static func healed(_ sent: Stored?, peerHolds: Int64) -> Stored? {
        guard var sent, peerHolds > sent.version else { return nil }
        sent.version = peerHolds + 1
        return sent
    }
}
