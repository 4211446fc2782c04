import Foundation

/// The metadata key for an identifier the app gives a workout (HealthKit's `HKMetadataKeyExternalUUID`).
/// Here it also names the saved workout: a builder whose metadata carries a UUID under it makes the
/// `HKWorkout` with that `uuid`, so that a save repeated after a crash is one workout (docs/protocol.md).
public let HKMetadataKeyExternalUUID = "HKExternalUUID"

/// Something kept in the Health store (HealthKit's `HKObject`).
open class HKObject: NSObject, @unchecked Sendable {
    public let uuid: UUID
    public let metadata: [String: Any]?

    init(uuid: UUID, metadata: [String: Any]?) {
        self.uuid = uuid
        self.metadata = metadata
        super.init()
    }
}

/// A sample over an interval (HealthKit's `HKSample`).
open class HKSample: HKObject, @unchecked Sendable {
    public let sampleType: HKSampleType
    public let startDate: Date
    public let endDate: Date

    init(type: HKSampleType, start: Date, end: Date, uuid: UUID, metadata: [String: Any]?) {
        sampleType = type
        startDate = start
        endDate = end
        super.init(uuid: uuid, metadata: metadata)
    }
}

/// A quantity over an interval: a heart-rate reading, a distance covered (HealthKit's `HKQuantitySample`).
open class HKQuantitySample: HKSample, @unchecked Sendable {
    public let quantity: HKQuantity
    public var quantityType: HKQuantityType { sampleType as! HKQuantityType }

    public init(type: HKQuantityType, quantity: HKQuantity, start: Date, end: Date, metadata: [String: Any]? = nil) {
        self.quantity = quantity
        super.init(type: type, start: start, end: end, uuid: UUID(), metadata: metadata)
    }
}

/// What kind of workout (HealthKit's `HKWorkoutActivityType`, Apple's raw values).
public enum HKWorkoutActivityType: UInt, Sendable {
    case cycling = 13
    case running = 37
    case walking = 52
    case other = 3000

    /// The Health store's name for it.
    var name: String {
        switch self {
        case .cycling: "cycling"
        case .running: "running"
        case .walking: "walking"
        case .other: "other"
        }
    }

    init?(name: String) {
        switch name {
        case "cycling": self = .cycling
        case "running": self = .running
        case "walking": self = .walking
        case "other": self = .other
        default: return nil
        }
    }
}

/// A finished workout (HealthKit's `HKWorkout`).
open class HKWorkout: HKSample, @unchecked Sendable {
    public let workoutActivityType: HKWorkoutActivityType
    /// Active time: the interval less its pauses.
    public let duration: TimeInterval

    public init(
        activityType: HKWorkoutActivityType, start: Date, end: Date, duration: TimeInterval = 0, totalEnergyBurned: HKQuantity? = nil,
        totalDistance: HKQuantity? = nil, metadata: [String: Any]? = nil
    ) {
        workoutActivityType = activityType
        self.duration = duration > 0 ? duration : end.timeIntervalSince(start)
        super.init(type: HKObjectType.workoutType(), start: start, end: end, uuid: Self.uuid(from: metadata), metadata: metadata)
    }

    init(activityType: HKWorkoutActivityType, start: Date, end: Date, duration: TimeInterval, uuid: UUID, metadata: [String: Any]?) {
        workoutActivityType = activityType
        self.duration = duration
        super.init(type: HKObjectType.workoutType(), start: start, end: end, uuid: uuid, metadata: metadata)
    }

    /// The metadata's `HKMetadataKeyExternalUUID` when it is a UUID, else a new one.
    static func uuid(from metadata: [String: Any]?) -> UUID {
        (metadata?[HKMetadataKeyExternalUUID] as? String).flatMap(UUID.init(uuidString:)) ?? UUID()
    }
}

/// The statistics of one quantity type over a workout (HealthKit's `HKStatistics`): the sum for a
/// cumulative type, the average, minimum, maximum and most recent for a discrete one.
open class HKStatistics: NSObject, @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let startDate: Date
    public let endDate: Date
    private let samples: [HKQuantitySample]

    init(quantityType: HKQuantityType, startDate: Date, endDate: Date, samples: [HKQuantitySample]) {
        self.quantityType = quantityType
        self.startDate = startDate
        self.endDate = endDate
        self.samples = samples
        super.init()
    }

    private var unit: HKUnit? { samples.first?.quantity.unit }
    private func quantity(_ base: Double?) -> HKQuantity? {
        guard let base, let unit else { return nil }
        return HKQuantity(unit: unit, doubleValue: base / unit.factor)
    }

    open func sumQuantity() -> HKQuantity? {
        guard quantityType.aggregationStyle == .cumulative, !samples.isEmpty else { return nil }
        return quantity(samples.reduce(0) { $0 + $1.quantity.baseValue })
    }
    open func averageQuantity() -> HKQuantity? {
        guard quantityType.aggregationStyle == .discreteArithmetic, !samples.isEmpty else { return nil }
        return quantity(samples.reduce(0) { $0 + $1.quantity.baseValue } / Double(samples.count))
    }
    open func minimumQuantity() -> HKQuantity? { quantity(samples.map(\.quantity.baseValue).min()) }
    open func maximumQuantity() -> HKQuantity? { quantity(samples.map(\.quantity.baseValue).max()) }
    open func mostRecentQuantity() -> HKQuantity? { quantity(samples.max { $0.endDate < $1.endDate }?.quantity.baseValue) }
}

/// Where a workout happens.
public enum HKWorkoutSessionLocationType: Int, Sendable {
    case unknown = 1
    case indoor = 2
    case outdoor = 3
}

/// What a workout session is for (HealthKit's `HKWorkoutConfiguration`).
open class HKWorkoutConfiguration: NSObject, @unchecked Sendable {
    open var activityType: HKWorkoutActivityType = .other
    open var locationType: HKWorkoutSessionLocationType = .unknown
    public override init() { super.init() }
}
