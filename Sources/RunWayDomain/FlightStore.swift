import JSONText
import Posix
import Storage

/// The phone's Logbook: every stored flight, deduplicated by id, in arrival order.
///
/// Summaries and samples live in separate tables so that listing 100,000 flights never reads their
/// samples. All writes go through the connection the session also uses: a flight saved on receipt
/// commits in the same transaction that records its transfer as received.
package final class FlightStore {
    /// The columns of `flights` after its arrival number: the same in `app.1` and in the table
    /// `flights-arrival.1` rebuilt it as.
    private static let flightColumns = """
            id TEXT NOT NULL UNIQUE,
            started_at REAL NOT NULL,
            ended_at REAL NOT NULL,
            distance_km REAL NOT NULL,
            duration_s REAL NOT NULL,
            avg_pace REAL NOT NULL,
            avg_hr REAL NOT NULL,
            mode TEXT NOT NULL,
            source_device TEXT,
            transfer_seq INTEGER,
            saved_at REAL NOT NULL
        """

    package static let migrations: [Migration] = [
        Migration(
            "app.1",
            """
            CREATE TABLE flights (
                arrival INTEGER PRIMARY KEY AUTOINCREMENT,
            \(flightColumns)
            ) STRICT;
            CREATE INDEX flights_by_start ON flights (started_at);
            CREATE TABLE flight_samples (
                arrival INTEGER PRIMARY KEY REFERENCES flights (arrival) ON DELETE CASCADE,
                samples BLOB NOT NULL
            ) STRICT;
            -- userInfo transfers that are not flights, as delivered to the app, in arrival order.
            CREATE TABLE received_userinfo (
                arrival INTEGER PRIMARY KEY AUTOINCREMENT,
                source_device TEXT NOT NULL,
                transfer_seq INTEGER NOT NULL,
                payload BLOB NOT NULL,
                received_at REAL NOT NULL
            ) STRICT;
            """),
        // Issue 15: the GPWS alerts that travel inside a flight, stored with it in the receive
        // transaction and deleted with it (the cascade).
        Migration(
            "alerts.1",
            """
            CREATE TABLE alerts (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                arrival INTEGER NOT NULL REFERENCES flights (arrival) ON DELETE CASCADE,
                id TEXT NOT NULL,
                at REAL NOT NULL,
                type TEXT NOT NULL,
                mode TEXT NOT NULL,
                value REAL NOT NULL,
                target TEXT NOT NULL
            ) STRICT;
            CREATE INDEX alerts_by_flight ON alerts (arrival);
            """),
        // Issue 26: arrival numbers without AUTOINCREMENT. It read sqlite_sequence at every insert and
        // wrote its row back (~3,500 instructions of a received flight's ~59,000). The promise it kept
        // (a number is never given twice, even after the newest flight is deleted) is kept by the
        // floor a deletion leaves (`flights_arrival_floor`, written by a trigger, whoever deletes): an
        // insert at or under it takes the number above it instead (`FlightStore.insert`). The table is
        // rebuilt (SQLite cannot drop AUTOINCREMENT in place) with foreign keys off (the Migrator's),
        // so that dropping the old one deletes no samples or alerts; the floor starts at the old
        // sequence.
        Migration(
            "flights-arrival.1",
            """
            CREATE TABLE flights_next (
                arrival INTEGER PRIMARY KEY,
            \(flightColumns)
            ) STRICT;
            INSERT INTO flights_next
                SELECT arrival, id, started_at, ended_at, distance_km, duration_s, avg_pace, avg_hr, mode,
                    source_device, transfer_seq, saved_at
                FROM flights ORDER BY arrival;
            -- The highest arrival number a deleted flight had (one row at most); read before the drop,
            -- which deletes the table's row of sqlite_sequence.
            CREATE TABLE flights_arrival_floor (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                arrival INTEGER NOT NULL
            ) STRICT;
            INSERT INTO flights_arrival_floor (singleton, arrival)
                SELECT 1, seq FROM sqlite_sequence WHERE name = 'flights';
            DROP TABLE flights;
            ALTER TABLE flights_next RENAME TO flights;
            CREATE INDEX flights_by_start ON flights (started_at);
            CREATE TRIGGER flights_keep_arrival_floor AFTER DELETE ON flights BEGIN
                INSERT INTO flights_arrival_floor (singleton, arrival) VALUES (1, old.arrival)
                    ON CONFLICT (singleton) DO UPDATE SET arrival = max(arrival, excluded.arrival);
            END;
            """),
        // Issue 15: which Logbook and Alerts groups the user expanded or collapsed (#16).
        Migration(
            "ui-groups.1",
            """
            CREATE TABLE ui_group_state (
                view TEXT NOT NULL,
                key TEXT NOT NULL,
                expanded INTEGER NOT NULL,
                PRIMARY KEY (view, key)
            ) STRICT;
            """),
        // Issue 15: the watch's live run (one at most) and its samples, committed per batch so that a
        // watch killed mid-run finds it again.
        Migration(
            "live-run.1",
            """
            CREATE TABLE live_run (
                slot INTEGER PRIMARY KEY CHECK (slot = 1),
                run_id TEXT NOT NULL,
                started_at REAL NOT NULL,
                mode TEXT NOT NULL,
                target_pace REAL NOT NULL,
                tolerance REAL NOT NULL,
                zone_low REAL NOT NULL,
                zone_high REAL NOT NULL,
                behaviour TEXT NOT NULL,
                start_origin TEXT NOT NULL
            ) STRICT;
            CREATE TABLE live_run_batches (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                samples BLOB NOT NULL
            ) STRICT;
            """),
    ]

    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// Where a stored flight came from.
    package struct Origin: Sendable {
        package var deviceID: String?
        package var transferSeq: Int64?
        package init(deviceID: String? = nil, transferSeq: Int64? = nil) {
            self.deviceID = deviceID
            self.transferSeq = transferSeq
        }
    }

    // MARK: - Writing

    /// Inserts `flight` unless a flight with its id is stored; returns its place in arrival order, or
    /// nil if it was already there. Joins the caller's transaction if one is open.
    ///
    /// The summary and the samples are two rows: if this throws, the caller must roll its transaction
    /// back (the session does, when the app answers `.failed`), or a half-written flight would stay and
    /// later be skipped as a duplicate of itself.
    @discardableResult
    package func insert(_ flight: Flight, origin: Origin = Origin(), now: Double = wallClockSeconds()) throws -> Int64? {
        let insert = try insertStatement()
        let numbered = try arrivalAboveFloor()
        if let numbered { try insert.bind(numbered, at: 1) } else { try insert.bindNull(at: 1) }
        var index: Int32 = 2
        for field in Flight.columnFields {
            switch flight.value(of: field) {
            case let .string(text): try insert.bind(text, at: index)
            case let .real(number), let .date(number): try insert.bind(number, at: index)
            case let .integer(number): try insert.bind(number, at: index)
            case let .bool(flag): try insert.bind(flag ? 1 : 0, at: index)
            case let .data(bytes): try insert.bind(blob: bytes, at: index)
            case .array, .dictionary: try insert.bindNull(at: index)
            }
            index += 1
        }
        if let device = origin.deviceID { try insert.bind(device, at: index) } else { try insert.bindNull(at: index) }
        if let seq = origin.transferSeq { try insert.bind(seq, at: index + 1) } else { try insert.bindNull(at: index + 1) }
        try insert.bind(now, at: index + 2)
        try insert.run()
        guard database.changes == 1 else { return nil }
        let arrival = database.lastInsertRowID
        if numbered != nil { floor?.nextArrival = nil }  // now above the floor
        let samples = try database.statement(literal: "INSERT INTO flight_samples (arrival, samples) VALUES (?, ?)")
        try samples.bind(arrival, at: 1)
        try samples.bind(blob: flight.packedSamples, at: 2)
        try samples.run()
        if !flight.alerts.isEmpty { try insertAlerts(flight.alerts, arrival: arrival) }
        return arrival
    }

    private func insertAlerts(_ alerts: [FlightAlert], arrival: Int64) throws {
        guard let first = alerts.first else { return }
        // The columns are the alert's keys (`RecordFormat`).
        let insert = try database.statement(FlightAlert.format.insertSQL(into: "alerts", first: ["arrival"], first.fields))
        for alert in alerts {
            insert.reset()
            try insert.bind(arrival, at: 1)
            try insert.bind(alert.fields, from: 2)
            try insert.run()
        }
    }

    /// The alerts of the flight stored at `arrival`, oldest first.
    package func alerts(arrival: Int64) throws -> [FlightAlert] {
        let query = try database.statement(literal: "SELECT * FROM alerts WHERE arrival = ? ORDER BY seq")
        defer { query.reset() }
        try query.bind(arrival, at: 1)
        var alerts: [FlightAlert] = []
        while try query.step() { alerts.append(try FlightAlert.format.decode(FlightAlert.self, fromRow: query)) }
        return alerts
    }

    /// Every stored alert with its flight's id, in arrival order (the flight's, then the alert's).
    package func forEachAlert(_ body: (FlightAlert, String) throws -> Void) throws {
        let query = try database.prepare("SELECT a.*, f.id AS flight_id FROM alerts a JOIN flights f USING (arrival) ORDER BY a.seq")
        let flightID = query.columnCount - 1
        while try query.step() { try body(try FlightAlert.format.decode(FlightAlert.self, fromRow: query), query.string(at: flightID)) }
    }

    package func alertCount() throws -> Int { Int(try database.scalarInt("SELECT count(*) FROM alerts")) }

    /// `INSERT INTO flights (arrival, <every field's column>, source_device, transfer_seq, saved_at) …`
    static let insertSQL: String = {
        let columns = ["arrival"] + Flight.columnFields.compactMap { $0.column?.description } + ["source_device", "transfer_seq", "saved_at"]
        return "INSERT INTO flights (\(columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ") ON CONFLICT (id) DO NOTHING"
    }()

    /// Prepared once and kept: the receive path never hashes the SQL text.
    private var preparedInsert: Statement?

    private func insertStatement() throws -> Statement {
        if let prepared = preparedInsert {
            prepared.reset()
            return prepared
        }
        let prepared = try database.prepare(Self.insertSQL)
        preparedInsert = prepared
        return prepared
    }

    /// What `arrivalAboveFloor` found, for the rest of one transaction.
    private struct Floor {
        var transaction: UInt64
        var nextArrival: Int64?
    }

    private var floor: Floor?

    /// The number the next flight must take when a deletion left the floor at or above every stored
    /// flight's (the newest was deleted), or nil: SQLite's own choice, one above the highest stored,
    /// is then new. Read once per transaction (a rolled-back one's insert never happened; another
    /// connection's deletion commits in a transaction of its own), and for every insert outside one.
    private func arrivalAboveFloor() throws -> Int64? {
        if let floor, database.isInTransaction, floor.transaction == database.transactionsBegun { return floor.nextArrival }
        let query = try database.statement(
            literal: """
                SELECT arrival + 1 FROM flights_arrival_floor
                WHERE arrival >= coalesce((SELECT max(arrival) FROM flights), 0)
                """)
        defer { query.reset() }
        let next = try query.step() ? query.int64(at: 0) : nil
        floor = Floor(transaction: database.transactionsBegun, nextArrival: next)
        return next
    }

    /// Deletes a stored flight; false if there is none with that id.
    package func delete(id: String) throws -> Bool {
        floor = nil
        return try database.transaction {
            let delete = try database.statement(literal: "DELETE FROM flights WHERE id = ?")
            try delete.bind(id, at: 1)
            try delete.run()
            return database.changes > 0
        }
    }

    // MARK: - Reading

    package func count() throws -> Int { Int(try database.scalarInt("SELECT count(*) FROM flights")) }

    package func contains(id: String) throws -> Bool {
        let query = try database.statement(literal: "SELECT 1 FROM flights WHERE id = ?")
        defer { query.reset() }
        try query.bind(id, at: 1)
        return try query.step()
    }

    /// Every field's column, then `arrival`.
    static let summaryColumns = (Flight.columnFields.compactMap { $0.column?.description } + ["arrival"]).joined(separator: ", ")
    /// Where the samples follow the summary columns in `flight(id:)`.
    static let samplesColumn = Int32(Flight.columnFields.count + 1)

    /// A stored flight with its samples.
    package func flight(id: String) throws -> StoredFlight? {
        let query = try database.statement(
            """
            SELECT \(Self.summaryColumns), s.samples FROM flights f LEFT JOIN flight_samples s USING (arrival) WHERE f.id = ?
            """)
        defer { query.reset() }
        try query.bind(id, at: 1)
        guard try query.step() else { return nil }
        var stored = Self.summary(query)
        stored.flight.packedSamples = query.blob(at: Self.samplesColumn)
        stored.flight.alerts = try alerts(arrival: stored.arrival)
        return stored
    }

    /// The flight that started last (what the inactivity reminders count from).
    package func latest() throws -> StoredFlight? {
        let query = try database.statement("SELECT \(Self.summaryColumns) FROM flights ORDER BY started_at DESC LIMIT 1")
        defer { query.reset() }
        return try query.step() ? Self.summary(query) : nil
    }

    /// Every flight's summary (no samples), in arrival order, one at a time: memory stays flat
    /// whatever the size of the logbook.
    package func forEachSummary(_ body: (StoredFlight) throws -> Void) throws {
        let query = try database.prepare("SELECT \(Self.summaryColumns) FROM flights ORDER BY arrival")
        while try query.step() { try body(Self.summary(query)) }
    }

    /// One page of summaries after `arrival`, in arrival order; returns how many there were. A
    /// streamed listing asks page by page, holding no statement open between pages.
    @discardableResult
    package func forEachSummary(afterArrival arrival: Int64, limit: Int, _ body: (StoredFlight) throws -> Void) throws -> Int {
        let query = try database.statement(
            "SELECT \(Self.summaryColumns) FROM flights WHERE arrival > ? ORDER BY arrival LIMIT ?")
        defer { query.reset() }
        try query.bind(arrival, at: 1)
        try query.bind(limit, at: 2)
        var rows = 0
        while try query.step() {
            try body(Self.summary(query))
            rows += 1
        }
        return rows
    }

    static func summary(_ row: Statement) -> StoredFlight {
        var flight = Flight.blank
        for (index, field) in Flight.columnFields.enumerated() {
            let column = Int32(index)
            switch field.kind {
            case .id: flight.id = row.string(at: column)
            case .mode: flight.mode = FlightMode(rawValue: row.string(at: column)) ?? .pace
            case let .time(offset), let .number(offset, _, _): flight.setNumber(row.double(at: column), at: offset)
            case .samples: flight.packedSamples = row.blob(at: column)
            case .alerts: continue
            }
        }
        return StoredFlight(flight: flight, arrival: row.int64(at: Int32(Flight.columnFields.count)))
    }
}
