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
        runs.onRunningChanged = { running in if !running { health.discard() } }
        health.onPhoneEvent = { [unowned self] event in self.workoutEvent(event) }
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
    /// zoneLow, zoneHigh}`, `stopWorkout {runId}` or `workoutSync {runId?}`. The answers
    /// (`workoutStarted`, `workoutFailed`) go back the same way.
    func workoutEvent(_ event: UserInfo) {
        let runID = event["runId"]?.stringValue ?? ""
        switch event["kind"]?.stringValue {
        case "startWorkout":
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
                // whose stop was lost (a watch app in the background hears no `workoutSync`), so it ends.
                // The watch's own run keeps it busy.
                guard current.startOrigin == .remote else {
                    health.sendToPhone(["kind": .string("workoutFailed"), "runId": .string(runID), "reason": .string("busy (\(current.id))")])
                    health.stopMirroring()
                    return
                }
                logger.notice("workout.reconciled", ["runId": current.id, "phoneRun": runID, "action": "ended"])
                do { _ = try runs.end(id: current.id) } catch {
                    logger.warning("workout.stop-failed", ["runId": current.id, "error": "\(error)"])
                }
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
        case "stopWorkout":
            do {
                _ = try runs.end(id: runID)
            } catch {
                logger.warning("workout.stop-failed", ["runId": runID, "error": "\(error)"])
            }
        case "workoutSync":
            // The phone says which run it leads (none: no runId): when the link returned, or when it got a
            // mirror of a run after a restart. A phone-led run it no longer has ended while the link was
            // down or the phone was away: it ends here. The watch's own runs are never the phone's to end.
            guard let run = runs.run, run.startOrigin == .remote else { return }
            guard run.id != runID else {
                // The phone leads it still (perhaps restarted, knowing nothing of it): the watch runs it.
                health.sendToPhone(["kind": .string("workoutStarted"), "runId": .string(runID), "at": .date(run.startedAt)])
                return
            }
            logger.notice("workout.reconciled", ["runId": run.id, "phoneRun": runID.isEmpty ? "none" : runID, "action": "ended"])
            do {
                _ = try runs.end(id: run.id)
            } catch {
                logger.warning("workout.stop-failed", ["runId": run.id, "error": "\(error)"])
            }
        case let other:
            logger.info("workout.ignored", ["kind": other ?? "?"])
        }
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
