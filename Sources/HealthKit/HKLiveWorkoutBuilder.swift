import Foundation

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
        var types: Set<HKQuantityType> = [HKQuantityType(.heartRate), HKQuantityType(.activeEnergyBurned)]
        switch configuration?.activityType {
        case .running?, .walking?, .hiking?:
            types.insert(HKQuantityType(.distanceWalkingRunning))
            types.insert(HKQuantityType(.stepCount))
        case .cycling?: types.insert(HKQuantityType(.distanceCycling))
        case .swimming?: types.insert(HKQuantityType(.distanceSwimming))
        case .wheelchairRunPace?, .wheelchairWalkPace?: types.insert(HKQuantityType(.distanceWheelchair))
        default: break
        }
        typesToCollect = types
    }

    open func enableCollection(for quantityType: HKQuantityType, predicate: NSPredicate?) { typesToCollect.insert(quantityType) }
    open func disableCollection(for quantityType: HKQuantityType) { typesToCollect.remove(quantityType) }
}

/// A workout session's builder (HealthKit's `HKLiveWorkoutBuilder`, a subclass of `HKWorkoutBuilder`):
/// the session's pauses and resumes become workout events (`shouldCollectWorkoutEvents`), which leave
/// the elapsed time, and its delegate hears what was collected.
open class HKLiveWorkoutBuilder: HKWorkoutBuilder, @unchecked Sendable {
    open var dataSource: HKLiveWorkoutDataSource?
    open weak var delegate: (any HKLiveWorkoutBuilderDelegate)?
    open private(set) weak var workoutSession: HKWorkoutSession?
    /// Whether the session's pauses and resumes are added as events (true, as HealthKit's default).
    open var shouldCollectWorkoutEvents = true

    init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, session: HKWorkoutSession) {
        workoutSession = session
        super.init(healthStore: healthStore, configuration: configuration, device: HKDevice.local())
    }

    /// Active time so far: `elapsedTime(at:)` the device's now.
    open var elapsedTime: TimeInterval { elapsedTime(at: healthStore.deviceNow) }

    override func didCollect(_ types: Set<HKSampleType>) { delegate?.workoutBuilder(self, didCollectDataOf: types) }
    override func didCollectEvents() { delegate?.workoutBuilderDidCollectEvent(self) }

    /// The session paused or resumed: an event at `date`.
    func sessionChanged(to state: HKWorkoutSessionState, from previous: HKWorkoutSessionState, at date: Date) {
        guard shouldCollectWorkoutEvents, startDate != nil, endDate == nil else { return }
        let type: HKWorkoutEventType? = state == .paused ? .pause : previous == .paused && state == .running ? .resume : nil
        guard let type else { return }
        addWorkoutEvents([HKWorkoutEvent(type: type, dateInterval: DateInterval(start: date, duration: 0), metadata: nil)]) { _, _ in }
    }
}
