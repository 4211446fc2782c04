import JSONText
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

    /// The run's header as its row in `live_run`, declared once: the columns are these keys
    /// (`RecordFormat`, as `FlightAlert`'s row), written and read by name. The coding keys are the
    /// columns' names as `live-run.1` made them: renaming the columns instead (six `ALTER TABLE …
    /// RENAME COLUMN`, each re-parsing the whole schema) cost every new home's first start 24 M
    /// instructions, two thirds of a daemon's start-up.
    struct Header: Codable, Equatable {
        enum CodingKeys: String, CodingKey {
            case runId = "run_id", startedAt = "started_at", mode, targetPace = "target_pace", tolerance
            case zoneLow = "zone_low", zoneHigh = "zone_high", behaviour, startOrigin = "start_origin"
        }

        var runId: String
        var startedAt: Double
        var mode: FlightMode
        var targetPace: Double
        var tolerance: Double
        var zoneLow: Double
        var zoneHigh: Double
        var behaviour: GPWSBehaviour
        var startOrigin: StartOrigin

        init(_ run: LiveRun) {
            runId = run.id
            startedAt = run.startedAt
            mode = run.target.mode
            targetPace = run.target.paceSecondsPerKm
            tolerance = run.target.toleranceSecondsPerKm
            zoneLow = run.target.low
            zoneHigh = run.target.high
            behaviour = run.engine.behaviour
            startOrigin = run.startOrigin
        }

        /// The run it heads, with no samples yet.
        var run: LiveRun {
            let target = GPWSTarget(mode: mode, paceSecondsPerKm: targetPace, toleranceSecondsPerKm: tolerance, low: zoneLow, high: zoneHigh)
            return LiveRun(id: runId, startedAt: startedAt, target: target, behaviour: behaviour, startOrigin: startOrigin)
        }

        static let format = RecordFormat()
    }

    /// The run in progress, if any, rebuilt from its batches.
    public func load() throws -> LiveRun? {
        let query = try database.statement(literal: "SELECT * FROM live_run WHERE slot = 1")
        defer { query.reset() }
        guard try query.step() else { return nil }
        var run = try Header.format.decode(Header.self, fromRow: query).run
        let batches = try database.prepare("SELECT samples FROM live_run_batches ORDER BY seq")
        while try batches.step() { _ = run.apply(Flight.unpack(batches.blob(at: 0))) }
        return run
    }

    /// Records a new run (no samples yet), replacing nothing: the caller checked that none is running.
    public func begin(_ run: LiveRun) throws {
        let fields = Header.format.fields(of: Header(run))
        try database.transaction {
            try database.execute("DELETE FROM live_run_batches")
            let insert = try database.statement(Header.format.insertSQL(into: "live_run", first: ["slot"], fields))
            try insert.bind(Int64(1), at: 1)
            try insert.bind(fields, from: 2)
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
