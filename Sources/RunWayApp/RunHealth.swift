import HealthKit
import Posix
import PropertyLists

/// Which device saves a run to Health (APP_SPEC E.8, #28).
package enum HealthSaveRule: String, CaseIterable, Sendable {
    /// Once, by the device whose workout session recorded it: the watch for its own runs and the runs
    /// it mirrors; the phone only for a run it ran alone.
    case once
    /// RunWay's double save (`phone-daemon --health legacy`): the phone also saves every run it saves
    /// to its logbook, the watch's included, so a mirrored or watch-only run is in Health twice.
    case legacy
    /// The phone before issue 51 (`phone-daemon --health volatile`): who saves a phone-led run kept in
    /// memory only and never taken back — a run saved nowhere when the watch app is removed after the
    /// watch confirmed it, twice when the phone restarts after the watch app died (#28 come back).
    case volatile
}

/// A run's workout, through HealthKit: an `HKWorkoutSession` with its `HKLiveWorkoutBuilder` while the
/// run is in progress, fed the run's samples, and `finishWorkout` when it ends, which saves one
/// `HKWorkout` to the device's Health store. The workout carries the run's id as
/// `HKMetadataKeyExternalUUID`, which names the workout: a finish repeated after a crash (saved, then
/// killed before the run was forgotten) is still one workout.
///
/// The runs the phone leads are mirrored to it (HealthKit's mirroring): the phone's `startWatchApp`
/// makes the watch prepare a session and mirror it (`mirrorForPhone`), the phone names its run in data
/// sent to that session, and RunWay's workout events go both ways as the mirrored session's data
/// (`sendToPhone`, `onPhoneEvent`).
final class RunHealth {
    private let store = HKHealthStore()
    private let logger: Logger
    private var session: HKWorkoutSession?
    private var builder: HKLiveWorkoutBuilder?
    private var runID: String?
    private var samplesAdded = 0
    private var recoveryDone = false
    /// A session prepared for the run the phone is about to name.
    private var prepared: (session: HKWorkoutSession, builder: HKLiveWorkoutBuilder)?
    /// The session mirrored to the phone, whose data carries RunWay's workout events.
    private(set) var mirrored: HKWorkoutSession?
    private let events = RemoteWorkoutEvents()
    /// A workout event the phone sent (`startWorkout`, `stopWorkout`, `workoutSync`).
    var onPhoneEvent: (UserInfo) -> Void {
        get { events.onEvent }
        set { events.onEvent = newValue }
    }

    init(logger: Logger) {
        self.logger = logger
        store.requestAuthorization(toShare: [HKObjectType.workoutType()], read: [HKQuantityType(.heartRate)]) { granted, error in
            if let error {
                logger.warning("health.authorization-failed", ["error": "\(error)"])
            } else if !granted {
                logger.warning("health.authorization-denied", [:])
            }
        }
    }

    private static var running: HKWorkoutConfiguration {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        return configuration
    }

    private func makeSession(_ configuration: HKWorkoutConfiguration) -> (session: HKWorkoutSession, builder: HKLiveWorkoutBuilder)? {
        guard let session = try? HKWorkoutSession(healthStore: store, configuration: configuration) else { return nil }
        let builder = session.associatedWorkoutBuilder()
        builder.dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
        return (session, builder)
    }

    /// The run began, or was found again at launch: its session starts at the run's start — the one
    /// prepared for the phone's start if there is one. A run the phone leads is mirrored to it.
    func began(_ run: LiveRun) {
        guard let (session, builder) = prepared ?? makeSession(Self.running) else { return }
        prepared = nil
        let start = Date(timeIntervalSince1970: run.startedAt)
        builder.beginCollection(withStart: start) { _, _ in }
        session.startActivity(with: start)
        self.session = session
        self.builder = builder
        runID = run.id
        samplesAdded = 0
        if run.startOrigin == .remote { mirror(session) }
        collect(run)
    }

    // MARK: - Mirroring to the phone

    /// The phone started the watch app for a workout (`handle(_ workoutConfiguration:)`): the session it
    /// will hear from is mirrored to it — the one running (a run in progress), else a new one, prepared
    /// for the run the phone names next.
    func mirrorForPhone(_ configuration: HKWorkoutConfiguration) {
        if let session { return mirror(session) }
        if prepared == nil {
            prepared = makeSession(configuration)
            prepared?.session.prepare()
        }
        if let prepared { mirror(prepared.session) }
    }

    private func mirror(_ session: HKWorkoutSession) {
        session.delegate = events
        session.startMirroringToCompanionDevice { [logger] success, error in
            if !success { logger.warning("health.mirroring-failed", ["error": "\(error.map { "\($0)" } ?? "?")"]) }
        }
        mirrored = session
    }

    /// Sends a workout event to the phone as the mirrored session's data: in order, and delivered when
    /// the link returns if it is down. False when no session is mirrored.
    @discardableResult
    func sendToPhone(_ event: UserInfo) -> Bool {
        guard let mirrored, mirrored.state != .ended else { return false }
        mirrored.sendToRemoteWorkoutSession(data: Data(PropertyListCodec.encode(event))) { [logger] success, error in
            if !success { logger.warning("workout.event-not-sent", ["kind": event["kind"]?.stringValue ?? "?", "error": "\(error.map { "\($0)" } ?? "?")"]) }
        }
        return true
    }

    /// The phone no longer needs the session (it was the watch's own run, answered busy).
    func stopMirroring() {
        guard let mirrored, mirrored.state != .ended else { return }
        mirrored.stopMirroringToCompanionDevice { _, _ in }
        self.mirrored = nil
    }

    /// The prepared session is not needed (the start was refused): it ends unsaved.
    func discardPrepared() {
        guard let prepared else { return }
        prepared.session.end()
        prepared.builder.discardWorkout()
        if mirrored === prepared.session { mirrored = nil }
        self.prepared = nil
    }

    /// At launch: the session the device's OS kept running while the app died, recovered
    /// (`recoverActiveWorkoutSession`) and fed the restored run's samples again; a fresh one if none was
    /// kept. With no run to restore, a session left running is ended unsaved.
    func recover(_ run: LiveRun?) {
        // Once a launch: at `handleActiveWorkoutRecovery` when watch-os relaunched the app for it, else
        // at the launch's end.
        guard !recoveryDone else { return }
        recoveryDone = true
        var recovered: HKWorkoutSession?
        store.recoverActiveWorkoutSession { session, error in
            recovered = session
            if let error { self.logger.warning("health.recover-failed", ["error": "\(error)"]) }
        }
        guard let run else {
            if let recovered {
                recovered.end()
                logger.notice("health.session-ended", ["reason": "no run to restore"])
            }
            return
        }
        guard let recovered, let start = recovered.startDate, abs(start.timeIntervalSince1970 - run.startedAt) < 0.001 else {
            recovered?.end()
            began(run)
            return
        }
        let builder = recovered.associatedWorkoutBuilder()
        builder.dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: recovered.workoutConfiguration)
        session = recovered
        self.builder = builder
        runID = run.id
        samplesAdded = 0
        // The phone's mirror of it went with the app: mirrored again, the phone says which run it leads.
        if run.startOrigin == .remote { mirror(recovered) }
        collect(run)
        logger.notice("health.session-recovered", ["runId": run.id, "samples": run.samples.count])
    }

    /// Hands the builder the run's samples it has not had: each one's heart rate, and the distance
    /// covered since the one before.
    func collect(_ run: LiveRun) {
        guard let builder, runID == run.id, samplesAdded < run.samples.count else { return }
        let heartRate = HKQuantityType(.heartRate), distance = HKQuantityType(.distanceWalkingRunning)
        let perMinute = HKUnit.count().unitDivided(by: .minute())
        var previous = samplesAdded > 0 ? run.samples[samplesAdded - 1] : nil
        var samples: [HKSample] = []
        for sample in run.samples[samplesAdded...] {
            let end = Date(timeIntervalSince1970: run.startedAt + Double(sample.time))
            let start = previous.map { Date(timeIntervalSince1970: run.startedAt + Double($0.time)) } ?? end
            if sample.heartRate > 0 {
                samples.append(
                    HKQuantitySample(type: heartRate, quantity: HKQuantity(unit: perMinute, doubleValue: Double(sample.heartRate)), start: end, end: end))
            }
            let metres = Double(sample.distance - (previous?.distance ?? 0))
            if metres > 0 {
                samples.append(HKQuantitySample(type: distance, quantity: HKQuantity(unit: .meter(), doubleValue: metres), start: start, end: end))
            }
            previous = sample
        }
        samplesAdded = run.samples.count
        builder.add(samples) { _, _ in }
    }

    /// The run ended at `end` (device time): the builder saves the workout, then the session ends.
    /// Throws when Health could not keep it, so the caller's transaction (which forgets the run) rolls
    /// back and the run can be stopped again.
    func finish(_ run: LiveRun, at end: Double) throws {
        if runID != run.id || builder == nil { began(run) }
        collect(run)
        guard let session, let builder else { throw HKError(.errorHealthDataUnavailable, message: "no workout session") }
        // A replayed run's samples run past the device's now: the workout ends at its last sample then.
        let last = run.startedAt + Double(run.samples.last?.time ?? 0)
        builder.endCollection(withEnd: Date(timeIntervalSince1970: max(end, last))) { _, _ in }
        builder.addMetadata([HKMetadataKeyExternalUUID: run.id]) { _, _ in }
        var failure: (any Error)?
        var saved: HKWorkout?
        builder.finishWorkout { workout, error in
            saved = workout
            failure = error
        }
        if let failure {
            // The session runs on: the run is not forgotten (the caller's transaction rolls back).
            throw failure
        }
        logger.notice("health.run-saved", ["runId": run.id, "uuid": saved?.uuid.uuidString ?? "?", "durationSeconds": Int(saved?.duration ?? 0)])
        // Saved, nothing told yet (issue 51's matrix: the phone has not heard).
        CrashPoint.hit("health.after-save")
        session.end()
        if mirrored === session { mirrored = nil }
        self.session = nil
        self.builder = nil
        runID = nil
    }

    /// Ends a session still running without saving anything (its run was forgotten unfinished, or the
    /// phone that leads it saves it).
    func discard() {
        guard let session, let builder else { return }
        session.end()
        if mirrored === session { mirrored = nil }
        builder.discardWorkout()
        self.session = nil
        self.builder = nil
        runID = nil
    }

    /// The phone took a run's save back after its stop (issue 51): its workout, saved on the phone, named by
    /// the run's id as the watch's would have been (one workout per run, whoever saves it).
    func save(runID: String, startedAt: Double, endedAt: Double, durationSeconds: Double) throws {
        let end = max(endedAt, startedAt)
        let workout = HKWorkout(
            activityType: .running, start: Date(timeIntervalSince1970: startedAt), end: Date(timeIntervalSince1970: end),
            duration: min(max(0, durationSeconds), end - startedAt), metadata: [HKMetadataKeyExternalUUID: runID])
        var failure: (any Error)?
        store.save(workout) { _, error in failure = error }
        if let failure { throw failure }
        logger.notice("health.run-saved", ["runId": runID, "uuid": workout.uuid.uuidString, "rule": "taken-back"])
    }

    /// RunWay's double save (`--health legacy`): a run the watch saves is saved again by the phone, as
    /// its own `HKWorkout` naming the same run, in the phone's Health store.
    func saveAgain(_ flight: Flight) {
        let start = Date(timeIntervalSince1970: flight.startedAt)
        let workout = HKWorkout(
            activityType: .running, start: start, end: Date(timeIntervalSince1970: max(flight.endedAt, flight.startedAt)),
            duration: min(flight.durationSeconds, max(0, flight.endedAt - flight.startedAt)), metadata: [HKMetadataKeyExternalUUID: flight.id])
        store.save(workout) { [logger] _, error in
            if let error {
                logger.warning("health.save-failed", ["runId": flight.id, "error": "\(error)"])
            } else {
                logger.notice("health.run-saved", ["runId": flight.id, "uuid": workout.uuid.uuidString, "rule": "legacy"])
            }
        }
    }
}

/// A workout session's delegate on either side of a mirror: the counterpart's workout events, decoded
/// (the phone's on the watch's primary session, the watch's on the phone's mirror), and the mirror's end.
final class RemoteWorkoutEvents: HKWorkoutSessionDelegate {
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
