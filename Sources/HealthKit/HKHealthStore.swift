import Connectivity
import Control
import OSServices
import AppHost
import Foundation
import PropertyLists

/// The app's access to its device's Health store (HealthKit's `HKHealthStore`). The store is the
/// device's OS's (`HOME/os.sqlite`): in the app's process when the device runs standalone, in phone-os
/// or watch-os otherwise (`runway phone health`, `runway watch health`). Completion handlers run on the
/// calling thread before the call returns (the OS answers at once).
open class HKHealthStore: NSObject, @unchecked Sendable {
    /// The app's channel to its OS and the device's thread.
    struct Backend {
        let channel: OSChannel
        /// Runs work on the device's thread and waits.
        let sync: (() throws -> Void) throws -> Void
    }

    /// The channel a unit test gave this store (nil: the device's).
    let fixed: Backend?

    public override init() {
        fixed = nil
        super.init()
        // On a device: its mirroring service listens from now on (a watch app answers a mirror whose
        // primary went with an earlier run of it), and the system's link comes up for HealthKit's traffic
        // whether or not the app activates a `WCSession` (issue 49: Apple's mirroring sample uses only
        // HealthKit). Nothing without a device (a unit test, a process started by hand).
        if DeviceHost.current != nil || DeviceEnvironment.value(DeviceEnvironment.home) != nil { _ = WorkoutMirroring.shared() }
    }

    /// A store over `channel` on the calling thread: for unit tests of an app without a device.
    init(channel: OSChannel) {
        fixed = Backend(channel: channel, sync: { try $0() })
        super.init()
    }

    var backend: Backend? {
        if let fixed { return fixed }
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment(), let channel = host.osChannel else { return nil }
        return Backend(channel: channel, sync: { body in try host.mailbox.sync { try body() } })
    }

    /// Whether this process is an app on a simulated device (HealthKit: whether the device has Health).
    open class func isHealthDataAvailable() -> Bool {
        DeviceHost.current != nil || DeviceEnvironment.value(DeviceEnvironment.home) != nil
    }

    /// The device's time now (the builder's and the session's dates).
    var deviceNow: Date {
        guard let backend else { return Date() }
        return Date(timeIntervalSince1970: backend.channel.deviceNow)
    }

    static func unavailable() -> HKError {
        HKError(.errorHealthDataUnavailable, message: "this process is not an app on a simulated device: no Health store")
    }

    /// Calls the OS with `request` on the device's thread; a failure becomes an `HKError`.
    func call<Request: OSRequest>(_ request: Request) -> Result<Request.Reply, HKError> {
        guard let backend else { return .failure(Self.unavailable()) }
        var result: Result<Request.Reply, HKError> = .failure(Self.unavailable())
        do {
            try backend.sync {
                do {
                    result = .success(try backend.channel.call(request))
                } catch let error as any OSRefusal {
                    result = .failure(HKError(.errorInvalidArgument, message: error.description))
                } catch let error as HKError {
                    result = .failure(error)
                }
            }
        } catch {
            result = .failure(HKError(.errorDatabaseInaccessible, message: "the device's Health store: \(error)"))
        }
        return result
    }

    // MARK: - Authorization

    /// The simulated user allows every type asked; the OS records what was allowed.
    open func requestAuthorization(
        toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?, completion: @escaping (Bool, (any Error)?) -> Void
    ) {
        let share = (typesToShare ?? []).map(\.identifier).sorted()
        let read = (typesToRead ?? []).map(\.identifier).sorted()
        switch call(
            HealthRequest.Authorize {
                $0.share = share
                $0.read = read
            })
        {
        case .success: completion(true, nil)
        case let .failure(error): completion(false, error)
        }
    }

    /// `requestAuthorization(toShare:read:completion:)`, as Swift's concurrency imports it.
    open func requestAuthorization(toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>) async throws {
        try await HKWorkoutBuilder.awaiting { done in requestAuthorization(toShare: typesToShare, read: typesToRead, completion: done) }
    }

    // MARK: - Saving

    /// Saves `object`: an `HKWorkout` is kept once per uuid (a second save of it succeeds and stores
    /// nothing). Other samples are not kept here: `errorInvalidArgument`.
    open func save(_ object: HKObject, withCompletion completion: @escaping (Bool, (any Error)?) -> Void) {
        guard let workout = object as? HKWorkout else {
            completion(false, HKError(.errorInvalidArgument, message: "only HKWorkout objects are kept in this Health store"))
            return
        }
        switch call(HealthRequest.Save { $0.workout = Self.item(workout) }) {
        case .success: completion(true, nil)
        case let .failure(error): completion(false, error)
        }
    }

    /// Saves each of `objects` in turn: the first failure ends it.
    open func save(_ objects: [HKObject], withCompletion completion: @escaping (Bool, (any Error)?) -> Void) {
        for object in objects {
            var failure: (any Error)?
            save(object) { _, error in failure = error }
            if let failure { return completion(false, failure) }
        }
        completion(true, nil)
    }

    /// `save(_:withCompletion:)`, as Swift's concurrency imports it.
    open func save(_ object: HKObject) async throws {
        try await HKWorkoutBuilder.awaiting { done in save(object, withCompletion: done) }
    }

    open func save(_ objects: [HKObject]) async throws {
        try await HKWorkoutBuilder.awaiting { done in save(objects, withCompletion: done) }
    }

    /// The workout as the OS keeps it: string metadata only.
    static func item(_ workout: HKWorkout) -> HealthWorkoutItem {
        var metadata: [String: String] = [:]
        for (key, value) in workout.metadata ?? [:] {
            switch value {
            case let text as String: metadata[key] = text
            case let number as Double: metadata[key] = String(number)
            case let number as Int: metadata[key] = String(number)
            case let flag as Bool: metadata[key] = flag ? "true" : "false"
            default: continue
            }
        }
        return HealthWorkoutItem(
            uuid: workout.uuid.uuidString.uppercased(), activityType: workout.workoutActivityType.name,
            startDate: workout.startDate.timeIntervalSince1970, endDate: workout.endDate.timeIntervalSince1970, duration: workout.duration,
            metadata: metadata)
    }

    /// A workout session started (`true`) or ended on this device. On the watch, while one runs, the app
    /// runs "with a high priority in the background": the phone sees it reachable, and watch-os keeps it
    /// alive past its background budget.
    /// The OS keeps the running session (`recording`; nil once it ended) for `recoverActiveWorkoutSession`.
    func workoutSession(running: Bool, recording: HealthSessionItem?) {
        if case .failure(let error) = call(HealthRequest.SetSession { $0.session = recording }) {
            DeviceHost.current?.logger.warning("health.session-not-kept", ["error": "\(error)"])
        }
        guard fixed == nil, let host = DeviceHost.current ?? DeviceHost.fromEnvironment(), host.configuration.role == .watch else { return }
        host.mailbox.sync { host.session?.setLocalWorkoutRunning(running) }
        AppLaunch.reportWorkout(running: running)
    }

    /// The running session's state changed (paused, resumed, stopped): the OS keeps it for
    /// `recoverActiveWorkoutSession`.
    func keepSession(_ item: HealthSessionItem) {
        if case .failure(let error) = call(HealthRequest.SetSession { $0.session = item }) {
            DeviceHost.current?.logger.warning("health.session-not-kept", ["error": "\(error)"])
        }
    }

    // MARK: - Queries

    /// Runs `query` (an `HKSampleQuery`; others are not simulated and find nothing): its handler is
    /// called once, on the device's thread, after this returns.
    open func execute(_ query: HKQuery) {
        guard let query = query as? HKSampleQuery else { return }
        run(query)
    }

    /// Stops `query`: its handler is not called after this.
    open func stop(_ query: HKQuery) { (query as? HKSampleQuery)?.stop() }

    // MARK: - Workouts across the pair

    /// The phone starts the watch app for a workout: the system sends the configuration to the watch
    /// (a `workout` frame, not the app's traffic), whose OS launches or wakes the watch app and hands it
    /// to its WatchKit delegate's `handle(_ workoutConfiguration:)`. Fails with
    /// `errorHealthDataUnavailable` when no watch is paired, the watch app is not installed, or the
    /// watch is out of reach (nothing is queued); `errorInvalidArgument` on a watch.
    open func startWatchApp(with workoutConfiguration: HKWorkoutConfiguration, completion: @escaping (Bool, (any Error)?) -> Void) {
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment(), fixed == nil else {
            completion(false, Self.unavailable())
            return
        }
        guard host.configuration.role == .phone else {
            completion(false, HKError(.errorInvalidArgument, message: "startWatchApp(with:completion:) is the phone's"))
            return
        }
        let event: [String: PropertyListValue] = [
            "kind": .string(Self.startWatchAppKind), "activityType": .integer(Int64(workoutConfiguration.activityType.rawValue)),
            "locationType": .integer(Int64(workoutConfiguration.locationType.rawValue)),
        ]
        let failure: String? = host.mailbox.sync {
            // The system's traffic, session or not: an app that never activated one gets it activated by
            // its system (the pairing read, the link up) — at once if it has launched.
            host.systemNeedsTheLink()
            guard let session = host.session, host.isPaired else { return "no watch is paired" }
            // Launching: the system's link is still coming up (the pairing is known, the watch not yet).
            guard session.activationState == .activated else { return "the watch is not reachable yet (the device's link is starting)" }
            guard session.isWatchAppInstalled else { return "the watch app is not installed" }
            return session.sendWorkoutEvent(event) ? nil : "the watch is not reachable (the link is down)"
        }
        if let failure {
            completion(false, HKError(.errorHealthDataUnavailable, message: "startWatchApp(with:completion:): \(failure)"))
        } else {
            completion(true, nil)
        }
    }

    /// `startWatchApp(with:completion:)`, as Swift's concurrency imports it.
    open func startWatchApp(toHandle workoutConfiguration: HKWorkoutConfiguration) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            startWatchApp(with: workoutConfiguration) { _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// The workout event's kind for `startWatchApp(with:completion:)` (for WatchKit, in this package).
    package static let startWatchAppKind = "startWatchApp"

    /// The configuration a `startWatchApp` event carries, or nil if `event` is not one.
    package static func workoutConfiguration(startWatchApp event: [String: PropertyListValue]) -> HKWorkoutConfiguration? {
        guard event["kind"]?.stringValue == startWatchAppKind else { return nil }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = event["activityType"]?.int64Value.flatMap { HKWorkoutActivityType(rawValue: UInt(max(0, $0))) } ?? .other
        configuration.locationType = event["locationType"]?.int64Value.flatMap { HKWorkoutSessionLocationType(rawValue: Int($0)) } ?? .unknown
        return configuration
    }

    /// Called, on the device's thread, with the phone's mirror of a session the watch started mirroring
    /// (`startMirroringToCompanionDevice`). Set it early: a mirror made before it is set is handed to it
    /// when it is.
    open var workoutSessionMirroringStartHandler: ((HKWorkoutSession) -> Void)? {
        didSet {
            guard workoutSessionMirroringStartHandler != nil, fixed == nil, let mirroring = WorkoutMirroring.shared() else { return }
            mirroring.onDevice { mirroring.handlerSet(on: self) }
        }
    }

    /// The session that was running when the app died (killed, jetsammed), kept by the device's OS: in
    /// the state it was in (running, paused, stopped) from its start, its builder collecting since then
    /// (the samples collected before are not kept: add them again). Nil when none was running. Call it
    /// from WatchKit's `handleActiveWorkoutRecovery()`: watch-os relaunches an app that died during its
    /// session for it.
    open func recoverActiveWorkoutSession(completion: @escaping (HKWorkoutSession?, (any Error)?) -> Void) {
        switch call(HealthRequest.Session()).map(\.session) {
        case .success(let item?): completion(HKWorkoutSession(recovering: item, healthStore: self), nil)
        case .success(nil): completion(nil, nil)
        case .failure(let error): completion(nil, error)
        }
    }

    /// `recoverActiveWorkoutSession(completion:)`, as Swift's concurrency imports it.
    open func recoverActiveWorkoutSession() async throws -> HKWorkoutSession? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HKWorkoutSession?, any Error>) in
            recoverActiveWorkoutSession { session, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: session) }
            }
        }
    }
}
