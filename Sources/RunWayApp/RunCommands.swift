import Control
import JSONText
import Posix
import RunWayDomain
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
    /// Saves or queues the finished flight, inside the transaction that forgets the run; says in the
    /// reply what became of it. On the phone the flight's save and the run's end are one commit. On the
    /// watch they are two: the flight is queued in the session's store (its own file and commit), then
    /// the app's transaction forgets the run. A crash between them (`run.after-queue`) leaves the run to
    /// be stopped again and its flight queued twice, with the same id: at least once, stored once by the
    /// phone's dedup by flight id (`HealthTests.aWatchKilledAfterTheQueueStoresTheRunOnce`).
    var finish: (Flight, LiveRun, inout RunStopReply) throws -> Void = { _, _, _ in }
    /// Saves the run's workout to Health, inside the transaction that forgets the run (a failure rolls
    /// it back): on a stop, and when the phone ends a run it led. Given the run and its end (device time).
    var saveToHealth: (LiveRun, Double) throws -> Void = { _, _ in }
    /// Ends the run's workout without saving it (inside the transaction that forgets the run).
    var discardFromHealth: (LiveRun) -> Void = { _ in }
    /// Samples were taken into the run in progress (the watch's workout builder collects them).
    var onSamples: (LiveRun) -> Void = { _ in }
    /// After that transaction committed.
    var onFinished: (Flight, LiveRun) -> Void = { _, _ in }
    /// Checked before a run starts: nil, or why it cannot (exit 1).
    var canStart: (GPWSTarget) -> String? = { _ in nil }
    /// A run started (the phone then asks the watch to mirror it).
    var onStarted: (LiveRun) -> Void = { _ in }
    /// The phone's mirroring, for `status` while a run is in progress.
    var mirroring: () -> RunMirroring? = { nil }
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
        // A request's target is read by `target(_:)`, for run-start, run-replay and the watch's workout start.
        router.on(ControlCommands.RunStart.self) { [unowned self] args in try start(args, origin: .local, id: nil) }
        router.on(ControlCommands.RunSample.self) { [unowned self] args in try sample(args.samples) }
        router.on(ControlCommands.RunStatus.self) { [unowned self] _ in status() }
        router.on(ControlCommands.RunStop.self) { [unowned self] _ in try stop() }
        router.on(ControlCommands.RunReplay.self) { [unowned self] args in try replay(args) }
    }

    // MARK: - Commands

    /// Starts a run: exit 1 if one is in progress (or `canStart` says no), exit 2 on a bad target.
    @discardableResult
    func start(_ request: ControlCommands.RunStart, origin: StartOrigin, id: String?) throws -> RunStatusReply {
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
    func sample(_ samples: JSONValue) throws -> RunStatusReply {
        guard run != nil else { throw ControlError("no run in progress (runway watch run start)") }
        let batch = try Self.samples(samples)
        let trace = try take(batch)
        var reply = status()
        reply.trace = zip(trace, batch).map(Self.decision)
        return reply
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
        onSamples(current)
        return decisions
    }

    func status() -> RunStatusReply {
        guard let run else { return .idle }
        let last = run.last
        var reply = RunStatusReply(state: "running")
        reply.runId = run.id
        reply.startedAt = Timestamp.iso8601(run.startedAt)
        reply.mode = run.target.mode.rawValue
        reply.target = run.target.text
        reply.gpwsBehaviour = run.engine.behaviour.rawValue
        reply.elapsedSeconds = Double(last?.time ?? 0)
        reply.distanceKm = Double(last?.distance ?? 0) / 1000
        reply.pace = Double(last?.pace ?? 0)
        reply.heartRate = Double(last?.heartRate ?? 0)
        reply.stationary = (last?.pace ?? 0) == 0
        reply.samples = Int64(run.samples.count)
        reply.gpws = run.status.rawValue
        reply.alerts = Int64(run.alerts.count)
        reply.startOrigin = run.startOrigin.rawValue
        reply.mirroring = mirroring()
        return reply
    }

    /// Ends the run: builds its flight, saves or queues it and forgets the run in one transaction.
    func stop() throws -> RunStopReply {
        guard let current = run else {
            logger.notice("run.save-skipped", ["reason": "no run in progress"])
            throw ControlError(nothingToStop)
        }
        let end = now()
        let flight = current.flight(endingAt: end)
        var reply = RunStopReply(
            id: flight.id, distanceKm: flight.distanceKm, durationSeconds: flight.durationSeconds, alerts: Int64(flight.alerts.count),
            startOrigin: current.startOrigin.rawValue)
        try database.transaction {
            try saveToHealth(current, end)
            CrashPoint.hit("run.after-health-save")
            try finish(flight, current, &reply)
            // The watch's flight is committed to the outbox now; the run is forgotten only below.
            CrashPoint.hit("run.after-queue")
            try store.clear()
        }
        run = nil
        logger.notice("run.stopped", ["runId": flight.id, "distanceKm": flight.distanceKm, "alerts": flight.alerts.count])
        onFinished(flight, current)
        return reply
    }

    /// Ends the run `id` without queueing anything (the phone, which led it, saves it to its logbook):
    /// its workout saved to Health when `save`, else discarded (`discardFromHealth`); `within` runs in the
    /// same transaction (the watch keeps its answer to the phone there).
    func end(id: String, save: Bool = true, within: (LiveRun, Double) throws -> Void = { _, _ in }) throws -> Bool {
        guard let current = run, current.id == id else { return false }
        let end = now()
        try database.transaction {
            if save { try saveToHealth(current, end) } else { discardFromHealth(current) }
            CrashPoint.hit("run.after-health-save")
            try within(current, end)
            try store.clear()
        }
        run = nil
        logger.notice("run.ended-by-phone", ["runId": id, "samples": current.samples.count, "saved": save])
        return true
    }

    /// A generated run (stops included) fed as one batch, then stopped: the start, the trace and the stop.
    func replay(_ args: ControlCommands.RunReplay) throws -> RunStopReply {
        let request = args.start
        _ = try Self.target(request)
        if let seed = args.seed { generator = FlightGenerator(seed: UInt64(seed)) }
        let distance = args.distanceKm
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
        var stopped = try stop()
        stopped.trace = zip(trace, samples).map(Self.decision)
        return stopped
    }

    // MARK: - Arguments

    /// `mode`, `targetPace` (s/km), `zoneLow`/`zoneHigh` (bpm), each checked by the router against the
    /// catalogue (`GPWSTarget`'s ranges); the zone's two ends together are checked here (exit 2).
    static func target(_ request: ControlCommands.RunStart) throws -> GPWSTarget {
        var target = GPWSTarget(mode: request.mode == "pace" ? .pace : .heartRate)
        if let pace = request.targetPace { target.paceSecondsPerKm = pace }
        let low = request.zoneLow, high = request.zoneHigh
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
    static func samples(_ samples: JSONValue) throws -> [FlightSample] {
        do {
            return try LiveRun.batch(samples.arrayValue ?? [])
        } catch {
            throw ControlError.invalid(error.description)
        }
    }

    /// GPWS's decision on `sample`, as the replies show it.
    static func decision(_ decision: GPWSDecision, _ sample: FlightSample) -> RunDecision {
        RunDecision(
            t: decision.time, pace: Double(sample.pace), hr: Double(sample.heartRate), stationary: decision.stationary, decided: decision.decided,
            gpws: decision.status.rawValue, alert: decision.alert?.rawValue)
    }
}
