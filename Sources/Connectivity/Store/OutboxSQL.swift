import Storage

/// Each lane's statements, spelled out as literals: the database caches a literal's statement by its
/// address, so the hot path (the userInfo lane's pump) never hashes SQL text. The three lanes' tables have
/// the same shape (`SessionStore.migrations`: `cx_outbox`, `cx_complication_outbox`, `cx_file_outbox`, each
/// with its `…_state` watermarks and `…_cancelled` set).
struct OutboxSQL {
    let insert: StaticString
    let entriesAfter: StaticString
    let cancelledAfter: StaticString
    let exists: StaticString
    let payload: StaticString
    let lastAssigned: StaticString
    let watermarks: StaticString
    let acknowledge: StaticString
    let cancelledBetween: StaticString
    let markReported: StaticString
    let pruneCancelled: StaticString
    let deleteAll: StaticString
    let oldest: StaticString
    let deleteUpTo: StaticString
    let isCancelled: StaticString
    let deleteOne: StaticString
    let recordCancelled: StaticString
    let seedSequence: StaticString
    let bumpSequence: StaticString
    let skipWatermarks: StaticString
    let deleteCancelled: StaticString

    /// `lane`'s row (`LaneSpec.sql`).
    static func of(_ lane: TransferLane) -> OutboxSQL { LaneSpec.table[lane].sql }

    static let userInfo = OutboxSQL(
        insert: "INSERT INTO cx_outbox (kind, payload, created_at) VALUES (?, ?, ?)",
        entriesAfter: "SELECT seq, kind, payload FROM cx_outbox WHERE seq > ? ORDER BY seq LIMIT ?",
        cancelledAfter: "SELECT count(*) FROM cx_cancelled WHERE seq > ?",
        exists: "SELECT 1 FROM cx_outbox WHERE seq = ?",
        payload: "SELECT payload FROM cx_outbox WHERE seq = ?",
        lastAssigned: "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'cx_outbox'), 0)",
        watermarks: "SELECT acked_seq, reported_seq FROM cx_outbox_state",
        acknowledge: "UPDATE cx_outbox_state SET acked_seq = max(acked_seq, ?)",
        cancelledBetween: "SELECT seq FROM cx_cancelled WHERE seq > ? AND seq <= ?",
        markReported: "UPDATE cx_outbox_state SET reported_seq = max(reported_seq, min(acked_seq, ?))",
        pruneCancelled:
            "DELETE FROM cx_cancelled WHERE seq <= min(?, coalesce((SELECT seq FROM cx_cancelled ORDER BY seq DESC LIMIT 1 OFFSET 10000), 0))",
        deleteAll: "DELETE FROM cx_outbox",
        oldest: "SELECT coalesce(min(seq), 0) FROM cx_outbox",
        deleteUpTo: "DELETE FROM cx_outbox WHERE seq <= ?",
        isCancelled: "SELECT 1 FROM cx_cancelled WHERE seq = ?",
        deleteOne: "DELETE FROM cx_outbox WHERE seq = ?",
        recordCancelled: "INSERT OR IGNORE INTO cx_cancelled (seq) VALUES (?)",
        seedSequence: "INSERT OR IGNORE INTO sqlite_sequence (name, seq) VALUES ('cx_outbox', 0)",
        bumpSequence: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'cx_outbox'",
        skipWatermarks: "UPDATE cx_outbox_state SET acked_seq = max(acked_seq, ?), reported_seq = max(reported_seq, ?)",
        deleteCancelled: "DELETE FROM cx_cancelled")

    static let complication = OutboxSQL(
        insert: "INSERT INTO cx_complication_outbox (kind, payload, created_at) VALUES (?, ?, ?)",
        entriesAfter: "SELECT seq, kind, payload FROM cx_complication_outbox WHERE seq > ? ORDER BY seq LIMIT ?",
        cancelledAfter: "SELECT count(*) FROM cx_complication_cancelled WHERE seq > ?",
        exists: "SELECT 1 FROM cx_complication_outbox WHERE seq = ?",
        payload: "SELECT payload FROM cx_complication_outbox WHERE seq = ?",
        lastAssigned: "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'cx_complication_outbox'), 0)",
        watermarks: "SELECT acked_seq, reported_seq FROM cx_complication_outbox_state",
        acknowledge: "UPDATE cx_complication_outbox_state SET acked_seq = max(acked_seq, ?)",
        cancelledBetween: "SELECT seq FROM cx_complication_cancelled WHERE seq > ? AND seq <= ?",
        markReported: "UPDATE cx_complication_outbox_state SET reported_seq = max(reported_seq, min(acked_seq, ?))",
        pruneCancelled:
            "DELETE FROM cx_complication_cancelled WHERE seq <= min(?, coalesce((SELECT seq FROM cx_complication_cancelled ORDER BY seq DESC LIMIT 1 OFFSET 10000), 0))",
        deleteAll: "DELETE FROM cx_complication_outbox",
        oldest: "SELECT coalesce(min(seq), 0) FROM cx_complication_outbox",
        deleteUpTo: "DELETE FROM cx_complication_outbox WHERE seq <= ?",
        isCancelled: "SELECT 1 FROM cx_complication_cancelled WHERE seq = ?",
        deleteOne: "DELETE FROM cx_complication_outbox WHERE seq = ?",
        recordCancelled: "INSERT OR IGNORE INTO cx_complication_cancelled (seq) VALUES (?)",
        seedSequence: "INSERT OR IGNORE INTO sqlite_sequence (name, seq) VALUES ('cx_complication_outbox', 0)",
        bumpSequence: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'cx_complication_outbox'",
        skipWatermarks: "UPDATE cx_complication_outbox_state SET acked_seq = max(acked_seq, ?), reported_seq = max(reported_seq, ?)",
        deleteCancelled: "DELETE FROM cx_complication_cancelled")

    static let file = OutboxSQL(
        insert: "INSERT INTO cx_file_outbox (kind, payload, created_at) VALUES (?, ?, ?)",
        entriesAfter: "SELECT seq, kind, payload FROM cx_file_outbox WHERE seq > ? ORDER BY seq LIMIT ?",
        cancelledAfter: "SELECT count(*) FROM cx_file_cancelled WHERE seq > ?",
        exists: "SELECT 1 FROM cx_file_outbox WHERE seq = ?",
        payload: "SELECT payload FROM cx_file_outbox WHERE seq = ?",
        lastAssigned: "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'cx_file_outbox'), 0)",
        watermarks: "SELECT acked_seq, reported_seq FROM cx_file_outbox_state",
        acknowledge: "UPDATE cx_file_outbox_state SET acked_seq = max(acked_seq, ?)",
        cancelledBetween: "SELECT seq FROM cx_file_cancelled WHERE seq > ? AND seq <= ?",
        markReported: "UPDATE cx_file_outbox_state SET reported_seq = max(reported_seq, min(acked_seq, ?))",
        pruneCancelled:
            "DELETE FROM cx_file_cancelled WHERE seq <= min(?, coalesce((SELECT seq FROM cx_file_cancelled ORDER BY seq DESC LIMIT 1 OFFSET 10000), 0))",
        deleteAll: "DELETE FROM cx_file_outbox",
        oldest: "SELECT coalesce(min(seq), 0) FROM cx_file_outbox",
        deleteUpTo: "DELETE FROM cx_file_outbox WHERE seq <= ?",
        isCancelled: "SELECT 1 FROM cx_file_cancelled WHERE seq = ?",
        deleteOne: "DELETE FROM cx_file_outbox WHERE seq = ?",
        recordCancelled: "INSERT OR IGNORE INTO cx_file_cancelled (seq) VALUES (?)",
        seedSequence: "INSERT OR IGNORE INTO sqlite_sequence (name, seq) VALUES ('cx_file_outbox', 0)",
        bumpSequence: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'cx_file_outbox'",
        skipWatermarks: "UPDATE cx_file_outbox_state SET acked_seq = max(acked_seq, ?), reported_seq = max(reported_seq, ?)",
        deleteCancelled: "DELETE FROM cx_file_cancelled")

    /// The migrations of the lanes added after the first, in `SessionStore.migrations` in this place: a
    /// new lane's tables are a migration appended here (applied by id, so a store from before it gets
    /// them too), with its row of statements above.
    static let laneMigrations = [lanesMigration]

    /// The two lanes added after the first (`connectivity.4`), shaped as `cx_outbox` and its state and
    /// cancellations (`connectivity.1`, `.2`), and the cursor each lane keeps on the receiver.
    static let lanesMigration = Migration(
        "connectivity.4",
        laneTables("complication") + "\n" + laneTables("file") + "\n"
            + """
            -- The receive cursor of the lanes besides userInfo's (which stays in cx_receive_cursor): the
            -- highest sequence number of that lane durably received from each counterpart device.
            CREATE TABLE cx_lane_cursor (
                peer_device_id TEXT NOT NULL,
                lane TEXT NOT NULL,
                last_seq INTEGER NOT NULL,
                PRIMARY KEY (peer_device_id, lane)
            ) STRICT;
            """)

    /// A lane's outbox, its watermarks and its cancellations (`cx_NAME_outbox`, `_outbox_state`,
    /// `_cancelled`), shaped as the userInfo lane's (`cx_outbox`, `connectivity.1` and `.2`).
    private static func laneTables(_ name: String) -> String {
        """
        CREATE TABLE cx_\(name)_outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            kind INTEGER NOT NULL,
            payload BLOB NOT NULL,
            created_at REAL NOT NULL
        ) STRICT;
        CREATE TABLE cx_\(name)_outbox_state (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            acked_seq INTEGER NOT NULL,
            reported_seq INTEGER NOT NULL
        ) STRICT;
        INSERT INTO cx_\(name)_outbox_state (singleton, acked_seq, reported_seq) VALUES (1, 0, 0);
        CREATE TABLE cx_\(name)_cancelled (seq INTEGER PRIMARY KEY) STRICT;
        """
    }
}
