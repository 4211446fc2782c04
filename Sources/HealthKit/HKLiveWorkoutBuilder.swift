import Control
import Foundation
import OSServices

/// Told what a live builder collected (HealthKit's `HKLiveWorkoutBuilderDelegate`).
public protocol HKLiveWorkoutBuilderDelegate: AnyObject {
    func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>)
    func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder)
}

/// Where a live builder's samples come from (HealthKit's `HKLiveWorkoutDataSource`). The simulated
/// device has no sensors: the app adds the samples it records (`add(_:completion:)`); the types to
/// collect are kept as the app sets them.
open class HKLiveWorkoutDataSource: NSObject, @unchecked Sendable {
    open private(set) var typesToCollect: Set<HKQuantityType> = []

    public init(healthStore: HKHealthStore, workoutConfiguration configuration: HKWorkoutConfiguration?) {
        super.init()
        if configuration?.activityType == .running || configuration?.activityType == .walking {
            typesToCollect = [HKQuantityType(.heartRate), HKQuantityType(.distanceWalkingRunning)]
        } else if configuration?.activityType == .cycling {
            typesToCollect = [HKQuantityType(.heartRate), HKQuantityType(.distanceCycling)]
        } else {
            typesToCollect = [HKQuantityType(.heartRate)]
        }
    }

    open func enableCollection(for quantityType: HKQuantityType, predicate: NSPredicate?) { typesToCollect.insert(quantityType) }
    open func disableCollection(for quantityType: HKQuantityType) { typesToCollect.remove(quantityType) }
}

/// Builds a workout while its session runs (HealthKit's `HKLiveWorkoutBuilder`): begin, collect, end,
/// then `finishWorkout` saves one `HKWorkout` to the device's Health store. The elapsed time leaves
/// out the session's pauses.
open class HKLiveWorkoutBuilder: NSObject, @unchecked Sendable {
    open var dataSource: HKLiveWorkoutDataSource?
    open weak var delegate: (any HKLiveWorkoutBuilderDelegate)?
    public let workoutConfiguration: HKWorkoutConfiguration
    open private(set) weak var workoutSession: HKWorkoutSession?
    open private(set) var startDate: Date?
    open private(set) var endDate: Date?
    open private(set) var metadata: [String: Any] = [:]
    private let healthStore: HKHealthStore
    private var samples: [HKQuantitySample] = []
    private var pausedSeconds: TimeInterval = 0
    private var pausedAt: Date?
    private var finished = false

    init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, session: HKWorkoutSession) {
        self.healthStore = healthStore
        workoutConfiguration = configuration
        workoutSession = session
        super.init()
    }

    /// Active time so far: from the start to the end (or now), less the pauses.
    open var elapsedTime: TimeInterval {
        guard let startDate else { return 0 }
        let until = endDate ?? pausedAt ?? healthStore.deviceNow
        return max(0, until.timeIntervalSince(startDate) - pausedSeconds)
    }

    open func beginCollection(withStart start: Date, completion: @escaping (Bool, (any Error)?) -> Void) {
        guard startDate == nil else {
            completion(false, HKError(.errorInvalidArgument, message: "the builder has already begun collecting"))
            return
        }
        startDate = start
        completion(true, nil)
    }

    /// Adds samples the app recorded (the simulated watch has no sensors).
    open func add(_ samples: [HKSample], completion: @escaping (Bool, (any Error)?) -> Void) {
        guard startDate != nil, endDate == nil else {
            completion(false, HKError(.errorInvalidArgument, message: "samples are added between beginCollection and endCollection"))
            return
        }
        let quantities = samples.compactMap { $0 as? HKQuantitySample }
        self.samples += quantities
        completion(true, nil)
        if !quantities.isEmpty { delegate?.workoutBuilder(self, didCollectDataOf: Set(quantities.map(\.sampleType))) }
    }

    open func addMetadata(_ metadata: [String: Any], completion: @escaping (Bool, (any Error)?) -> Void) {
        self.metadata.merge(metadata) { $1 }
        completion(true, nil)
    }

    open func endCollection(withEnd end: Date, completion: @escaping (Bool, (any Error)?) -> Void) {
        guard let startDate, endDate == nil, end >= startDate else {
            completion(false, HKError(.errorInvalidArgument, message: "endCollection needs a begun collection and an end after its start"))
            return
        }
        if let pausedAt { pausedSeconds += max(0, end.timeIntervalSince(pausedAt)) }
        pausedAt = nil
        endDate = end
        completion(true, nil)
    }

    /// The statistics of `quantityType` over what was collected, or nil when nothing was.
    open func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        let matching = samples.filter { $0.sampleType == quantityType }
        guard let startDate, !matching.isEmpty else { return nil }
        return HKStatistics(quantityType: quantityType, startDate: startDate, endDate: endDate ?? healthStore.deviceNow, samples: matching)
    }

    /// Makes the workout and saves it to the device's Health store. Its uuid is the metadata's
    /// `HKMetadataKeyExternalUUID` when that is a UUID: a finish repeated after a crash saves one workout.
    open func finishWorkout(completion: @escaping (HKWorkout?, (any Error)?) -> Void) {
        guard let startDate, let endDate else {
            completion(nil, HKError(.errorInvalidArgument, message: "finishWorkout needs beginCollection and endCollection first"))
            return
        }
        guard !finished else {
            completion(nil, HKError(.errorInvalidArgument, message: "the workout is already finished"))
            return
        }
        let workout = HKWorkout(
            activityType: workoutConfiguration.activityType, start: startDate, end: endDate, duration: elapsedTime,
            uuid: HKWorkout.uuid(from: metadata), metadata: metadata)
        switch healthStore.call(HealthRequest.Save { $0.workout = HKHealthStore.item(workout) }) {
        case .success:
            finished = true
            completion(workout, nil)
        case let .failure(error):
            completion(nil, error)
        }
    }

    /// Forgets what was collected; nothing is saved.
    open func discardWorkout() {
        finished = true
    }

    /// The session paused or resumed: its pauses leave the elapsed time.
    func sessionChanged(to state: HKWorkoutSessionState, from previous: HKWorkoutSessionState, at date: Date) {
        if state == .paused {
            pausedAt = date
        } else if previous == .paused, let pausedAt {
            pausedSeconds += max(0, date.timeIntervalSince(pausedAt))
            self.pausedAt = nil
        }
        if state == .paused || previous == .paused { delegate?.workoutBuilderDidCollectEvent(self) }
    }
}
