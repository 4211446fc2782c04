import Control
import JSONText
import Posix
import Storage

/// `run-start|run-sample|run-status|run-stop|run-replay`: a live run on a device, sample by sample, with
/// RunWay's GPWS deciding on each sample. The watch uses it for its own runs (and, later, the runs the
/// phone starts); the run and its samples are committed per batch, so a device killed mid-run finds its
/// run again after relaunch.
final class RunCommands {
    let database: Database
    /// The device's time now.
    let now: () -> Double
    let behaviour: GPWSBehaviour
    let logger: Logger
    let store: LiveRunStore
    /// The run in progress (RunWay: `startOrigin != nil`).
    private(set) var run: LiveRun? {
        didSet { if (oldValue == nil) != (run == nil) { onRunningChanged(run != nil) } }
    }
    /// A run began or ended (the watch's workout session runs while one is in progress).
    var onRunningChanged: (Bool) -> Void = { _ in }
    /// Saves or queues the finished flight, inside the transaction that forgets the run, so it is saved
    /// or queued exactly once whatever the moment of a crash; returns fields for the reply.
    var finish: (Flight, LiveRun) throws -> [String: JSONValue] = { _, _ in [:] }
    /// After that transaction committed.
    var onFinished: (Flight, LiveRun) -> Void = { _, _ in }
    /// Checked before a run starts: nil, or why it cannot (exit 1).
    var canStart: (GPWSTarget) -> String? = { _ in nil }
    /// A run started (the phone then asks the watch to mirror it).
    var onStarted: (LiveRun) -> Void = { _ in }
    /// More fields for `status` (the phone's mirroring).
    var extraStatus: () -> [String: JSONValue] = { [:] }
    /// What `run stop` says when no run is in progress.
    var nothingToStop = "no run in progress; nothing saved"
    private var generator = FlightGenerator()

    init(database: Database, now: @escaping () -> Double, behaviour: GPWSBehaviour, logger: Logger) throws {
        self.database = database
        self.now = now
        self.behaviour = behaviour
        self.logger = logger
        store = LiveRunStore(database: database)
        run = try store.load()
        if let run {
            logger.notice("run.recovered", ["runId": run.id, "samples": run.samples.count, "alerts": run.alerts.count])
        }
    }

    func register(on router: ControlRouter) {
        router.on("run-start") { [unowned self] request, connection in
            connection.reply(try start(request, origin: .local, id: nil))
        }
        router.on("run-sample") { [unowned self] request, connection in
            connection.reply(try sample(request))
        }
        router.on("run-status") { [unowned self] request, connection in
            connection.reply(status())
        }
        router.on("run-stop") { [unowned self] request, connection in
            connection.reply(try stop())
        }
        router.on("run-replay") { [unowned self] request, connection in
            connection.reply(try replay(request))
        }
    }

    // MARK: - Commands

    /// Starts a run: exit 1 if one is in progress (or `canStart` says no), exit 2 on a bad target.
    @discardableResult
    func start(_ request: ControlRequest, origin: StartOrigin, id: String?) throws -> JSONValue {
        let target = try Self.target(request)
        if let run { throw ControlError("a run is already in progress (\(run.id))") }
        if let why = canStart(target) { throw ControlError(why) }
        let now = self.now()
        var random = SystemRandomNumberGenerator()
        let runID = id ?? Identifier.uuidV7(milliseconds: UInt64(max(0, now * 1000)), counter: 0, using: &random)
        let started = LiveRun(id: runID, startedAt: now, target: target, behaviour: behaviour, startOrigin: origin)
        try store.begin(started)
        run = started
        logger.notice(
            "run.started",
            [
                "runId": runID, "mode": target.mode.rawValue, "target": target.text,
                "origin": origin.rawValue, "gpws": behaviour.rawValue,
            ])
        onStarted(started)
        return status()
    }

    /// Feeds samples: all taken and committed, or none (exit 2, the run unchanged).
    func sample(_ request: ControlRequest) throws -> JSONValue {
        guard run != nil else { throw ControlError("no run in progress (runway watch run start)") }
        let batch = try Self.samples(request)
        let trace = try take(batch)
        var fields = status().objectValue ?? [:]
        fields["trace"] = .array(zip(trace, batch).map(Self.json))
        return .object(fields)
    }

    private func take(_ batch: [FlightSample]) throws -> [GPWSDecision] {
        guard var current = run else { throw ControlError("no run in progress") }
        if let problem = current.problem(with: batch) { throw ControlError.invalid(problem) }
        try store.append(batch)
        let decisions = current.apply(batch)
        for decision in decisions {
            if let alert = decision.alert {
                logger.notice("gpws.alert", ["runId": current.id, "t": decision.time, "type": alert.rawValue])
            }
        }
        run = current
        return decisions
    }

    func status() -> JSONValue {
        guard let run else { return .object(["state": .string("idle"), "startOrigin": .null].merging(extraStatus()) { a, _ in a }) }
        let last = run.last
        return .object(
            extraStatus().merging([
                "state": .string("running"),
                "runId": .string(run.id),
                "startedAt": .string(Timestamp.iso8601(run.startedAt)),
                "mode": .string(run.target.mode.rawValue),
                "target": .string(run.target.text),
                "gpwsBehaviour": .string(run.engine.behaviour.rawValue),
                "elapsedSeconds": .number(Double(last?.time ?? 0)),
                "distanceKm": .number(Double(last?.distance ?? 0) / 1000),
                "pace": .number(Double(last?.pace ?? 0)),
                "heartRate": .number(Double(last?.heartRate ?? 0)),
                "stationary": .bool((last?.pace ?? 0) == 0),
                "samples": .integer(Int64(run.samples.count)),
                "gpws": .string(run.status.rawValue),
                "alerts": .integer(Int64(run.alerts.count)),
                "startOrigin": .string(run.startOrigin.rawValue),
            ]) { _, new in new })
    }

    /// Ends the run: builds its flight, saves or queues it and forgets the run in one transaction.
    func stop() throws -> JSONValue {
        guard let current = run else {
            logger.notice("run.save-skipped", ["reason": "no run in progress"])
            throw ControlError(nothingToStop)
        }
        let flight = current.flight(endingAt: now())
        let extra = try database.transaction { () throws -> [String: JSONValue] in
            let extra = try finish(flight, current)
            try store.clear()
            return extra
        }
        run = nil
        logger.notice("run.stopped", ["runId": flight.id, "distanceKm": flight.distanceKm, "alerts": flight.alerts.count])
        onFinished(flight, current)
        var fields: [String: JSONValue] = [
            "id": .string(flight.id), "distanceKm": .number(flight.distanceKm), "durationSeconds": .number(flight.durationSeconds),
            "alerts": .integer(Int64(flight.alerts.count)), "startOrigin": .string(current.startOrigin.rawValue),
        ]
        fields.merge(extra) { _, new in new }
        return .object(fields)
    }

    /// Ends the run `id` without saving or queueing anything (the phone, which led it, saves it).
    func end(id: String) throws -> Bool {
        guard let current = run, current.id == id else { return false }
        try database.transaction { try store.clear() }
        run = nil
        logger.notice("run.ended-by-phone", ["runId": id, "samples": current.samples.count])
        return true
    }

    /// A generated run (stops included) fed as one batch, then stopped: the start, the trace and the stop.
    func replay(_ request: ControlRequest) throws -> JSONValue {
        _ = try Self.target(request)
        if let seed = request[ControlCommands.RunReplay.seed] { generator = FlightGenerator(seed: UInt64(seed)) }
        let distance = request[ControlCommands.RunReplay.distanceKm]
        var samples: [FlightSample] = []
        for sample in generator.flight(distanceKm: distance, endingAt: now()).samples where sample.time > (samples.last?.time ?? 0) {
            samples.append(sample)
        }
        try start(request, origin: .local, id: nil)
        let trace: [GPWSDecision]
        do {
            trace = try take(samples)
        } catch {
            // A generated run the rules refuse: leave nothing behind.
            try database.transaction { try store.clear() }
            run = nil
            throw error
        }
        let stopped = try stop()
        var fields = stopped.objectValue ?? [:]
        fields["trace"] = .array(zip(trace, samples).map(Self.json))
        return .object(fields)
    }

    // MARK: - Arguments

    /// `mode`, `targetPace` (s/km), `zoneLow`/`zoneHigh` (bpm), each checked by the router against the
    /// catalogue (`GPWSTarget`'s ranges); the zone's two ends together are checked here (exit 2).
    static func target(_ request: ControlRequest) throws -> GPWSTarget {
        typealias Target = ControlCommands.RunStart
        var target = GPWSTarget(mode: request[Target.mode] == "pace" ? .pace : .heartRate)
        if let pace = request[Target.targetPace] { target.paceSecondsPerKm = pace }
        let low = request[Target.zoneLow], high = request[Target.zoneHigh]
        if let low, let high {
            guard low < high else { throw ControlError.invalid("the heart-rate zone needs LOW < HIGH") }
            target.low = low
            target.high = high
        } else if low != nil || high != nil {
            throw ControlError.invalid("the heart-rate zone needs both zoneLow and zoneHigh")
        }
        return target
    }

    /// `samples`: `[[t, distanceM, paceSecPerKm, hr], …]` (`LiveRun.batch`).
    static func samples(_ request: ControlRequest) throws -> [FlightSample] {
        do {
            return try LiveRun.batch(request[ControlCommands.RunSample.samples].arrayValue ?? [])
        } catch {
            throw ControlError.invalid(error.description)
        }
    }

    /// `{"t":600,"pace":0,"hr":120,"stationary":true,"decided":false,"gpws":"CLEAR","alert":null}`
    static func json(_ decision: GPWSDecision, _ sample: FlightSample) -> JSONValue {
        .object([
            "t": .number(decision.time),
            "pace": .number(Double(sample.pace)),
            "hr": .number(Double(sample.heartRate)),
            "stationary": .bool(decision.stationary),
            "decided": .bool(decision.decided),
            "gpws": .string(decision.status.rawValue),
            "alert": decision.alert.map { .string($0.rawValue) } ?? .null,
        ])
    }
}
