import Foundation
import HealthKit
import WatchKit

/// A watchOS workout manager as a running app writes it against HealthKit, unchanged: authorization,
/// a session with its live builder, pause and resume, the builder's statistics, and the finish that
/// saves the workout. Compiled in Swift 5 and 6 modes.
final class RunWorkoutManager: NSObject, HKWorkoutSessionDelegate, HKLiveWorkoutBuilderDelegate, @unchecked Sendable {
    let healthStore = HKHealthStore()
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?
    private(set) var states: [HKWorkoutSessionState] = []
    private(set) var heartRate: Double = 0
    private(set) var distanceMetres: Double = 0
    private(set) var events = 0
    private(set) var savedWorkout: HKWorkout?
    private(set) var lastError: Error?

    func requestAuthorization(completion: @escaping (Bool) -> Void) {
        let share: Set<HKSampleType> = [HKQuantityType.workoutType()]
        var read: Set<HKObjectType> = [HKObjectType.workoutType()]
        if let heartRate = HKObjectType.quantityType(forIdentifier: .heartRate) { read.insert(heartRate) }
        read.insert(HKQuantityType(.distanceWalkingRunning))
        healthStore.requestAuthorization(toShare: share, read: read) { granted, _ in completion(granted) }
    }

    func startWorkout(at start: Date) throws {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        let session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        builder.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
        session.delegate = self
        builder.delegate = self
        self.session = session
        self.builder = builder
        session.startActivity(with: start)
        builder.beginCollection(withStart: start) { _, error in self.lastError = error }
    }

    func record(heartRate bpm: Double, metres: Double, from start: Date, to end: Date) {
        let perMinute = HKUnit.count().unitDivided(by: HKUnit.minute())
        let samples: [HKSample] = [
            HKQuantitySample(type: HKQuantityType(.heartRate), quantity: HKQuantity(unit: perMinute, doubleValue: bpm), start: end, end: end),
            HKQuantitySample(
                type: HKQuantityType(.distanceWalkingRunning), quantity: HKQuantity(unit: .meter(), doubleValue: metres), start: start, end: end),
        ]
        builder?.add(samples) { _, _ in }
    }

    func endWorkout(at end: Date, completion: @escaping (HKWorkout?, Error?) -> Void) {
        session?.end()
        builder?.endCollection(withEnd: end) { _, _ in
            self.builder?.finishWorkout { workout, error in
                self.savedWorkout = workout
                self.lastError = error
                completion(workout, error)
            }
        }
    }

    var elapsedTime: TimeInterval { builder?.elapsedTime ?? 0 }

    // MARK: - HKWorkoutSessionDelegate

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date
    ) {
        states.append(toState)
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {
        lastError = error
    }

    // MARK: - Mirroring to the phone (watchOS 10)

    private(set) var fromPhone: [Data] = []

    func mirrorToPhone() async throws {
        try await session?.startMirroringToCompanionDevice()
    }

    func sendToPhone(_ data: Data) async throws {
        _ = try await session?.sendToRemoteWorkoutSession(data: data)
    }

    func sendToPhone(_ data: Data, completion: @escaping (Bool) -> Void) {
        session?.sendToRemoteWorkoutSession(data: data) { success, _ in completion(success) }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        fromPhone += data
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: Error?) {
        lastError = error
    }

    // MARK: - HKLiveWorkoutBuilderDelegate

    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {
        events += 1
    }

    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        for type in collectedTypes {
            guard let quantityType = type as? HKQuantityType, let statistics = workoutBuilder.statistics(for: quantityType) else { continue }
            switch quantityType {
            case HKQuantityType.quantityType(forIdentifier: .heartRate):
                let perMinute = HKUnit.count().unitDivided(by: HKUnit.minute())
                heartRate = statistics.mostRecentQuantity()?.doubleValue(for: perMinute) ?? 0
            case HKQuantityType.quantityType(forIdentifier: .distanceWalkingRunning):
                distanceMetres = statistics.sumQuantity()?.doubleValue(for: .meter()) ?? 0
            default:
                break
            }
        }
    }
}

/// The app's delegate starts the workout the phone started (`HKHealthStore.startWatchApp(with:)` on the
/// phone), as a watchOS workout app's does.
final class RunWorkoutAppDelegate: NSObject, WKApplicationDelegate {
    let manager = RunWorkoutManager()
    private(set) var started: [HKWorkoutActivityType] = []

    func handle(_ workoutConfiguration: HKWorkoutConfiguration) {
        started.append(workoutConfiguration.activityType)
        try? manager.startWorkout(at: Date())
    }
}

/// The phone's side, as an iOS 17 app writes it: the handler set at launch takes the watch's mirrored
/// session, the app starts the watch app for a workout, and sends and receives the session's data.
final class PhoneWorkoutMirror: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
    let healthStore = HKHealthStore()
    private(set) var mirrored: HKWorkoutSession?
    private(set) var received: [Data] = []
    private(set) var states: [HKWorkoutSessionState] = []

    override init() {
        super.init()
        healthStore.workoutSessionMirroringStartHandler = { [weak self] mirroredSession in
            guard let self else { return }
            self.mirrored = mirroredSession
            mirroredSession.delegate = self
        }
    }

    func startWatchWorkout() async throws {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        try await healthStore.startWatchApp(toHandle: configuration)
    }

    func send(_ data: Data) async throws {
        guard let mirrored, mirrored.type == .mirrored else { return }
        try await mirrored.sendToRemoteWorkoutSession(data: data)
    }

    func endFromPhone() { mirrored?.end() }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date
    ) {
        states.append(toState)
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: Error) {}

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        received += data
    }
}
