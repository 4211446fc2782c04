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

    struct Mirroring {
        var runID: String
        var requested = false
        var assumedStarted = false
        var state = MirroringState.notRequested
        var confirmedAt: Double?
        var failureReason: String?

        var reply: RunMirroring {
            RunMirroring(
                requested: requested, assumedStarted: assumedStarted, state: state.rawValue, confirmedAt: confirmedAt.map { Timestamp.iso8601($0) },
                failureReason: failureReason)
        }
    }

    let runs: RunCommands
    let session: AppSession
    let loop: EventLoop
    let logger: Logger
    let confirmTimeoutMilliseconds: UInt64
    private(set) var mirroring: Mirroring?
    /// Mirroring state changes, for attached UIs.
    var onMirroringChange: (JSONValue) -> Void = { _ in }
    /// Counts `startWatchApp(toHandle:)` calls (shown in status: it is called whatever the watch's state).
    private(set) var startWatchAppCalls = 0
    let healthStore = HKHealthStore()
    /// The watch's session as the phone mirrors it: the way RunWay's workout events go.
    private(set) var mirror: HKWorkoutSession?
    private let mirrorEvents = MirrorEvents()

    init(runs: RunCommands, session: AppSession, loop: EventLoop, logger: Logger, confirmTimeoutMilliseconds: UInt64) {
        self.runs = runs
        self.session = session
        self.loop = loop
        self.logger = logger
        self.confirmTimeoutMilliseconds = confirmTimeoutMilliseconds
        runs.canStart = { [unowned self] target in
            // The one rule (#42): heart-rate mode exactly when the APPLE WATCH row is ok.
            let row = self.appleWatch
            guard target.mode == .heartRate, !row.heartRateModeAvailable else { return nil }
            return "heart-rate mode needs the Apple Watch: \(row.label)"
        }
        runs.onStarted = { [unowned self] run in self.requestMirroring(run) }
        runs.mirroring = { [unowned self] in self.runs.run == nil ? nil : self.mirroring?.reply }
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

    // MARK: - Mirroring

    /// `startWatchApp(toHandle:)`: called unconditionally when a watch is paired with the app installed,
    /// whatever the watch app's foreground state (#40); the system accepts it then, and sends
    /// `startWorkout` if the link is up. Pace mode without a watch is a phone-only run.
    private func requestMirroring(_ run: LiveRun) {
        var state = Mirroring(runID: run.id)
        guard appleWatch.ok else {
            mirroring = state
            logger.notice("run.phone-only", ["runId": run.id, "appleWatch": appleWatch.label])
            return
        }
        startWatchAppCalls += 1
        state.requested = true
        // RunWay's belief: the request did not fail, so mirroring has started.
        state.assumedStarted = true
        state.state = .requested
        mirroring = state
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
            guard let self, var current = self.mirroring, current.runID == runID, current.state == .requested else { return }
            current.state = .unconfirmed
            self.mirroring = current
            self.logger.warning("run.mirroring-unconfirmed", ["runId": runID, "afterMs": self.confirmTimeoutMilliseconds])
            self.announce(current)
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
    /// (after a restart of either app), to which the phone says which run it leads (`workoutSync`).
    private func mirrorStarted(_ session: HKWorkoutSession) {
        mirror = session
        session.delegate = mirrorEvents
        if let current = mirroring, current.state == .requested || current.state == .unconfirmed, let run = runs.run, run.id == current.runID {
            sendToWatch(startEvent(run))
            logger.info("run.mirror-started", ["runId": run.id, "sent": "startWorkout"])
        } else {
            var event: UserInfo = ["kind": .string("workoutSync")]
            if let run = runs.run { event["runId"] = .string(run.id) }
            sendToWatch(event)
            logger.info("run.mirror-started", ["runId": runs.run?.id ?? "none", "sent": "workoutSync"])
        }
    }

    func workoutEvent(_ event: UserInfo) {
        let runID = event["runId"]?.stringValue ?? ""
        // A phone restarted during its run knows nothing of its mirroring; the watch, mirroring the run
        // to it again, says it runs it (`workoutStarted` answering the `workoutSync`): the watch records
        // it, and saves it to Health (E.8).
        if mirroring == nil, runs.run?.id == runID, event["kind"]?.stringValue == "workoutStarted" {
            mirroring = Mirroring(runID: runID, requested: true, assumedStarted: false, state: .requested)
            logger.notice("run.mirroring-found", ["runId": runID])
        }
        guard var current = mirroring, current.runID == runID, runs.run?.id == runID else {
            logger.info("run.workout-event-ignored", ["kind": event["kind"]?.stringValue ?? "?", "runId": runID])
            return
        }
        switch event["kind"]?.stringValue {
        case "workoutStarted":
            guard current.state != .confirmed else { return }
            current.state = .confirmed
            current.confirmedAt = event["at"]?.doubleValue
            logger.notice("run.mirroring-confirmed", ["runId": runID])
        case "workoutFailed":
            current.state = .failed
            current.failureReason = event["reason"]?.stringValue ?? "unknown"
            logger.warning("run.mirroring-failed", ["runId": runID, "reason": current.failureReason!])
        default:
            return
        }
        mirroring = current
        announce(current)
    }

    private func announce(_ mirroring: Mirroring) {
        var fields = (try? JSONValueEncoder().encode(mirroring.reply))?.objectValue ?? [:]
        fields["event"] = .string("mirroring")
        fields["runId"] = .string(mirroring.runID)
        onMirroringChange(.object(fields))
    }

    /// After the phone saved its run: the watch ends its session without transferring anything. The
    /// `stopWorkout` is the mirrored session's data: with the link down it is delivered when it returns.
    /// A phone restarted during the run has no mirroring state, but the watch mirrored the run to it
    /// again: the stop goes to that mirror too.
    func finished(_ run: LiveRun) {
        if mirroring?.requested == true || mirror != nil {
            let sent = sendToWatch(["kind": .string("stopWorkout"), "runId": .string(run.id)])
            logger.info("run.stop-workout", ["runId": run.id, "sent": sent, "linked": session.isReachable])
        }
        // resetWorkout(): the origin becomes nil, isRunning false.
        mirroring = nil
    }

    // MARK: - Reconciling when the link returns

    private var wasReachable = false

    /// Each time the watch becomes reachable (the link is back, or the watch app came to the
    /// foreground), the phone says which run it leads — its run in progress, or none — in a
    /// `workoutSync` to the mirrored session, if there is one: a watch still running a phone-led run the
    /// phone no longer has ends it. One item per return, not a stream (#52). A phone that restarted has
    /// no mirror: it says so when the watch mirrors its run again (`mirrorStarted`).
    func reachabilityChanged(_ reachable: Bool) {
        defer { wasReachable = reachable }
        guard reachable, !wasReachable else { return }
        var event: UserInfo = ["kind": .string("workoutSync")]
        if let run = runs.run { event["runId"] = .string(run.id) }
        let sent = sendToWatch(event)
        logger.info("run.workout-sync", ["runId": runs.run?.id ?? "none", "sent": sent])
    }
}

// MARK: - Wiring

extension RunWayPhoneApp {
    /// The phone's live runs: the same engine as the watch's, saved by the phone (E.5).
    func setUpRuns() throws -> PhoneRunController {
        let runs = try RunCommands(database: database, now: context.deviceNow, behaviour: .fixed, logger: logger)
        let controller = PhoneRunController(
            runs: runs, session: session, loop: context.loop, logger: logger,
            confirmTimeoutMilliseconds: UInt64(options.mirroringConfirmTimeoutMilliseconds))
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
        // Health (E.8, #28): a run the watch confirmed mirroring is the watch's to save, since its session
        // recorded it; the phone saves a run it ran alone (no watch, or the watch refused or never
        // answered). `--health legacy` saves every run here too.
        let health = RunHealth(logger: logger)
        let rule = options.healthRule
        runs.saveToHealth = { [unowned controller] run, end in
            guard rule == .legacy || controller.mirroring?.state != .confirmed else { return }
            try health.finish(run, at: end)
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
        controller.onMirroringChange = { [unowned self] event in
            for client in self.control.attachedClients { client.sendEvent(event) }
        }
        return controller
    }
}

/// The mirrored session's delegate on the phone: the watch's workout events, decoded.
private final class MirrorEvents: HKWorkoutSessionDelegate {
    var onEvent: (UserInfo) -> Void = { _ in }
    var onDisconnect: (HKWorkoutSession) -> Void = { _ in }

    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date) {}
    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {}
    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        for datum in data {
            guard let event = try? PropertyListCodec.decodeDictionary(Array(datum)), event["kind"]?.stringValue != nil else { continue }
            onEvent(event)
        }
    }
    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {
        onDisconnect(workoutSession)
    }
}
