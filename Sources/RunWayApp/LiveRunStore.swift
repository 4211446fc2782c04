import Storage

/// Where a device keeps its run in progress: the run's header and its samples, one row per accepted
/// batch, each committed before the batch is answered. A device killed mid-run rebuilds the run by
/// replaying its batches through a fresh GPWS engine (the same decisions, the same alerts, the same
/// alert ids), as HealthKit recovers a workout session after a crash.
public final class LiveRunStore {
    public let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// The run in progress, if any, rebuilt from its batches.
    public func load() throws -> LiveRun? {
        let query = try database.statement(
            literal: """
                SELECT run_id, started_at, mode, target_pace, tolerance, zone_low, zone_high, behaviour, start_origin
                FROM live_run WHERE slot = 1
                """)
        defer { query.reset() }
        guard try query.step() else { return nil }
        let target = GPWSTarget(
            mode: FlightMode(rawValue: query.string(at: 2)) ?? .pace, paceSecondsPerKm: query.double(at: 3),
            toleranceSecondsPerKm: query.double(at: 4), low: query.double(at: 5), high: query.double(at: 6))
        var run = LiveRun(
            id: query.string(at: 0), startedAt: query.double(at: 1), target: target,
            behaviour: GPWSBehaviour(rawValue: query.string(at: 7)) ?? .fixed,
            startOrigin: StartOrigin(rawValue: query.string(at: 8)) ?? .local)
        let batches = try database.prepare("SELECT samples FROM live_run_batches ORDER BY seq")
        while try batches.step() { _ = run.apply(Flight.unpack(batches.blob(at: 0))) }
        return run
    }

    /// Records a new run (no samples yet), replacing nothing: the caller checked that none is running.
    public func begin(_ run: LiveRun) throws {
        try database.transaction {
            try database.execute("DELETE FROM live_run_batches")
            let insert = try database.statement(
                literal: """
                    INSERT INTO live_run (slot, run_id, started_at, mode, target_pace, tolerance, zone_low, zone_high, behaviour, start_origin)
                    VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            try insert.bind(run.id, at: 1)
            try insert.bind(run.startedAt, at: 2)
            try insert.bind(run.target.mode.rawValue, at: 3)
            try insert.bind(run.target.paceSecondsPerKm, at: 4)
            try insert.bind(run.target.toleranceSecondsPerKm, at: 5)
            try insert.bind(run.target.low, at: 6)
            try insert.bind(run.target.high, at: 7)
            try insert.bind(run.engine.behaviour.rawValue, at: 8)
            try insert.bind(run.startOrigin.rawValue, at: 9)
            try insert.run()
        }
    }

    /// One accepted batch, committed.
    public func append(_ batch: [FlightSample]) throws {
        try database.transaction {
            let insert = try database.statement(literal: "INSERT INTO live_run_batches (samples) VALUES (?)")
            try insert.bind(blob: Flight.pack(batch), at: 1)
            try insert.run()
        }
    }

    /// Forgets the run; joins the caller's transaction (the one that queues its flight).
    public func clear() throws {
        try database.execute("DELETE FROM live_run")
        try database.execute("DELETE FROM live_run_batches")
    }
}
