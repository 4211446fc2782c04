import Control
import Foundation

/// A workout session's state (HealthKit's `HKWorkoutSessionState`, Apple's raw values).
public enum HKWorkoutSessionState: Int, Sendable {
    case notStarted = 1
    case running = 2
    case ended = 3
    case paused = 4
    case prepared = 5
    case stopped = 6
}

/// Whether a session runs the workout (the watch's) or mirrors one (the phone's, from
/// `workoutSessionMirroringStartHandler`): HealthKit's `HKWorkoutSessionType`, Apple's raw values.
public enum HKWorkoutSessionType: Int, Sendable {
    case primary = 0
    case mirrored = 1
}

/// Told of a session's state changes and failures (HealthKit's `HKWorkoutSessionDelegate`). The two
/// remote-session calls are optional: the data the remote session sent, in order, and the end of
/// mirroring (`stopMirroringToCompanionDevice`, or the primary ended).
public protocol HKWorkoutSessionDelegate: AnyObject {
    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date)
    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error)
    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data])
    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
    /// "Tells the delegate that the session has generated a new event": a pause, a resume (optional).
    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent)
}

extension HKWorkoutSessionDelegate {
    public func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {}
    public func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {}
    public func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {}
}

/// A workout in progress (HealthKit's `HKWorkoutSession`): started, paused, resumed, ended, with its
/// live builder. State changes reach the delegate on the calling thread before the call returns.
///
/// On the watch, from `startActivity` until `end()` (paused included), the session keeps the app
/// running in the background: reachable to the phone, and kept alive by watch-os past its budget.
///
/// Mirroring (`WorkoutMirroring`): the watch's primary session, once `startMirroringToCompanionDevice`
/// is called, has a mirror on the phone (`.mirrored`, handed to `workoutSessionMirroringStartHandler`)
/// whose state follows the primary's; each side sends data to the other (`sendToRemoteWorkoutSession`),
/// delivered once and in order, across link cuts. A mirror's `pause()`, `resume()`, `stopActivity(with:)`
/// and `end()` are carried out by the primary, and the mirror follows. Remote calls reach the delegate on
/// the device's thread.
open class HKWorkoutSession: NSObject, @unchecked Sendable {
    public let workoutConfiguration: HKWorkoutConfiguration
    /// Data that arrived before a delegate was set is handed to the first one.
    open weak var delegate: (any HKWorkoutSessionDelegate)? {
        didSet {
            guard type == .mirrored, let mirroring = WorkoutMirroring.shared() else { return }
            mirroring.onDevice { deliverHeldData() }
        }
    }
    open private(set) var state: HKWorkoutSessionState = .notStarted
    /// `.primary`, or `.mirrored` for the phone's mirror of a watch's session.
    open private(set) var type: HKWorkoutSessionType = .primary
    open private(set) var startDate: Date?
    open private(set) var endDate: Date?
    let healthStore: HKHealthStore
    private var builder: HKLiveWorkoutBuilder?
    /// The mirrored session's id, shared by the primary and its mirror (nil: not mirrored).
    var mirrorID: String?
    private var heldData: [Data] = []

    public init(healthStore: HKHealthStore, configuration workoutConfiguration: HKWorkoutConfiguration) throws {
        self.healthStore = healthStore
        self.workoutConfiguration = workoutConfiguration
        super.init()
    }

    /// The session the device's OS kept running while the app died, as `recoverActiveWorkoutSession`
    /// hands it back: in the state it was in (running, paused or stopped) from its start, its builder
    /// collecting since then. The OS keeps it still: the app dying again recovers it again.
    init(recovering item: HealthSessionItem, healthStore: HKHealthStore) {
        self.healthStore = healthStore
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = HKWorkoutActivityType(name: item.activityType) ?? .other
        configuration.locationType = HKWorkoutSessionLocationType(rawValue: Int(item.locationType)) ?? .unknown
        workoutConfiguration = configuration
        super.init()
        let start = Date(timeIntervalSince1970: item.startDate)
        startDate = start
        state = item.state.flatMap { HKWorkoutSessionState(rawValue: Int($0)) }.flatMap { runningStates.contains($0) ? $0 : nil } ?? .running
        associatedWorkoutBuilder().beginCollection(withStart: start) { _, _ in }
        healthStore.workoutSession(running: true, recording: item)
    }

    /// The session as its OS keeps it while it runs, in `state`.
    private func recorded(in state: HKWorkoutSessionState) -> HealthSessionItem? {
        guard let startDate else { return nil }
        return HealthSessionItem(
            activityType: workoutConfiguration.activityType.name, locationType: Int64(workoutConfiguration.locationType.rawValue),
            startDate: startDate.timeIntervalSince1970, state: Int64(state.rawValue))
    }

    /// The phone's mirror of the watch's session `id`, as its start announced it.
    init(mirroring id: String, healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, state: HKWorkoutSessionState, startDate: Date) {
        self.healthStore = healthStore
        workoutConfiguration = configuration
        super.init()
        type = .mirrored
        mirrorID = id
        self.state = state
        self.startDate = startDate
    }

    /// The session's builder: the same one each call.
    open func associatedWorkoutBuilder() -> HKLiveWorkoutBuilder {
        if let builder { return builder }
        let made = HKLiveWorkoutBuilder(healthStore: healthStore, configuration: workoutConfiguration, session: self)
        builder = made
        return made
    }

    /// Running from `date` (now: nil). A device runs one workout session at a time: another session of the
    /// app still running (prepared, running, paused or stopped) hears `didFailWithError` with
    /// `errorAnotherWorkoutSessionStarted` and ends first.
    open func startActivity(with date: Date?) {
        guard type == .primary, state == .notStarted || state == .prepared else { return }
        Self.takeTheDevice(for: self)
        startDate = date ?? healthStore.deviceNow
        healthStore.workoutSession(running: true, recording: recorded(in: .running))
        move(to: .running, at: startDate!)
    }

    open func prepare() {
        guard type == .primary, state == .notStarted else { return }
        Self.takeTheDevice(for: self)
        move(to: .prepared, at: healthStore.deviceNow)
    }

    open func pause() {
        if type == .mirrored { return forward("pause") }
        guard state == .running else { return }
        let now = healthStore.deviceNow
        move(to: .paused, at: now)
        generate(.pause, at: now)
    }

    open func resume() {
        if type == .mirrored { return forward("resume") }
        guard state == .paused else { return }
        let now = healthStore.deviceNow
        move(to: .running, at: now)
        generate(.resume, at: now)
    }

    /// Tells the delegate of a workout event (HealthKit's `workoutSession(_:didGenerate:)`), after the
    /// state change it comes with.
    private func generate(_ type: HKWorkoutEventType, at date: Date) {
        delegate?.workoutSession(self, didGenerate: HKWorkoutEvent(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: nil))
    }

    // MARK: - One workout session at a time

    /// The primary session that holds the device now (prepared, running, paused or stopped), held weakly.
    private static let holder = SessionHolder()

    /// `session` starts (or prepares): the one that held the device hears the error and ends. HealthKit's
    /// `errorAnotherWorkoutSessionStarted`: "This error occurs whenever a second workout session is started.
    /// Apple Watch only runs one workout session at a time. … the original session receives this error
    /// message and then ends." The rule is the device's: a process on no simulated device (a unit test's,
    /// where Health is unavailable and tests run side by side) has no device to hold, so its sessions run alone.
    private static func takeTheDevice(for session: HKWorkoutSession) {
        guard HKHealthStore.isHealthDataAvailable() else { return }
        guard let previous = holder.replace(with: session), previous !== session, previous.state != .ended, previous.state != .notStarted
        else { return }
        previous.delegate?.workoutSession(
            previous, didFailWithError: HKError(.errorAnotherWorkoutSessionStarted, message: "another workout session started on this device"))
        previous.end()
    }

    open func stopActivity(with date: Date?) {
        if type == .mirrored { return forward("stop") }
        guard state == .running || state == .paused else { return }
        move(to: .stopped, at: date ?? healthStore.deviceNow)
    }

    /// Ends the session (from any state but ended).
    open func end() {
        if type == .mirrored { return forward("end") }
        guard state != .ended else { return }
        let now = healthStore.deviceNow
        endDate = now
        if runningStates.contains(state) { healthStore.workoutSession(running: false, recording: nil) }
        move(to: .ended, at: now)
    }

    /// The states in which the session keeps the app running.
    private let runningStates: Set<HKWorkoutSessionState> = [.running, .paused, .stopped]

    private func move(to next: HKWorkoutSessionState, at date: Date) {
        let previous = state
        state = next
        // Paused, resumed, stopped: the OS keeps the state it recovers the session in.
        if type == .primary, runningStates.contains(previous), runningStates.contains(next), previous != next, let item = recorded(in: next) {
            healthStore.keepSession(item)
        }
        builder?.sessionChanged(to: next, from: previous, at: date)
        delegate?.workoutSession(self, didChangeTo: next, from: previous, date: date)
        if mirrorID != nil, let mirroring = WorkoutMirroring.shared() {
            mirroring.onDevice { mirroring.primaryMoved(self, to: next, from: previous, at: date) }
        }
    }

    /// A mirror's control, for the primary to carry out.
    private func forward(_ command: String) {
        guard let mirroring = WorkoutMirroring.shared() else { return }
        mirroring.onDevice { mirroring.control(self, command) }
    }

    // MARK: - Mirroring

    /// Mirrors this (the watch's, primary) session to the phone: the phone's app gets its mirror through
    /// `workoutSessionMirroringStartHandler` now, or when the link returns (or its app next links).
    /// Fails with `errorInvalidArgument` on the phone, for a mirror or an ended session;
    /// `errorHealthDataUnavailable` without a paired phone or a device.
    open func startMirroringToCompanionDevice(completion: @escaping (Bool, (any Error)?) -> Void) {
        guard let mirroring = WorkoutMirroring.shared() else { return completion(false, HKHealthStore.unavailable()) }
        let error = mirroring.onDevice { mirroring.startMirroring(self) }
        completion(error == nil, error)
    }

    /// Ends the mirror: the phone's delegate hears `didDisconnectFromRemoteDeviceWithError(nil)` once
    /// what was sent before has arrived. Ending the primary does the same.
    open func stopMirroringToCompanionDevice(completion: @escaping (Bool, (any Error)?) -> Void) {
        guard let mirroring = WorkoutMirroring.shared() else { return completion(false, HKHealthStore.unavailable()) }
        let error = mirroring.onDevice { mirroring.stopMirroring(self) }
        completion(error == nil, error)
    }

    /// Sends `data` to the remote session (either way). Delivered once, in order; sent while the link is
    /// down, it is delivered when it returns. `completion` runs, on the device's thread, once the remote
    /// side has it. Fails with `errorInvalidArgument` when the session has no remote session (not
    /// mirrored, or mirroring stopped).
    open func sendToRemoteWorkoutSession(data: Data, completion: @escaping (Bool, (any Error)?) -> Void) {
        guard let mirroring = WorkoutMirroring.shared() else { return completion(false, HKHealthStore.unavailable()) }
        mirroring.onDevice { mirroring.send(data, from: self, completion: completion) }
    }

    /// `startMirroringToCompanionDevice(completion:)`, as Swift's concurrency imports it.
    open func startMirroringToCompanionDevice() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            startMirroringToCompanionDevice { _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// `stopMirroringToCompanionDevice(completion:)`, as Swift's concurrency imports it.
    open func stopMirroringToCompanionDevice() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            stopMirroringToCompanionDevice { _, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// `sendToRemoteWorkoutSession(data:completion:)`, as Swift's concurrency imports it: returns once the
    /// remote session has the data (`true`), throws HealthKit's error otherwise.
    @discardableResult
    open func sendToRemoteWorkoutSession(data: Data) async throws -> Bool {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            sendToRemoteWorkoutSession(data: data) { success, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
            }
        }
    }

    // MARK: - What the remote session did (on the device's thread)

    /// The primary moved (`from` as the primary saw it; the mirror says what it showed before).
    func remoteMoved(to next: HKWorkoutSessionState, at date: Date) {
        guard type == .mirrored, next != state else { return }
        let before = state
        state = next
        if next == .ended { endDate = date }
        delegate?.workoutSession(self, didChangeTo: next, from: before, date: date)
    }

    /// On the device's thread. What was held goes first, with this: a delegate set from another thread
    /// (an app's main actor) is seen here before the hand-over of what was held, posted to this thread,
    /// has run — and data that arrived later must not overtake it ("in the order that the local system
    /// received them").
    func remoteData(_ data: Data) {
        guard let delegate else { return heldData.append(data) }
        let batch = heldData + [data]
        heldData = []
        delegate.workoutSession(self, didReceiveDataFromRemoteWorkoutSession: batch)
    }

    func remoteDisconnected(_ error: (any Error)? = nil) {
        delegate?.workoutSession(self, didDisconnectFromRemoteDeviceWithError: error)
    }

    private func deliverHeldData() {
        guard let delegate, !heldData.isEmpty else { return }
        let held = heldData
        heldData = []
        delegate.workoutSession(self, didReceiveDataFromRemoteWorkoutSession: held)
    }
}

/// The session holding the device, weakly, behind a lock (sessions may be started from any thread).
private final class SessionHolder: @unchecked Sendable {
    private let lock = NSLock()
    private weak var session: HKWorkoutSession?

    /// Makes `next` the holder; returns the one before.
    func replace(with next: HKWorkoutSession) -> HKWorkoutSession? {
        lock.withLock {
            defer { session = next }
            return session
        }
    }
}
