import Posix
import Storage

// MARK: - No acknowledgement from a store that is no longer there

extension Session {
    /// Whether an acknowledgement may leave now. An acknowledgement says "durable in my store"; a store
    /// file unlinked (or renamed over) under the running daemon still takes writes, but they go to a file
    /// nobody will ever open again. So before every acknowledgement — an `ack` frame, or the resume point
    /// of a handshake, which finishes everything up to it just the same — the store's link count is
    /// checked (`Database.isStillLinked`, one `fstat`). When it fails, nothing is acknowledged, the
    /// database reports it (the daemon exits non-zero) and the link is closed.
    ///
    /// A store found damaged (`StoreHealth`, by the background check or by SQLite) acknowledges nothing
    /// either: the sender keeps what it has not heard back about.
    func mayAcknowledge(_ source: LinkChannel? = nil) -> Bool {
        if database.health.isDamaged {
            try? database.requireHealthy("acknowledging")  // reports it, once
            source?.close(error: WCError(.genericError, "the \(role.rawValue)'s store is damaged"), reason: "store damaged")
            return false
        }
        guard database.isStillLinked else {
            database.reportUnlinked(during: "acknowledging")
            source?.close(error: WCError(.genericError, "the \(role.rawValue)'s store is gone"), reason: "store unlinked")
            return false
        }
        return true
    }

    /// Throws instead of answering a handshake whose resume point would be an acknowledgement from a
    /// store that is gone.
    func requireStoreForAcknowledgement() throws {
        guard mayAcknowledge() else { throw WCError(.genericError, "the \(role.rawValue)'s store file was unlinked or found damaged") }
    }

    /// Binds the link's listening socket afresh if its file was removed (the phone); nothing otherwise.
    package func ensureListening() throws {
        try (transport as? UnixLinkListener)?.ensureBound()
    }
}
