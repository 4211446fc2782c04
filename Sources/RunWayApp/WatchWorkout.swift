import Control
import HealthKit
import JSONText
import Posix
import PropertyLists
import RunWayDomain

/// How the watch answers a phone-led start: as it should, or one of the two ways mirroring fails
/// (`runway watch fault workout-start refuse|ignore`), reproducing RunWay 1.3.2's open hole (#44).
enum WorkoutStartFault: String, Sendable {
    case none
    /// Answer `workoutFailed` (reason "refused").
    case refuse
    /// Answer nothing at all.
    case ignore
}

// MARK: - The watch's side of a run: its own, and the one the phone leads

extension RunWayWatchApp {
    func installRuns() {
        // A watch-only run is transferred through the durable outbox, like `record`; a run the phone
        // led is the phone's to save (E.5), so the watch ends it and transfers nothing.
        runs.finish = { [unowned self] flight, run, reply in
            guard run.startOrigin == .local else {
                // The user stopped the phone's run on the watch: saved here (its session recorded it), the
                // phone told, the answer kept (issue 51).
                try self.report(RunHealthReport(runId: run.id, saved: true))
                try self.ledger.keep(WatchRunOutcome(runId: run.id, saved: true, endedAt: self.context.deviceNow()))
                reply.transferred = false
                return
            }
            reply.transfer = try self.recorder.finish([flight]).last?.transferIdentifier
        }
        runs.canStart = { [unowned self] _ in
            self.session.isLocalAppInstalled ? nil : "the RunWay watch app is not installed on this watch (runway watch app install)"
        }
        runs.nothingToStop = "no run in progress on the watch; nothing saved"
        // Each run is a HealthKit workout session on the watch, which recorded it: its own runs and the
        // ones the phone leads. The running session keeps the app running (and reachable) in the
        // background; one restored after a restart runs again (HealthKit's recoverActiveWorkoutSession, at `handleActiveWorkoutRecovery` or at launch: `RunWayWatchApp.launch`). Its builder saves the workout when the
        // run ends (E.8, #28); a run forgotten otherwise (a replay the rules refused) ends it unsaved.
        let health = RunHealth(logger: logger)
        self.health = health
        runs.onStarted = { run in health.began(run) }
        runs.onSamples = { run in health.collect(run) }
        runs.saveToHealth = { run, end in try health.finish(run, at: end) }
        runs.discardFromHealth = { _ in health.discard() }
        runs.onRunningChanged = { running in if !running { health.discard() } }
        health.onPhoneEvent = { [unowned self] event in self.workoutEvent(event) }
        service.onRunHealthQuery = { [unowned self] verdicts in self.answerRunHealthQuery(verdicts) }
        if options.instrumentStream { scheduleInstrumentValues() }
    }

    /// The legacy stream (#52): every 3 s of real time, while a run is in progress and the phone is
    /// reachable, the live values as a message. The phone drops them all.
    func scheduleInstrumentValues() {
        _ = context.loop.schedule(afterMilliseconds: 3000) { [weak self] in
            guard let self else { return }
            if let run = self.runs.run, self.session.isReachable {
                let last = run.last
                self.session.sendMessage([
                    "type": .string("instrumentValues"), "runId": .string(run.id),
                    "pace": .real(Double(last?.pace ?? 0)), "heartRate": .real(Double(last?.heartRate ?? 0)),
                    "distance": .real(Double(last?.distance ?? 0)),
                ]) { _ in }
            }
            self.scheduleInstrumentValues()
        }
    }

    /// HealthKit's `startWatchApp(with:)` from the phone (WatchKit's `handle(_ workoutConfiguration:)`):
    /// the watch mirrors a session to the phone — the run in progress, else one prepared for the run the
    /// phone names next in a `startWorkout` (the mirrored session's data) — unless the fault `ignore`
    /// makes it answer nothing at all.
    func startedByPhone(_ configuration: HKWorkoutConfiguration) {
        logger.notice("workout.start-watch-app", ["fault": workoutStartFault.rawValue, "runInProgress": runs.run?.id ?? "none"])
        guard workoutStartFault != .ignore else { return }
        health.mirrorForPhone(configuration)
    }

    /// The phone's workout events, the mirrored session's data: `startWorkout {runId, mode, targetPace,
    /// zoneLow, zoneHigh, verdicts?}`, `stopWorkout {runId, save?}` or `workoutSync {runId?, verdicts?}`. The
    /// answers (`workoutStarted`, `workoutFailed`, `workoutRunning`) go back the same way; what the watch
    /// did with a run it ended goes as a userInfo (`RunHealthReport`: durable, whatever dies).
    ///
    /// Who saves a phone-led run is the phone's to say (issue 51): its stop says whether the watch saves
    /// it (`save`), and its start and sync carry what it decided for the runs it stopped (`verdicts`,
    /// run id → save). The watch never ends a phone-led run on its own guess: a run the phone does not
    /// lead and has no verdict for is reported (`workoutRunning`), and the phone answers with a stop. A
    /// phone from before issue 51 (`phone-daemon --health volatile`) sends neither: the watch then ends such
    /// a run and saves it, as it used to.
    func workoutEvent(_ event: UserInfo) {
        let runID = event["runId"]?.stringValue ?? ""
        let verdicts = Self.verdicts(event)
        switch event["kind"]?.stringValue {
        case "startWorkout":
            startPhoneWorkout(event, runID: runID, verdicts: verdicts)
        case "stopWorkout":
            let save = event["save"]?.boolValue ?? true
            if let run = runs.run, run.id == runID, run.startOrigin == .remote {
                endPhoneRun(run, save: save, phoneRun: nil)
            } else {
                answerFromLedger(runID)
            }
        case "workoutSync":
            syncPhoneWorkout(runID: runID, verdicts: verdicts)
        case let other:
            logger.info("workout.ignored", ["kind": other ?? "?"])
        }
    }

    /// `startWorkout`: the phone starts a run it leads (the same start again, the same answer); the
    /// watch's own run keeps it busy, a phone-led run whose stop was lost ends first.
    private func startPhoneWorkout(_ event: UserInfo, runID: String, verdicts: [String: Bool]?) {
        logger.notice("workout.start-requested", ["runId": runID, "fault": workoutStartFault.rawValue])
        switch workoutStartFault {
        case .ignore: return
        case .refuse:
            health.sendToPhone(["kind": .string("workoutFailed"), "runId": .string(runID), "reason": .string("refused")])
            health.discardPrepared()
            return
        case .none: break
        }
        if let current = runs.run {
            // The same start again (a second mirror of the same run): the same answer.
            if current.startOrigin == .remote, current.id == runID {
                health.sendToPhone(["kind": .string("workoutStarted"), "runId": .string(runID), "at": .date(current.startedAt)])
                return
            }
            // A phone leads one run at a time: a phone-led run other than the one it now starts is one
            // whose stop was lost (a watch app in the background hears no `workoutSync`), so it ends —
            // saved as the phone's verdict says (none: the phone has settled it without the watch).
            // The watch's own run keeps it busy.
            guard current.startOrigin == .remote else {
                health.sendToPhone(["kind": .string("workoutFailed"), "runId": .string(runID), "reason": .string("busy (\(current.id))")])
                health.stopMirroring()
                return
            }
            endPhoneRun(current, save: verdicts.map { $0[current.id] ?? false } ?? true, phoneRun: runID)
        }
        do {
            // The system brings the watch app to the foreground, then the app starts its session.
            try session.bringToForeground()
            // The phone's target, checked as a `run-start` request would be.
            let target = ControlCommands.RunStart {
                $0.mode = event["mode"]?.stringValue ?? "pace"
                $0.targetPace = event["targetPace"]?.doubleValue
                $0.zoneLow = event["zoneLow"]?.doubleValue
                $0.zoneHigh = event["zoneHigh"]?.doubleValue
            }
            guard FlightLimits.isFlightID(runID) else { throw ControlError.invalid("the run id is not an upper-case UUID") }
            try runs.start(try ControlCommands.RunStart(request: try target.request.validated(on: .watch)), origin: .remote, id: runID)
            health.sendToPhone(["kind": .string("workoutStarted"), "runId": .string(runID), "at": .date(context.deviceNow())])
        } catch {
            logger.warning("workout.start-failed", ["runId": runID, "error": "\(error)"])
            health.sendToPhone(["kind": .string("workoutFailed"), "runId": .string(runID), "reason": .string("\(error)")])
            health.discardPrepared()
        }
    }

    /// `workoutSync`: the phone says which run it leads; a phone-led run it no longer leads ends as its
    /// verdict says, or is reported for one.
    private func syncPhoneWorkout(runID: String, verdicts: [String: Bool]?) {
        // The phone says which run it leads (none: no runId): when the link returned, or when it got a
        // mirror of a run after a restart. The watch's own runs are never the phone's to end.
        guard let run = runs.run, run.startOrigin == .remote else { return }
        guard run.id != runID else {
            // The phone leads it still (perhaps restarted): the watch runs it.
            health.sendToPhone(["kind": .string("workoutStarted"), "runId": .string(runID), "at": .date(run.startedAt)])
            return
        }
        guard let verdicts else {
            // A phone from before issue 51: the run it no longer leads ends here, saved.
            endPhoneRun(run, save: true, phoneRun: runID)
            return
        }
        if let save = verdicts[run.id] {
            endPhoneRun(run, save: save, phoneRun: runID)
        } else {
            // No verdict for it: the phone says what to do once it hears of it.
            health.sendToPhone(["kind": .string("workoutRunning"), "runId": .string(run.id)])
            logger.notice("workout.reported", ["runId": run.id, "phoneRun": runID.isEmpty ? "none" : runID])
        }
    }

    /// The verdicts a phone's start or sync carries (nil: a phone from before issue 51 sent none).
    static func verdicts(_ event: UserInfo) -> [String: Bool]? {
        guard let table = event["verdicts"]?.dictionaryValue else { return nil }
        return table.compactMapValues(\.boolValue)
    }

    /// Ends the phone-led run `run` as the phone said: saved to Health (the watch's session recorded it) or
    /// not; the phone told (a queued userInfo) and the outcome kept, in the transaction that forgets the
    /// run. A watch app the system reports deleted saves nothing (`runway watch app uninstall` with no
    /// watch-os: its store is still there).
    func endPhoneRun(_ run: LiveRun, save asked: Bool, phoneRun: String?) {
        let save = asked && session.isLocalAppInstalled
        if let phoneRun { logger.notice("workout.reconciled", ["runId": run.id, "phoneRun": phoneRun.isEmpty ? "none" : phoneRun, "action": "ended"]) }
        do {
            _ = try runs.end(id: run.id, save: save) { [unowned self] run, end in
                // Not told (the session cannot queue): the phone's stop comes again, answered from the outcome kept.
                do { try self.report(RunHealthReport(runId: run.id, saved: save)) } catch {
                    self.logger.warning("workout.report-failed", ["runId": run.id, "error": "\(error)"])
                }
                try self.ledger.keep(WatchRunOutcome(runId: run.id, saved: save, endedAt: end))
            }
        } catch {
            logger.warning("workout.stop-failed", ["runId": run.id, "error": "\(error)"])
        }
    }

    /// A stop for a run the watch no longer runs: what it did with it, kept; or that it knows nothing of it
    /// (an app installed again since: the phone asks the watch's Health store then).
    func answerFromLedger(_ runID: String) {
        let outcome: WatchRunOutcome?
        do { outcome = try ledger.outcome(runID) } catch {
            logger.warning("workout.outcome-unreadable", ["runId": runID, "error": "\(error)"])
            return
        }
        do {
            try report(RunHealthReport(runId: runID, saved: outcome?.saved ?? false, known: outcome != nil))
        } catch {
            logger.warning("workout.report-failed", ["runId": runID, "error": "\(error)"])
        }
    }

    /// The phone asks what became of the runs it stopped, with its verdict on each: one the watch still
    /// runs ends as told; each is answered from the outcome kept, `unknown` if there is none.
    func answerRunHealthQuery(_ verdicts: [String: Bool]) -> UserInfo {
        var answers: [String: RunHealthQuery.Answer] = [:]
        for (runID, save) in verdicts.sorted(by: { $0.key < $1.key }) {
            if let run = runs.run, run.id == runID, run.startOrigin == .remote { endPhoneRun(run, save: save, phoneRun: nil) }
            if runs.run?.id == runID {
                answers[runID] = .running
            } else if let outcome = try? ledger.outcome(runID) {
                answers[runID] = outcome.saved ? .saved : .unsaved
            } else {
                answers[runID] = .unknown
            }
        }
        logger.notice("workout.asked-by-phone", ["runs": verdicts.count, "unknown": answers.values.filter { $0 == .unknown }.count])
        return RunHealthQuery.reply(answers)
    }

    /// Queues `report` for the phone (the session's durable queue: delivered whatever dies, but a removal).
    func report(_ report: RunHealthReport) throws {
        let transfer = try recorder.session.transferUserInfo(typed: [report.userInfo])
        logger.notice(
            "workout.reported-to-phone",
            ["runId": report.runId, "saved": report.saved, "known": report.known, "seq": transfer.first?.transferIdentifier ?? 0])
    }

    /// `workout-fault {mode: none|refuse|ignore}` (hidden: `runway watch fault workout-start`).
    func workoutFaultCommand(_ name: String) throws -> WorkoutFaultReply {
        // The catalogue allows only the three.
        guard let mode = WorkoutStartFault(rawValue: name) else {
            throw ControlError.invalid("the workout-start fault must be refuse, ignore or none")
        }
        workoutStartFault = mode
        logger.warning("fault.workout-start", ["mode": mode.rawValue])
        return WorkoutFaultReply(workoutStart: mode.rawValue)
    }
}
