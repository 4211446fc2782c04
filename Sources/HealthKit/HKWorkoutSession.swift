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

/// Told of a session's state changes and failures (HealthKit's `HKWorkoutSessionDelegate`). The two
/// remote-session calls are optional (mirroring is not simulated: they are never made).
public protocol HKWorkoutSessionDelegate: AnyObject {
    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date)
    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error)
    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data])
    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
}

extension HKWorkoutSessionDelegate {
    public func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {}
    public func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {}
}

/// A workout in progress (HealthKit's `HKWorkoutSession`): started, paused, resumed, ended, with its
/// live builder. State changes reach the delegate on the calling thread before the call returns.
///
/// On the watch, from `startActivity` until `end()` (paused included), the session keeps the app
/// running in the background: reachable to the phone, and kept alive by watch-os past its budget. Not
/// simulated here: mirroring to the companion device and remote data fail with
/// `errorHealthDataUnavailable` (docs/your-app.md).
open class HKWorkoutSession: NSObject, @unchecked Sendable {
    public let workoutConfiguration: HKWorkoutConfiguration
    open weak var delegate: (any HKWorkoutSessionDelegate)?
    open private(set) var state: HKWorkoutSessionState = .notStarted
    open private(set) var startDate: Date?
    open private(set) var endDate: Date?
    let healthStore: HKHealthStore
    private var builder: HKLiveWorkoutBuilder?

    public init(healthStore: HKHealthStore, configuration workoutConfiguration: HKWorkoutConfiguration) throws {
        self.healthStore = healthStore
        self.workoutConfiguration = workoutConfiguration
        super.init()
    }

    /// The session the device's OS kept running while the app died, as `recoverActiveWorkoutSession`
    /// hands it back: running from its start, its builder collecting since then.
    init(recovering item: HealthSessionItem, healthStore: HKHealthStore) {
        self.healthStore = healthStore
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = HKWorkoutActivityType(name: item.activityType) ?? .other
        configuration.locationType = HKWorkoutSessionLocationType(rawValue: Int(item.locationType)) ?? .unknown
        workoutConfiguration = configuration
        super.init()
        let start = Date(timeIntervalSince1970: item.startDate)
        startDate = start
        state = .running
        associatedWorkoutBuilder().beginCollection(withStart: start) { _, _ in }
        healthStore.workoutSession(running: true, recording: nil)
    }

    /// The session's builder: the same one each call.
    open func associatedWorkoutBuilder() -> HKLiveWorkoutBuilder {
        if let builder { return builder }
        let made = HKLiveWorkoutBuilder(healthStore: healthStore, configuration: workoutConfiguration, session: self)
        builder = made
        return made
    }

    /// Running from `date` (now: nil).
    open func startActivity(with date: Date?) {
        guard state == .notStarted || state == .prepared else { return }
        startDate = date ?? healthStore.deviceNow
        healthStore.workoutSession(
            running: true,
            recording: HealthSessionItem(
                activityType: workoutConfiguration.activityType.name, locationType: Int64(workoutConfiguration.locationType.rawValue),
                startDate: startDate!.timeIntervalSince1970))
        move(to: .running, at: startDate!)
    }

    open func prepare() {
        guard state == .notStarted else { return }
        move(to: .prepared, at: healthStore.deviceNow)
    }

    open func pause() {
        guard state == .running else { return }
        move(to: .paused, at: healthStore.deviceNow)
    }

    open func resume() {
        guard state == .paused else { return }
        move(to: .running, at: healthStore.deviceNow)
    }

    open func stopActivity(with date: Date?) {
        guard state == .running || state == .paused else { return }
        move(to: .stopped, at: date ?? healthStore.deviceNow)
    }

    /// Ends the session (from any state but ended).
    open func end() {
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
        builder?.sessionChanged(to: next, from: previous, at: date)
        delegate?.workoutSession(self, didChangeTo: next, from: previous, date: date)
    }

    // MARK: - Mirroring (not simulated yet)

    open func startMirroringToCompanionDevice(completion: @escaping (Bool, (any Error)?) -> Void) {
        completion(false, HKError.notSimulated("startMirroringToCompanionDevice(completion:)"))
    }

    open func stopMirroringToCompanionDevice(completion: @escaping (Bool, (any Error)?) -> Void) {
        completion(false, HKError.notSimulated("stopMirroringToCompanionDevice(completion:)"))
    }

    open func sendToRemoteWorkoutSession(data: Data, completion: @escaping (Bool, (any Error)?) -> Void) {
        completion(false, HKError.notSimulated("sendToRemoteWorkoutSession(data:completion:)"))
    }
}
