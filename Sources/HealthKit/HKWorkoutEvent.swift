@_exported import Foundation

/// What happened during a workout, as HealthKit names it (`HKWorkoutEventType`, Apple's raw values).
public enum HKWorkoutEventType: Int, Sendable {
    case pause = 1
    case resume = 2
    case lap = 3
    case marker = 4
    case motionPaused = 5
    case motionResumed = 6
    case segment = 7
    case pauseOrResumeRequest = 8
}

/// An event of a workout session (HealthKit's `HKWorkoutEvent`): its type, when, and its metadata. The
/// session hands each to its delegate's `workoutSession(_:didGenerate:)` as it happens (here: a pause and a
/// resume of the session; the simulated watch has no motion sensor to pause on its own).
open class HKWorkoutEvent: NSObject, @unchecked Sendable {
    public let type: HKWorkoutEventType
    public let dateInterval: DateInterval
    public let metadata: [String: Any]?

    public init(type: HKWorkoutEventType, dateInterval: DateInterval, metadata: [String: Any]?) {
        self.type = type
        self.dateInterval = dateInterval
        self.metadata = metadata
        super.init()
    }

    /// The moment the event happened (its interval's start).
    open var date: Date { dateInterval.start }
}
