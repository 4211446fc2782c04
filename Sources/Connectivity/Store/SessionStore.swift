import Posix
import Storage

/// Which device a session runs on.
package enum DeviceRole: String, Sendable, CaseIterable {
    case phone
    case watch

    package var counterpart: DeviceRole { self == .phone ? .watch : .phone }
}

/// What `runway pair` records in both homes.
package struct Pairing: Equatable, Sendable {
    package var pairingID: String
    package var phoneDeviceID: String
    package var watchDeviceID: String
    /// Where the phone's link socket is: the watch connects there.
    package var phoneLinkSocket: String
    package var pairedAt: Double

    package init(pairingID: String, phoneDeviceID: String, watchDeviceID: String, phoneLinkSocket: String, pairedAt: Double) {
        self.pairingID = pairingID
        self.phoneDeviceID = phoneDeviceID
        self.watchDeviceID = watchDeviceID
        self.phoneLinkSocket = phoneLinkSocket
        self.pairedAt = pairedAt
    }

    package func counterpartID(of role: DeviceRole) -> String {
        role == .phone ? watchDeviceID : phoneDeviceID
    }
}

/// The session's tables in a device's store: identity, pairing, the outbox of queued transfers and
/// the receive cursors that make resends harmless. The app's own tables live in the same database, so a
/// received transfer and what the app saved from it commit together.
package enum SessionStore {
    /// The schema, in order; the lanes added after the first bring theirs (`OutboxSQL.laneMigrations`).
    package static let migrations: [Migration] = firstMigrations + OutboxSQL.laneMigrations + [FileInbox.migration, PairedWatches.migration]

    private static let firstMigrations: [Migration] = [
        Migration(
            "connectivity.1",
            """
            CREATE TABLE cx_identity (
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            ) STRICT;
            CREATE TABLE cx_pairing (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                pairing_id TEXT NOT NULL,
                phone_device_id TEXT NOT NULL,
                watch_device_id TEXT NOT NULL,
                phone_link_socket TEXT NOT NULL,
                paired_at REAL NOT NULL
            ) STRICT;
            -- Queued transfers, sent in seq order, deleted once the counterpart acknowledges them.
            -- AUTOINCREMENT: a sequence number is never reused, even after the newest row is deleted.
            CREATE TABLE cx_outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                kind INTEGER NOT NULL,
                payload BLOB NOT NULL,
                created_at REAL NOT NULL
            ) STRICT;
            -- The highest sequence number durably received from each counterpart device.
            CREATE TABLE cx_receive_cursor (
                peer_device_id TEXT PRIMARY KEY NOT NULL,
                last_seq INTEGER NOT NULL
            ) STRICT;
            """),
        Migration(
            "connectivity.2",
            """
            -- The outbox's watermarks: everything up to acked_seq is acknowledged by the counterpart
            -- (logically gone from the outbox), everything up to reported_seq has been reported to the
            -- app (didFinish). Acknowledging is one small update, not a delete per transfer: the rows
            -- are removed in bulk later (all at once when the outbox empties).
            CREATE TABLE cx_outbox_state (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                acked_seq INTEGER NOT NULL,
                reported_seq INTEGER NOT NULL
            ) STRICT;
            INSERT INTO cx_outbox_state (singleton, acked_seq, reported_seq) VALUES (1, 0, 0);
            -- Transfers cancelled before delivery: never reported as finished.
            CREATE TABLE cx_cancelled (seq INTEGER PRIMARY KEY) STRICT;
            -- The application context: the latest this side set ('sent', with the highest version the
            -- counterpart acknowledged) and the latest it received ('received'). Latest value only.
            CREATE TABLE cx_context (
                direction TEXT PRIMARY KEY CHECK (direction IN ('sent', 'received')),
                peer_device_id TEXT NOT NULL DEFAULT '',
                version INTEGER NOT NULL,
                payload BLOB NOT NULL,
                acked_version INTEGER NOT NULL DEFAULT 0,
                updated_at REAL NOT NULL
            ) STRICT;
            """),
        quarantineMigration,
    ]

    // MARK: - Identity

    /// This store's device id, created on first use.
    package static func deviceID(_ database: Database, role: DeviceRole) throws -> String {
        if let existing = try identityValue(database, "device_id") { return existing }
        let id = Identifier.uuid()
        try database.transaction {
            try setIdentityValue(database, "device_id", id)
            try setIdentityValue(database, "role", role.rawValue)
        }
        return id
    }

    /// This store's device id if it has one (read only: `deviceID` creates one).
    package static func recordedDeviceID(_ database: Database) throws -> String? {
        try identityValue(database, "device_id")
    }

    /// The role recorded in this store, if any: a phone home is not a watch home.
    package static func recordedRole(_ database: Database) throws -> DeviceRole? {
        try identityValue(database, "role").flatMap(DeviceRole.init(rawValue:))
    }

    /// Device-state values kept across restarts (this app's state, the counterpart's last known state).
    package static func stateValue(_ database: Database, _ key: String) throws -> String? {
        try identityValue(database, "state." + key)
    }

    package static func setStateValue(_ database: Database, _ key: String, _ value: String) throws {
        try setIdentityValue(database, "state." + key, value)
    }

    static func identityValue(_ database: Database, _ key: String) throws -> String? {
        let query = try database.statement(literal: "SELECT value FROM cx_identity WHERE key = ?")
        defer { query.reset() }
        try query.bind(key, at: 1)
        return try query.step() ? query.string(at: 0) : nil
    }

    static func deleteIdentityValue(_ database: Database, _ key: String) throws {
        let delete = try database.statement(literal: "DELETE FROM cx_identity WHERE key = ?")
        try delete.bind(key, at: 1)
        try delete.run()
    }

    static func setIdentityValue(_ database: Database, _ key: String, _ value: String) throws {
        let update = try database.statement(literal: "INSERT OR REPLACE INTO cx_identity (key, value) VALUES (?, ?)")
        try update.bind(key, at: 1)
        try update.bind(value, at: 2)
        try update.run()
    }

    // MARK: - Pairing

    package static func pairing(_ database: Database) throws -> Pairing? {
        let query = try database.statement(
            literal: """
                SELECT pairing_id, phone_device_id, watch_device_id, phone_link_socket, paired_at FROM cx_pairing
                """)
        defer { query.reset() }
        guard try query.step() else { return nil }
        return Pairing(
            pairingID: query.string(at: 0), phoneDeviceID: query.string(at: 1), watchDeviceID: query.string(at: 2),
            phoneLinkSocket: query.string(at: 3), pairedAt: query.double(at: 4))
    }

    package static func setPairing(_ database: Database, _ pairing: Pairing) throws {
        try database.transaction { try writePairing(database, pairing) }
    }

    /// `setPairing` inside the caller's transaction.
    static func writePairing(_ database: Database, _ pairing: Pairing) throws {
        let update = try database.statement(
            literal: """
                INSERT OR REPLACE INTO cx_pairing
                    (singleton, pairing_id, phone_device_id, watch_device_id, phone_link_socket, paired_at)
                VALUES (1, ?, ?, ?, ?, ?)
                """)
        try update.bind(pairing.pairingID, at: 1)
        try update.bind(pairing.phoneDeviceID, at: 2)
        try update.bind(pairing.watchDeviceID, at: 3)
        try update.bind(pairing.phoneLinkSocket, at: 4)
        try update.bind(pairing.pairedAt, at: 5)
        try update.run()
    }

    // MARK: - Receive cursor

    /// The highest sequence number of `lane` durably received from `peer` (0 if none).
    package static func receiveCursor(_ database: Database, peer: String, lane: TransferLane = .userInfo) throws -> Int64 {
        let query =
            lane == .userInfo
            ? try database.statement(literal: "SELECT last_seq FROM cx_receive_cursor WHERE peer_device_id = ?")
            : try database.statement(literal: "SELECT last_seq FROM cx_lane_cursor WHERE peer_device_id = ? AND lane = ?")
        defer { query.reset() }
        try query.bind(peer, at: 1)
        if lane != .userInfo { try query.bind(lane.rawValue, at: 2) }
        return try query.step() ? query.int64(at: 0) : 0
    }

    /// Advances the cursor; call inside the transaction that stores what was received.
    static func setReceiveCursor(_ database: Database, peer: String, seq: Int64, lane: TransferLane = .userInfo) throws {
        // Outside the transaction that stored the transfers, this would mark them received alone.
        try database.requireTransaction("advance receive cursor")
        let update =
            lane == .userInfo
            ? try database.statement(
                literal: """
                    INSERT INTO cx_receive_cursor (peer_device_id, last_seq) VALUES (?, ?)
                    ON CONFLICT (peer_device_id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)
                    """)
            : try database.statement(
                literal: """
                    INSERT INTO cx_lane_cursor (peer_device_id, last_seq, lane) VALUES (?, ?, ?)
                    ON CONFLICT (peer_device_id, lane) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)
                    """)
        try update.bind(peer, at: 1)
        try update.bind(seq, at: 2)
        if lane != .userInfo { try update.bind(lane.rawValue, at: 3) }
        try update.run()
    }

    // MARK: - The app deleted

    /// What the system held for an app that is deleted (`runway phone app uninstall`): its queued
    /// transfers in every lane (numbers never reused), both application contexts, the quarantine, files
    /// half-received, the complication budget — one transaction. The pairing, the device's identity and
    /// the receive cursors stay: they are the device's (a transfer already delivered is still not
    /// delivered twice). The bytes of files (`FileQueue`) are the caller's to remove. `state` values are
    /// set in the same transaction (the watch's `app.installed`: gone with its data, or not at all).
    package static func forgetApp(_ database: Database, settingState state: [(key: String, value: String)] = []) throws {
        try database.transaction {
            for lane in TransferLane.allCases { try Outbox(database: database, lane: lane).forgetEverything() }
            try PairedWatches.forgetParked(database)
            try database.execute("DELETE FROM cx_context; DELETE FROM cx_quarantine; DELETE FROM cx_file_inbox")
            try database.execute("DELETE FROM cx_identity WHERE key IN ('state.complication.day', 'state.complication.used')")
            for (key, value) in state { try setStateValue(database, key, value) }
        }
    }

    // MARK: - Application context

    package enum ContextDirection: String, Sendable { case sent, received }

    package struct StoredContext: Sendable, Equatable {
        package var peerDeviceID: String
        package var version: Int64
        package var payload: [UInt8]
        package var ackedVersion: Int64
    }

    package static func context(_ database: Database, _ direction: ContextDirection) throws -> StoredContext? {
        let query = try database.statement(
            "SELECT peer_device_id, version, payload, acked_version FROM cx_context WHERE direction = ?")
        defer { query.reset() }
        try query.bind(direction.rawValue, at: 1)
        guard try query.step() else { return nil }
        return StoredContext(
            peerDeviceID: query.string(at: 0), version: query.int64(at: 1),
            payload: query.blob(at: 2), ackedVersion: query.int64(at: 3))
    }

    static func setContext(
        _ database: Database, _ direction: ContextDirection, _ context: StoredContext,
        now: Double = wallClockSeconds()
    ) throws {
        let update = try database.statement(
            literal: """
                INSERT OR REPLACE INTO cx_context (direction, peer_device_id, version, payload, acked_version, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """)
        try update.bind(direction.rawValue, at: 1)
        try update.bind(context.peerDeviceID, at: 2)
        try update.bind(context.version, at: 3)
        try update.bind(blob: context.payload, at: 4)
        try update.bind(context.ackedVersion, at: 5)
        try update.bind(now, at: 6)
        try update.run()
    }
}
