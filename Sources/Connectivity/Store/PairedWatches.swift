import Posix
import Storage

/// One watch paired with the phone (`runway pair`): the phone may have several; one at a time is active,
/// and its pairing is the one in `cx_pairing`, the pairing the session talks by.
package struct PairedWatch: Equatable, Sendable {
    package var watchDeviceID: String
    package var pairingID: String
    /// The watch's home, as `runway pair` was given it ('' for the watch of a home paired before there
    /// could be several, until it is paired again).
    package var watchHome: String
    package var pairedAt: Double
    // Made only here, from the store's rows: the compiler's memberwise init.
}

/// The phone's watches, and Apple's switch between them ("Supporting Quick Watch Switching").
///
/// The session's engine talks to one watch: the active one, whose queues are the live tables (each
/// lane's `cx_…outbox`, its watermarks and cancellations, `cx_context`, the counterpart's `peer.*` state).
/// The other watches' are set aside, each under its device id, in the `cx_parked_…` tables, with each
/// lane's own last sequence number: a switch moves the old watch's out and the new one's in, in one
/// transaction. So a transfer queued for one watch is only ever sent to that watch, each watch's sequence
/// numbers run on from where its own stopped (its receive cursor on the watch expects them), and nothing
/// in the engine needs to know there are several. The receive cursors and half-received files are already
/// kept per sending device (`cx_receive_cursor`, `cx_lane_cursor`, `cx_file_inbox`).
package enum PairedWatches {
    static let migration = Migration(
        "connectivity.6",
        """
        -- The phone's paired watches (several, one active: its pairing is cx_pairing's). A phone home
        -- paired before there could be several gets its one watch here.
        CREATE TABLE cx_paired_watch (
            watch_device_id TEXT PRIMARY KEY NOT NULL,
            pairing_id TEXT NOT NULL,
            watch_home TEXT NOT NULL,
            paired_at REAL NOT NULL
        ) STRICT;
        INSERT INTO cx_paired_watch (watch_device_id, pairing_id, watch_home, paired_at)
            SELECT watch_device_id, pairing_id, '', paired_at FROM cx_pairing
            WHERE (SELECT value FROM cx_identity WHERE key = 'role') = 'phone';
        -- An inactive watch's queues, set aside until it is active again: each lane's rows, watermarks,
        -- last sequence number and cancellations, the application contexts, the counterpart's state.
        CREATE TABLE cx_parked_outbox (
            watch_device_id TEXT NOT NULL,
            lane TEXT NOT NULL,
            seq INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            payload BLOB NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (watch_device_id, lane, seq)
        ) STRICT;
        CREATE TABLE cx_parked_lane (
            watch_device_id TEXT NOT NULL,
            lane TEXT NOT NULL,
            last_assigned INTEGER NOT NULL,
            acked_seq INTEGER NOT NULL,
            reported_seq INTEGER NOT NULL,
            PRIMARY KEY (watch_device_id, lane)
        ) STRICT;
        CREATE TABLE cx_parked_cancelled (
            watch_device_id TEXT NOT NULL,
            lane TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (watch_device_id, lane, seq)
        ) STRICT;
        CREATE TABLE cx_parked_context (
            watch_device_id TEXT NOT NULL,
            direction TEXT NOT NULL,
            peer_device_id TEXT NOT NULL,
            version INTEGER NOT NULL,
            payload BLOB NOT NULL,
            acked_version INTEGER NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (watch_device_id, direction)
        ) STRICT;
        CREATE TABLE cx_parked_state (
            watch_device_id TEXT NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (watch_device_id, key)
        ) STRICT;
        """)

    /// The counterpart's state the session keeps per watch (`Session.loadDeviceState`).
    static let peerStateKeys = ["state.peer.installed", "state.peer.active", "state.peer.complication", "state.peer.version"]

    /// Each lane's tables: (lane, outbox, its state, its cancellations).
    static let laneTables: [(TransferLane, String, String, String)] = TransferLane.allCases.map { lane in
        let tables = LaneSpec.table[lane].tables
        return (lane, tables.outbox, tables.state, tables.cancelled)
    }

    // MARK: - Reading

    /// Every watch paired with this phone, in the order they were paired.
    package static func all(_ database: Database) throws -> [PairedWatch] {
        let query = try database.statement(
            literal: "SELECT watch_device_id, pairing_id, watch_home, paired_at FROM cx_paired_watch ORDER BY paired_at, watch_device_id")
        defer { query.reset() }
        return try query.rows { row in
            PairedWatch(watchDeviceID: row.string(at: 0), pairingID: row.string(at: 1), watchHome: row.string(at: 2), pairedAt: row.double(at: 3))
        }
    }

    /// The watch `name` means: its device id, or its home as `runway pair` recorded it.
    package static func find(_ database: Database, _ name: String) throws -> PairedWatch? {
        let watches = try all(database)
        return watches.first { $0.watchDeviceID == name } ?? watches.first { !$0.watchHome.isEmpty && $0.watchHome == name }
    }

    /// The watch `name` means, or `deviceNotPaired` naming the paired ones.
    package static func resolve(_ database: Database, _ name: String) throws -> PairedWatch {
        if let watch = try find(database, name) { return watch }
        let known = try all(database).map { $0.watchHome.isEmpty ? $0.watchDeviceID : $0.watchHome }
        throw WCError(
            .deviceNotPaired, "no watch \(OneLine.quote(name)) is paired with this phone (paired: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
    }

    /// The switch as the store sees it, for a phone whose app is not running (phone-os): `watch` becomes
    /// the active one; the app learns it when it next activates.
    package static func switchStored(_ database: Database, to name: String) throws -> WatchSwitchOutcome {
        let watch = try resolve(database, name)
        let active = try SessionStore.pairing(database)?.watchDeviceID
        if active == watch.watchDeviceID { return .alreadyActive(watch) }
        try activate(database, watch)
        return .switched(from: active, to: watch)
    }

    /// How many transfers are queued for each inactive watch (set aside), by device id.
    package static func parkedCounts(_ database: Database) throws -> [String: Int] {
        let query = try database.statement(literal: "SELECT watch_device_id, count(*) FROM cx_parked_outbox GROUP BY watch_device_id")
        defer { query.reset() }
        var counts: [String: Int] = [:]
        while try query.step() { counts[query.string(at: 0)] = Int(query.int64(at: 1)) }
        return counts
    }

    /// Payloads of the file lane's parked rows (their queued copies must not be swept away).
    static func parkedFilePayloads(_ database: Database) throws -> [[UInt8]] {
        let query = try database.statement(literal: "SELECT payload FROM cx_parked_outbox WHERE lane = 'file'")
        defer { query.reset() }
        var payloads: [[UInt8]] = []
        while try query.step() { payloads.append(query.blob(at: 0)) }
        return payloads
    }

    // MARK: - Pairing and switching

    /// Records `watch` as paired with this phone (a watch paired again keeps its row, with the new
    /// pairing); the first watch is made active. Returns whether `watch` is the active one.
    @discardableResult
    package static func add(_ database: Database, _ pairing: Pairing, watchHome: String) throws -> Bool {
        try database.transaction { try insert(database, pairing, watchHome: watchHome) }
    }

    private static func insert(_ database: Database, _ pairing: Pairing, watchHome: String) throws -> Bool {
        let insert = try database.statement(
            literal: "INSERT OR REPLACE INTO cx_paired_watch (watch_device_id, pairing_id, watch_home, paired_at) VALUES (?, ?, ?, ?)")
        try insert.bind(pairing.watchDeviceID, at: 1)
        try insert.bind(pairing.pairingID, at: 2)
        try insert.bind(watchHome, at: 3)
        try insert.bind(pairing.pairedAt, at: 4)
        try insert.run()
        guard let active = try SessionStore.pairing(database), active.watchDeviceID != pairing.watchDeviceID else {
            // The first watch, or the active one paired again: it is (still) active, with this pairing.
            try SessionStore.writePairing(database, pairing)
            return true
        }
        return false
    }

    /// What `runway pair` learned of `watchID`'s app (installed or not), kept with that watch's state:
    /// the session's own while it is the active watch, set aside with its queues while not.
    package static func recordWatchAppInstalled(_ database: Database, _ watchID: String, _ installed: Bool) throws {
        let value = installed ? "1" : "0"
        if try SessionStore.pairing(database)?.watchDeviceID == watchID {
            try SessionStore.setStateValue(database, "peer.installed", value)
            return
        }
        let insert = try database.statement("INSERT OR REPLACE INTO cx_parked_state (watch_device_id, key, value) VALUES (?, 'state.peer.installed', ?)")
        try insert.bind(watchID, at: 1)
        try insert.bind(value, at: 2)
        try insert.run()
    }

    /// Pairs `pairing`'s watch as the phone's only watch (`runway pair --replace`): the others are
    /// forgotten, with what was queued for them, and are refused from now on (`deviceNotPaired`).
    package static func replaceAll(_ database: Database, _ pairing: Pairing, watchHome: String) throws {
        try database.transaction {
            if let active = try SessionStore.pairing(database), active.watchDeviceID != pairing.watchDeviceID {
                for lane in TransferLane.allCases { try Outbox(database: database, lane: lane).forgetEverything() }
                try database.execute("DELETE FROM cx_context")
                for key in peerStateKeys { try SessionStore.deleteIdentityValue(database, key) }
            }
            try database.execute(
                "DELETE FROM cx_paired_watch; DELETE FROM cx_parked_outbox; DELETE FROM cx_parked_lane; DELETE FROM cx_parked_cancelled; DELETE FROM cx_parked_context; DELETE FROM cx_parked_state"
            )
            try SessionStore.writePairing(database, pairing)
            _ = try insert(database, pairing, watchHome: watchHome)
        }
    }

    /// Makes `watch` the active watch, in one transaction: the active watch's queues are set aside under
    /// its id, `watch`'s are brought back (or start empty, for a watch never active), and its pairing
    /// becomes the session's. The caller has stopped the session talking to the old watch.
    package static func activate(_ database: Database, _ watch: PairedWatch) throws {
        try database.transaction {
            if let old = try SessionStore.pairing(database) {
                guard old.watchDeviceID != watch.watchDeviceID else { return }
                try park(database, old.watchDeviceID)
            }
            try unpark(database, watch.watchDeviceID)
            let phoneID = try SessionStore.identityValue(database, "device_id") ?? ""
            let phoneLinkSocket = try SessionStore.pairing(database)?.phoneLinkSocket ?? ""
            try SessionStore.writePairing(
                database,
                Pairing(
                    pairingID: watch.pairingID, phoneDeviceID: phoneID, watchDeviceID: watch.watchDeviceID, phoneLinkSocket: phoneLinkSocket,
                    pairedAt: watch.pairedAt))
        }
    }

    /// Moves the live queues into the parked tables under `watchID`, leaving the live ones empty.
    private static func park(_ database: Database, _ watchID: String) throws {
        for (lane, outbox, state, cancelled) in laneTables {
            let last = try Outbox(database: database, lane: lane).lastAssignedSeq()
            let statement = try database.statement(
                "INSERT OR REPLACE INTO cx_parked_lane SELECT ?, ?, ?, acked_seq, reported_seq FROM \(state)")
            try statement.bind(watchID, at: 1)
            try statement.bind(lane.rawValue, at: 2)
            try statement.bind(last, at: 3)
            try statement.run()
            // Not the rows delivered and reported, which the live outbox keeps only until a quiet moment
            // (`Outbox.pruneDelivered`): parked, they would be counted as queued for that watch.
            try copy(
                "INSERT INTO cx_parked_outbox SELECT ?, ?, seq, kind, payload, created_at FROM \(outbox) WHERE seq > (SELECT min(acked_seq, reported_seq) FROM \(state))",
                database, watchID, lane)
            try copy("INSERT INTO cx_parked_cancelled SELECT ?, ?, seq FROM \(cancelled)", database, watchID, lane)
            try database.execute("DELETE FROM \(outbox); DELETE FROM \(cancelled); UPDATE \(state) SET acked_seq = 0, reported_seq = 0")
            try setSequence(database, outbox, 0)
        }
        try copy(
            "INSERT INTO cx_parked_context SELECT ?, direction, peer_device_id, version, payload, acked_version, updated_at FROM cx_context", database,
            watchID, nil)
        try database.execute("DELETE FROM cx_context")
        for key in peerStateKeys {
            guard let value = try SessionStore.identityValue(database, key) else { continue }
            let insert = try database.statement("INSERT OR REPLACE INTO cx_parked_state (watch_device_id, key, value) VALUES (?, ?, ?)")
            try insert.bind(watchID, at: 1)
            try insert.bind(key, at: 2)
            try insert.bind(value, at: 3)
            try insert.run()
            try SessionStore.deleteIdentityValue(database, key)
        }
    }

    /// Brings `watchID`'s parked queues back into the (empty) live tables and removes them from the parked.
    private static func unpark(_ database: Database, _ watchID: String) throws {
        for (lane, outbox, state, cancelled) in laneTables {
            let query = try database.statement("SELECT last_assigned, acked_seq, reported_seq FROM cx_parked_lane WHERE watch_device_id = ? AND lane = ?")
            try query.bind(watchID, at: 1)
            try query.bind(lane.rawValue, at: 2)
            let (last, acked, reported): (Int64, Int64, Int64) = try query.step() ? (query.int64(at: 0), query.int64(at: 1), query.int64(at: 2)) : (0, 0, 0)
            query.reset()
            let update = try database.statement("UPDATE \(state) SET acked_seq = ?, reported_seq = ?")
            try update.bind(acked, at: 1)
            try update.bind(reported, at: 2)
            try update.run()
            try copy(
                "INSERT INTO \(outbox) (seq, kind, payload, created_at) SELECT seq, kind, payload, created_at FROM cx_parked_outbox WHERE watch_device_id = ? AND lane = ?",
                database, watchID, lane)
            try copy("INSERT INTO \(cancelled) (seq) SELECT seq FROM cx_parked_cancelled WHERE watch_device_id = ? AND lane = ?", database, watchID, lane)
            try setSequence(database, outbox, last)
        }
        try copy(
            "INSERT INTO cx_context (direction, peer_device_id, version, payload, acked_version, updated_at) SELECT direction, peer_device_id, version, payload, acked_version, updated_at FROM cx_parked_context WHERE watch_device_id = ?",
            database, watchID, nil)
        let state = try database.statement("SELECT key, value FROM cx_parked_state WHERE watch_device_id = ?")
        try state.bind(watchID, at: 1)
        var values: [(String, String)] = []
        while try state.step() { values.append((state.string(at: 0), state.string(at: 1))) }
        state.reset()
        for (key, value) in values { try SessionStore.setIdentityValue(database, key, value) }
        for table in ["cx_parked_outbox", "cx_parked_lane", "cx_parked_cancelled", "cx_parked_context", "cx_parked_state"] {
            let delete = try database.statement("DELETE FROM \(table) WHERE watch_device_id = ?")
            try delete.bind(watchID, at: 1)
            try delete.run()
        }
    }

    /// Runs `sql` with the watch's id bound first (and the lane's name second, when given).
    private static func copy(_ sql: String, _ database: Database, _ watchID: String, _ lane: TransferLane?) throws {
        let statement = try database.statement(sql)
        try statement.bind(watchID, at: 1)
        if let lane { try statement.bind(lane.rawValue, at: 2) }
        try statement.run()
    }

    /// Sets a lane's `AUTOINCREMENT` counter to the watch's own last number: its next transfer follows it.
    private static func setSequence(_ database: Database, _ table: String, _ value: Int64) throws {
        let seed = try database.statement("INSERT OR IGNORE INTO sqlite_sequence (name, seq) VALUES (?, 0)")
        try seed.bind(table, at: 1)
        try seed.run()
        let update = try database.statement("UPDATE sqlite_sequence SET seq = ? WHERE name = ?")
        try update.bind(value, at: 1)
        try update.bind(table, at: 2)
        try update.run()
    }

    /// The app was deleted (`SessionStore.forgetApp`): what was set aside for the other watches goes too,
    /// each lane's numbers kept (never used again for that watch).
    static func forgetParked(_ database: Database) throws {
        try database.execute(
            """
            UPDATE cx_parked_lane SET acked_seq = last_assigned, reported_seq = last_assigned;
            DELETE FROM cx_parked_outbox; DELETE FROM cx_parked_cancelled; DELETE FROM cx_parked_context
            """)
    }
}
