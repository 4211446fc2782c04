import Control
import HealthKit
import JSONText
import Posix
import Storage
import PropertyLists
import RunWayDomain

/// A run led by the phone (APP_SPEC E): started on the phone, mirrored on the watch, saved by the phone.
///
/// RunWay 1.3.2/1.4 calls `startWatchApp(toHandle:)` unconditionally and treats mirroring as started as
/// soon as the request does not fail: `assumedStarted`. It never hears whether the watch started its
/// session (#44). Here the watch answers (`workoutStarted` / `workoutFailed`), and the phone reports what
/// it assumed next to what happened: `confirmed`, `failed`, or `unconfirmed` after a time-out.
///
/// Through HealthKit, as a real app does it: `HKHealthStore.startWatchApp(with:)` wakes the watch app,
/// which mirrors a workout session to the phone (`workoutSessionMirroringStartHandler`); RunWay's workout
/// events (`startWorkout`, `stopWorkout`, `workoutSync` one way, the answers the other) are that mirrored
/// session's data (`sendToRemoteWorkoutSession`): in order, and delivered when the link returns.
final class PhoneRunController {
    enum MirroringState: String {
        case notRequested, requested, confirmed, failed, unconfirmed
    }

    let runs: RunCommands
    let session: AppSession
    let loop: EventLoop
    let logger: Logger
    let confirmTimeoutMilliseconds: UInt64
    /// Who saves each phone-led run to Health, kept with the run and after it (issue 51). Not kept (in
    /// memory only, never taken back) under `--health volatile`: the app before issue 51, RunWay's #28.
    let ledger: RunHealthLedger
    let durable: Bool
    private var volatileRecords: [String: PhoneRunHealth] = [:]
    /// The phone's own saves: at its stop, and when it takes a stopped run's save back.
    var health: RunHealth?
    /// Mirroring state changes, for attached UIs.
    var onMirroringChange: (JSONValue) -> Void = { _ in }
    /// Counts `startWatchApp(toHandle:)` calls (shown in status: it is called whatever the watch's state).
    private(set) var startWatchAppCalls = 0
    let healthStore = HKHealthStore()
    /// The watch's session as the phone mirrors it: the way RunWay's workout events go.
    private(set) var mirror: HKWorkoutSession?
    private let mirrorEvents = RemoteWorkoutEvents()
    /// A question to the watch app in flight (`askWatchApp`).
    private var askInFlight = false
    /// The look-up of the watch's Health store in flight, and the retry of one that failed.
    private var lookupInFlight = false
    private var lookupRetry: EventLoop.TimerID?

    init(
        runs: RunCommands, session: AppSession, loop: EventLoop, logger: Logger, confirmTimeoutMilliseconds: UInt64, ledger: RunHealthLedger,
        durable: Bool
    ) {
        self.runs = runs
        self.session = session
        self.loop = loop
        self.logger = logger
        self.confirmTimeoutMilliseconds = confirmTimeoutMilliseconds
        self.ledger = ledger
        self.durable = durable
        runs.canStart = { [unowned self] target in
            // The one rule (#42): heart-rate mode exactly when the APPLE WATCH row is ok.
            let row = self.appleWatch
            guard target.mode == .heartRate, !row.heartRateModeAvailable else { return nil }
            return "heart-rate mode needs the Apple Watch: \(row.label)"
        }
        runs.onStarted = { [unowned self] run in self.requestMirroring(run) }
        runs.mirroring = { [unowned self] in self.runs.run.flatMap { self.record($0.id) }.map(Self.reply) }
        runs.nothingToStop = "no run in progress on the phone; nothing saved"
        mirrorEvents.onEvent = { [unowned self] event in self.workoutEvent(event) }
        mirrorEvents.onDisconnect = { [unowned self] session in if self.mirror === session { self.mirror = nil } }
        healthStore.workoutSessionMirroringStartHandler = { [unowned self] session in self.mirrorStarted(session) }
    }

    var appleWatch: AppleWatchRow {
        AppleWatchRow(
            paired: session.isPaired, watchAppInstalled: session.isWatchAppInstalled,
            activated: session.isActivated)
    }

    // MARK: - The records

    /// The run's record (nil: none kept).
    func record(_ runID: String) -> PhoneRunHealth? {
        guard durable else { return volatileRecords[runID] }
        do { return try ledger.record(runID) } catch {
            logger.error("run.health-record-unreadable", ["runId": runID, "error": "\(error)"])
            return nil
        }
    }

    /// Keeps `record` (in the caller's transaction, if one is open).
    func keep(_ record: PhoneRunHealth) throws {
        guard durable else { return volatileRecords[record.runId] = record }
        try ledger.save(record)
    }

    /// The run's record changed by `change` and kept; the record, or nil if it could not be kept.
    @discardableResult
    func update(_ runID: String, startedAt: Double? = nil, _ change: (inout PhoneRunHealth) -> Void) -> PhoneRunHealth? {
        var record = record(runID) ?? PhoneRunHealth(runId: runID, startedAt: startedAt ?? runs.run.map(\.startedAt) ?? 0)
        let before = record
        change(&record)
        guard record != before || self.record(runID) == nil else { return record }
        do {
            try keep(record)
        } catch {
            logger.error("run.health-record-not-kept", ["runId": runID, "error": "\(error)"])
            return nil
        }
        if let why = record.takenBack, before.takenBack == nil {
            logger.notice("run.health-taken-back", ["runId": runID, "why": why])
        }
        return record
    }

    /// The records not settled (in memory: only this launch's).
    func unsettled() -> [PhoneRunHealth] {
        guard durable else { return volatileRecords.values.filter { !$0.isSettled }.sorted { $0.runId < $1.runId } }
        do { return try ledger.unsettled() } catch {
            logger.error("run.health-records-unreadable", ["error": "\(error)"])
            return []
        }
    }

    static func reply(_ record: PhoneRunHealth) -> RunMirroring {
        RunMirroring(
            requested: record.requested, assumedStarted: record.assumedStarted, state: record.mirroring,
            confirmedAt: record.confirmedAt.map { Timestamp.iso8601($0) }, failureReason: record.failureReason,
            healthSaver: record.saver.rawValue, takenBack: record.takenBack)
    }

    // MARK: - Mirroring

    /// `startWatchApp(toHandle:)`: called unconditionally when a watch is paired with the app installed,
    /// whatever the watch app's foreground state (#40); the system accepts it then, and sends
    /// `startWorkout` if the link is up. Pace mode without a watch is a phone-only run.
    private func requestMirroring(_ run: LiveRun) {
        guard appleWatch.ok else {
            // No watch to run it: the phone's to save, and nothing to tell the watch.
            update(run.id, startedAt: run.startedAt) { $0.watchDone = true }
            logger.notice("run.phone-only", ["runId": run.id, "appleWatch": appleWatch.label])
            return
        }
        startWatchAppCalls += 1
        // RunWay's belief: the request did not fail, so mirroring has started.
        update(run.id, startedAt: run.startedAt) { record in
            record.requested = true
            record.assumedStarted = true
            record.mirroring = MirroringState.requested.rawValue
        }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        var outcome = "ok"
        healthStore.startWatchApp(with: configuration) { success, error in
            if !success { outcome = (error as? HKError).map { "\($0.code)" } ?? "failed" }
        }
        logger.notice(
            "run.start-watch-app",
            [
                "runId": run.id, "accepted": true, "startWatchApp": outcome,
                "watchAppActive": session.isReachable,
            ])
        let runID = run.id
        _ = loop.schedule(afterMilliseconds: confirmTimeoutMilliseconds) { [weak self] in
            guard let self, self.runs.run?.id == runID, self.record(runID)?.mirroring == MirroringState.requested.rawValue else { return }
            guard let record = self.update(runID, { $0.mirroring = MirroringState.unconfirmed.rawValue }) else { return }
            self.logger.warning("run.mirroring-unconfirmed", ["runId": runID, "afterMs": self.confirmTimeoutMilliseconds])
            self.announce(record)
        }
    }

    /// `startWorkout` for the run the phone leads (its target), sent to the watch's mirrored session.
    private func startEvent(_ run: LiveRun) -> UserInfo {
        var event: UserInfo = [
            "kind": .string("startWorkout"), "runId": .string(run.id), "mode": .string(run.target.mode == .heartRate ? "heart-rate" : "pace"),
        ]
        switch run.target.mode {
        case .pace: event["targetPace"] = .real(run.target.paceSecondsPerKm)
        case .heartRate: event["zoneLow"] = .real(run.target.low); event["zoneHigh"] = .real(run.target.high)
        }
        return withVerdicts(event)
    }

    /// What the phone decided for the runs it stopped and the watch may still run: run id → whether the
    /// watch saves it. A phone before issue 51 (`--health volatile`) sends none.
    private func withVerdicts(_ event: UserInfo) -> UserInfo {
        guard durable else { return event }
        var event = event
        var verdicts: UserInfo = [:]
        for record in unsettled().suffix(50) {
            if let save = record.verdict { verdicts[record.runId] = .bool(save) }
        }
        event["verdicts"] = .dictionary(verdicts)
        return event
    }

    /// Sends a workout event to the watch as the mirrored session's data; false with no mirror.
    @discardableResult
    private func sendToWatch(_ event: UserInfo) -> Bool {
        guard let mirror else { return false }
        mirror.sendToRemoteWorkoutSession(data: Data(PropertyListCodec.encode(event))) { [logger] success, error in
            if !success {
                logger.warning("run.workout-event-not-sent", ["kind": event["kind"]?.stringValue ?? "?", "error": "\(error.map { "\($0)" } ?? "?")"])
            }
        }
        return true
    }

    /// The watch mirrors a session to the phone (`workoutSessionMirroringStartHandler`): the one it
    /// prepared for the phone's start — the phone names its run (`startWorkout`) — or one it ran already
    /// (after a restart of either app), to which the phone says which run it leads (`workoutSync`). Both
    /// carry the phone's verdicts on the runs it stopped.
    private func mirrorStarted(_ session: HKWorkoutSession) {
        mirror = session
        session.delegate = mirrorEvents
        if let run = runs.run, let current = record(run.id),
            current.mirroring == MirroringState.requested.rawValue || current.mirroring == MirroringState.unconfirmed.rawValue
        {
            sendToWatch(startEvent(run))
            logger.info("run.mirror-started", ["runId": run.id, "sent": "startWorkout"])
        } else {
            var event: UserInfo = ["kind": .string("workoutSync")]
            if let run = runs.run { event["runId"] = .string(run.id) }
            sendToWatch(withVerdicts(event))
            logger.info("run.mirror-started", ["runId": runs.run?.id ?? "none", "sent": "workoutSync"])
        }
    }

    func workoutEvent(_ event: UserInfo) {
        let runID = event["runId"]?.stringValue ?? ""
        let kind = event["kind"]?.stringValue ?? "?"
        guard let run = runs.run, run.id == runID else {
            return runNotLed(runID, kind: kind, event)
        }
        switch kind {
        case "workoutStarted", "workoutRunning":
            let before = record(runID)
            var moved = false
            guard let current = update(runID, { moved = $0.watchConfirmed(at: event["at"]?.doubleValue) }) else { return }
            if before?.mirroring != MirroringState.confirmed.rawValue {
                // A phone restarted during its run with no record of it (volatile) finds it here.
                if before == nil { logger.notice("run.mirroring-found", ["runId": runID]) }
                logger.notice("run.mirroring-confirmed", ["runId": runID, "healthSaver": current.saver.rawValue])
                announce(current)
            }
            if !moved, current.saver == .phone, current.takenBack != nil, durable {
                // The phone took the save back: the watch's copy ends unsaved (the phone's run goes on).
                sendToWatch(["kind": .string("stopWorkout"), "runId": .string(runID), "save": .bool(false)])
            }
        case "workoutFailed":
            let reason = event["reason"]?.stringValue ?? "unknown"
            guard let current = update(runID, { $0.watchFailed(reason) }) else { return }
            logger.warning("run.mirroring-failed", ["runId": runID, "reason": reason])
            announce(current)
        default:
            logger.info("run.workout-event-ignored", ["kind": kind, "runId": runID])
        }
    }

    /// The watch speaks of a run the phone does not run now (stopped, or before a restart with none kept).
    private func runNotLed(_ runID: String, kind: String, _ event: UserInfo) {
        guard durable, !runID.isEmpty else {
            logger.info("run.workout-event-ignored", ["kind": kind, "runId": runID])
            return
        }
        switch kind {
        case "workoutStarted", "workoutRunning":
            // The watch runs a run the phone stopped: the phone's verdict (a run it has no record of, the
            // watch's session recorded: the watch saves it).
            let save = record(runID).map { $0.saver == .watch } ?? true
            sendToWatch(["kind": .string("stopWorkout"), "runId": .string(runID), "save": .bool(save)])
            logger.notice("run.stop-workout", ["runId": runID, "save": save, "why": "the watch still runs it"])
        case "workoutFailed":
            guard record(runID) != nil else { return }
            if let after = update(runID, { $0.watchFailed(event["reason"]?.stringValue ?? "unknown") }), after.needsPhoneSave {
                savePhoneCopy(after)
            }
        default:
            logger.info("run.workout-event-ignored", ["kind": kind, "runId": runID])
        }
    }

    /// What the watch did with a phone-led run it ended (a userInfo, in the receive batch's transaction):
    /// saved it, ended it unsaved (the save is then the phone's), or knows nothing of it (an app installed
    /// again: the watch's Health store decides). A report of a run the phone never led is not its to keep.
    /// What follows (the phone's own save, a look-up) runs once the batch has committed.
    func watchReported(_ report: RunHealthReport) {
        guard durable, record(report.runId) != nil else {
            logger.info("run.watch-report-ignored", ["runId": report.runId, "saved": report.saved])
            return
        }
        update(report.runId) { record in
            if report.known { record.watchEnded(saved: report.saved) } else { record.watchForgot() }
        }
        logger.notice("run.watch-ended", ["runId": report.runId, "saved": report.saved, "known": report.known])
        _ = loop.schedule(afterMilliseconds: 0) { [weak self] in
            guard let self else { return }
            if let record = self.record(report.runId), record.needsPhoneSave { self.savePhoneCopy(record) }
            self.startLookups()
        }
    }

    private func announce(_ record: PhoneRunHealth) {
        var fields = (try? JSONValueEncoder().encode(Self.reply(record)))?.objectValue ?? [:]
        fields["event"] = .string("mirroring")
        fields["runId"] = .string(record.runId)
        onMirroringChange(.object(fields))
    }

    /// After the phone's stop committed: the watch is told what to do with its copy of the run — save it
    /// (the watch's save) or end it unsaved (the phone saved it). The `stopWorkout` is the mirrored
    /// session's data: with the link down it is delivered when it returns; to a mirror gone with its watch
    /// app, it is sent again, with the phone's other verdicts, on the next mirror.
    func finished(_ run: LiveRun) {
        guard durable else {
            // Before issue 51: a stop that says nothing (the watch saves), and the record forgotten.
            if record(run.id)?.requested == true || mirror != nil {
                let sent = sendToWatch(["kind": .string("stopWorkout"), "runId": .string(run.id)])
                logger.info("run.stop-workout", ["runId": run.id, "sent": sent, "linked": session.isReachable])
            }
            volatileRecords[run.id] = nil
            return
        }
        guard let verdict = record(run.id)?.verdict else { return }
        let sent = sendToWatch(["kind": .string("stopWorkout"), "runId": .string(run.id), "save": .bool(verdict)])
        logger.info("run.stop-workout", ["runId": run.id, "save": verdict, "sent": sent, "linked": session.isReachable])
        // No mirror (the watch app that ran it went, a new one runs): the watch app is asked directly.
        if !sent { askWatchApp() }
    }

    /// Asks the watch app itself, with a message (it is reachable: in the foreground, or running a
    /// workout), what became of the runs the phone stopped and has not heard of — telling it the verdict
    /// on each at the same time: it ends one it still runs as told and answers `saved` or `unsaved`, and
    /// `unknown` for a run it never had (an app installed again: the watch's Health store decides). A
    /// message reaches the app when no mirrored session does.
    func askWatchApp() {
        guard durable, session.isReachable, !askInFlight else { return }
        var verdicts: UserInfo = [:]
        for record in unsettled().suffix(50) {
            if let save = record.verdict { verdicts[record.runId] = .bool(save) }
        }
        guard !verdicts.isEmpty else { return }
        askInFlight = true
        logger.info("run.watch-asked", ["runs": verdicts.count])
        session.sendMessage(["type": .string(RunHealthQuery.messageType), "verdicts": .dictionary(verdicts)]) { [weak self] result in
            guard let self else { return }
            self.askInFlight = false
            guard case .success(let reply) = result else {
                if case .failure(let error) = result { self.logger.info("run.watch-ask-failed", ["error": "\(error)"]) }
                return
            }
            for (runID, answer) in RunHealthQuery.answers(reply) {
                guard self.record(runID) != nil else { continue }
                let after = self.update(runID) { record in
                    switch answer {
                    case .saved: record.watchEnded(saved: true)
                    case .unsaved: record.watchEnded(saved: false)
                    case .unknown: record.watchForgot()
                    case .running: break
                    }
                }
                self.logger.notice("run.watch-answered", ["runId": runID, "answer": answer.rawValue])
                if let after, after.needsPhoneSave { self.savePhoneCopy(after) }
            }
            self.startLookups()
        }
    }

    // MARK: - Taking the save back

    /// The watch's state changed: a watch app removed can no longer save the runs it was to save
    /// (`isWatchAppInstalled` false, the watch's system said so).
    func watchStateChanged() {
        guard durable, session.isActivated, session.isPaired, !session.isWatchAppInstalled else { return }
        for record in unsettled() where !record.watchDone {
            guard let changed = update(record.runId, { $0.watchAppRemoved() }) else { continue }
            logger.notice("run.watch-app-removed", ["runId": record.runId, "lookup": changed.lookupPending])
        }
        startLookups()
    }

    /// The runs whose watch app was removed before it said it saved them: the watch's Health store (read
    /// after the removal: nothing there can save them any more) says whether it has each; those it has not
    /// are the phone's to save (`HKSampleQuery`: the phone's HealthKit reads the watch's store).
    func startLookups() {
        guard durable, !lookupInFlight else { return }
        let pending = unsettled().filter(\.lookupPending).map(\.runId)
        guard !pending.isEmpty else { return }
        lookupInFlight = true
        if let lookupRetry { loop.cancel(lookupRetry) }
        lookupRetry = nil
        let box = UncheckedBox(self)
        let query = HKSampleQuery(
            sampleType: HKObjectType.workoutType(), predicate: HKQuery.predicateForObjects(withMetadataKey: HKMetadataKeyExternalUUID, allowedValues: pending),
            limit: HKObjectQueryNoLimit, sortDescriptors: nil
        ) { _, samples, error in
            // On the device's thread (HealthKit's handler here).
            let found = samples.map { Self.runIDs($0) }
            let failure = error.map { "\($0)" }
            box.value.lookedUp(pending, found, failure)
        }
        logger.info("run.health-lookup", ["runs": pending.count])
        healthStore.execute(query)
    }

    /// The runs `samples` stand for: each workout's `HKMetadataKeyExternalUUID`, and its uuid.
    private static func runIDs(_ samples: [HKSample]) -> Set<String> {
        var found = Set(samples.map { $0.uuid.uuidString.uppercased() })
        for sample in samples { if let id = sample.metadata?[HKMetadataKeyExternalUUID] as? String { found.insert(id.uppercased()) } }
        return found
    }

    private func lookedUp(_ runs: [String], _ found: Set<String>?, _ failure: String?) {
        lookupInFlight = false
        guard let found else {
            logger.warning("run.health-lookup-failed", ["error": failure ?? "?", "retryMs": 1000])
            lookupRetry = loop.schedule(afterMilliseconds: 1000) { [weak self] in
                self?.lookupRetry = nil
                self?.startLookups()
            }
            return
        }
        for runID in runs {
            guard let record = update(runID, { $0.lookedUp(foundOnWatch: found.contains(runID)) }) else { continue }
            logger.notice("run.health-looked-up", ["runId": runID, "found": found.contains(runID), "healthSaver": record.saver.rawValue])
            if record.needsPhoneSave { savePhoneCopy(record) }
        }
    }

    /// The phone saves a stopped run whose save it took back, and keeps that it did.
    func savePhoneCopy(_ record: PhoneRunHealth) {
        guard record.needsPhoneSave, let health, let end = record.stoppedAt else { return }
        do {
            try health.save(runID: record.runId, startedAt: record.startedAt, endedAt: end, durationSeconds: record.durationSeconds ?? 0)
            CrashPoint.hit("run.after-taken-back-save")
            update(record.runId) { $0.phoneSaved = true }
        } catch {
            logger.warning("run.health-save-failed", ["runId": record.runId, "error": "\(error)", "effect": "tried again at the next launch"])
        }
    }

    /// At launch: what an earlier run of the app left to do — a taken-back save not yet made, a look-up
    /// not yet answered.
    func resume() {
        guard durable else { return }
        for record in unsettled() where record.needsPhoneSave { savePhoneCopy(record) }
        startLookups()
    }

    /// Records whose Health save is not settled (`healthDecisionsPending` in status).
    var pendingCount: Int64 {
        guard durable else { return Int64(volatileRecords.values.filter { !$0.isSettled }.count) }
        return (try? ledger.unsettledCount()) ?? -1
    }

    // MARK: - Reconciling when the link returns

    private var wasReachable = false

    /// Each time the watch becomes reachable (the link is back, or the watch app came to the
    /// foreground), the phone says which run it leads — its run in progress, or none — in a
    /// `workoutSync` to the mirrored session, if there is one, with its verdicts on the runs it stopped:
    /// a watch still running a phone-led run the phone no longer has ends it as the verdict says. One item
    /// per return, not a stream (#52). A phone that restarted has no mirror: it says so when the watch
    /// mirrors its run again (`mirrorStarted`).
    func reachabilityChanged(_ reachable: Bool) {
        defer { wasReachable = reachable }
        guard reachable, !wasReachable else { return }
        var event: UserInfo = ["kind": .string("workoutSync")]
        if let run = runs.run { event["runId"] = .string(run.id) }
        let sent = sendToWatch(withVerdicts(event))
        logger.info("run.workout-sync", ["runId": runs.run?.id ?? "none", "sent": sent])
        askWatchApp()
    }
}

/// A value handed to a `@Sendable` closure that runs on the device's thread, where it lives.
private final class UncheckedBox<Value: AnyObject>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

// MARK: - Wiring

extension RunWayPhoneApp {
    /// The phone's live runs: the same engine as the watch's, saved by the phone (E.5).
    func setUpRuns() throws -> PhoneRunController {
        let runs = try RunCommands(database: database, now: context.deviceNow, behaviour: .fixed, logger: logger)
        let rule = options.healthRule
        let controller = PhoneRunController(
            runs: runs, session: session, loop: context.loop, logger: logger,
            confirmTimeoutMilliseconds: UInt64(options.mirroringConfirmTimeoutMilliseconds), ledger: RunHealthLedger(database: database),
            durable: rule != .volatile)
        // saveRunningData(): the guard is `startOrigin == .local`, i.e. "a run is in progress" (#53):
        // RunCommands.stop refuses when there is none, and says nothing was saved.
        runs.finish = { [unowned self] flight, _, reply in
            let result: RunViewModel.SaveResult
            do {
                result = try self.viewModel.saveIncomingWatchFlight(flight, origin: FlightStore.Origin(deviceID: self.session.deviceID))
            } catch {
                self.viewModel.didRollBack()
                throw error
            }
            reply.saved = "\(result)"
        }
        // Health (E.8, #28, issue 51): a run the watch confirmed it runs is the watch's to save, since its
        // session recorded it, unless the phone took the save back; the phone saves a run it ran alone (no
        // watch, the watch refused or never answered) — in the stop's transaction, with the record that
        // says so. `--health legacy` saves every run here too.
        let health = RunHealth(logger: logger)
        controller.health = health
        runs.saveToHealth = { [unowned controller] run, end in
            var record = controller.record(run.id) ?? PhoneRunHealth(runId: run.id, startedAt: run.startedAt)
            record.stoppedAt = end
            record.durationSeconds = run.flight(endingAt: end).durationSeconds
            if rule == .legacy || record.saver == .phone {
                try health.finish(run, at: end)
                if record.saver == .phone { record.phoneSaved = true }
            }
            try controller.keep(record)
        }
        if rule == .legacy {
            let published = viewModel.onFlightsSaved
            viewModel.onFlightsSaved = { flights in
                published?(flights)
                for stored in flights { health.saveAgain(stored.flight) }
            }
        }
        runs.onFinished = { [unowned self, unowned controller] _, run in
            self.viewModel.didCommit()
            controller.finished(run)
        }
        service.onReachabilityChange = { [unowned self, unowned controller] in controller.reachabilityChanged(self.session.isReachable) }
        service.onWatchStateChange = { [unowned controller] in controller.watchStateChanged() }
        service.onRunHealthReport = { [unowned controller] report in controller.watchReported(report) }
        controller.onMirroringChange = { [unowned self] event in
            for client in self.control.attachedClients { client.sendEvent(event) }
        }
        controller.resume()
        return controller
    }
}
