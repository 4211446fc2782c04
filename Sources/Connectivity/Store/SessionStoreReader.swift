import Storage

/// A device's session store read from outside its session — the CLI's `dump`, the scenario runner's
/// `expect outstanding`, the OS's status and watch-os's hello for an app not running — through the tables' own owners (`Outbox` per lane, the quarantine, the
/// contexts), never raw SQL in another module: what a lane holds is counted one way, by the code that
/// writes it, for every lane (issue 43: the scenario's own count forgot the complication lane and
/// counted cancelled transfers). Reads only; opened as any reader is (docs/guarantees.md, the reader rule).
package struct SessionStoreReader {
    private let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Transfers `lane` still holds for the counterpart: queued, not acknowledged, not cancelled.
    package func outstanding(_ lane: TransferLane) throws -> Int {
        try Outbox(database: database, lane: lane).count()
    }

    /// Every lane's outstanding transfers.
    package func outstandingTransfers() throws -> Int {
        try TransferLane.allCases.reduce(0) { try $0 + outstanding($1) }
    }

    /// Transfers this device's app has queued in every lane since the store was made (acknowledged,
    /// cancelled or outstanding): the last sequence number each lane assigned.
    package func queuedTransfers() throws -> Int {
        try TransferLane.allCases.reduce(0) { try $0 + Int(Outbox(database: database, lane: $1).lastAssignedSeq()) }
    }

    /// The first `limit` outstanding entries of `lane`, oldest first.
    package func outstandingEntries(_ lane: TransferLane, limit: Int) throws -> [OutboxEntry] {
        try Outbox(database: database, lane: lane).first(limit)
    }

    /// Whether this device's app is installed, as the session last recorded it (`app.installed`):
    /// installed unless it was deleted.
    package func appInstalled() -> Bool {
        ((try? SessionStore.stateValue(database, "app.installed")) ?? nil) != "0"
    }

    /// Whether the counterpart's app is installed, as it last said (`peer.installed`).
    package func counterpartAppInstalled() -> Bool {
        ((try? SessionStore.stateValue(database, "peer.installed")) ?? nil) == "1"
    }

    /// What this device's session would say when the link comes up (`Handshake(store:…)`), spoken for
    /// it while its app is not running: the app's version, installation and complication as last
    /// recorded, not active; a lane's cursor the store cannot give is 0. Nil while not paired.
    package func handshake(role: DeviceRole) -> (handshake: Handshake, pairing: Pairing)? {
        guard let pairing = try? SessionStore.pairing(database), let deviceID = try? SessionStore.deviceID(database, role: role) else { return nil }
        func flag(_ key: String, _ fallback: Bool) -> Bool { ((try? SessionStore.stateValue(database, key)) ?? nil).map { $0 == "1" } ?? fallback }
        let hello = try? Handshake(
            store: database, role: role, deviceID: deviceID, pairing: pairing,
            appVersion: ((try? SessionStore.stateValue(database, "app.version")) ?? nil) ?? "",
            appInstalled: flag("app.installed", true), appActive: false, complicationEnabled: flag("app.complication", false),
            unreadableCursorIsZero: true)
        return hello.map { ($0, pairing) }
    }

    /// The quarantined transfers, oldest first, at most `limit`.
    package func quarantined(limit: Int) throws -> [QuarantinedTransfer] {
        let query = try database.statement(
            """
            SELECT id, peer_device_id, seq, payload, reason, quarantined_at FROM cx_quarantine ORDER BY id LIMIT ?
            """)
        defer { query.reset() }
        try query.bind(limit, at: 1)
        return try query.rows { row in
            QuarantinedTransfer(
                id: row.int64(at: 0), peerDeviceID: row.string(at: 1), seq: row.int64(at: 2), payload: row.blob(at: 3), reason: row.string(at: 4),
                quarantinedAt: row.double(at: 5))
        }
    }

    /// Whether the context this device sent has not been acknowledged by the counterpart: content pending.
    package func sentContextPending() -> Bool {
        ((try? SessionStore.context(database, .sent)) ?? nil).map(ApplicationContextRules.needsSending) ?? false
    }

    /// The application context sent, and the one received, where there is one.
    package func contexts() throws -> [(direction: SessionStore.ContextDirection, context: SessionStore.StoredContext)] {
        try [SessionStore.ContextDirection.received, .sent].compactMap { direction in
            try SessionStore.context(database, direction).map { (direction, $0) }
        }
    }
}
