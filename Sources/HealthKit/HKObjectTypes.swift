import Foundation

/// A type of health data (HealthKit's `HKObjectType`), named by its identifier: equal when the
/// identifiers are.
open class HKObjectType: NSObject, @unchecked Sendable {
    public let identifier: String

    init(identifier: String) {
        self.identifier = identifier
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool { (object as? HKObjectType)?.identifier == identifier }
    open override var hash: Int { identifier.hashValue }
    open override var description: String { identifier }

    /// The workout type (`HKWorkoutTypeIdentifier`).
    open class func workoutType() -> HKWorkoutType { HKWorkoutType(identifier: "HKWorkoutTypeIdentifier") }

    /// The quantity type of `identifier`.
    open class func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? { HKQuantityType(identifier) }
}

/// A type of sample (HealthKit's `HKSampleType`).
open class HKSampleType: HKObjectType, @unchecked Sendable {}

/// The workout type.
open class HKWorkoutType: HKSampleType, @unchecked Sendable {}

/// A quantity type: heart rate, distance. `aggregationStyle` says whether its samples add up
/// (cumulative: a distance) or are readings (discrete: a heart rate).
open class HKQuantityType: HKSampleType, @unchecked Sendable {
    public enum AggregationStyle: Int, Sendable { case cumulative = 0, discreteArithmetic = 1 }

    public init(_ identifier: HKQuantityTypeIdentifier) {
        super.init(identifier: identifier.rawValue)
    }

    open var aggregationStyle: AggregationStyle {
        identifier == HKQuantityTypeIdentifier.heartRate.rawValue ? .discreteArithmetic : .cumulative
    }

    /// Whether `unit` measures what this type measures.
    open func `is`(compatibleWith unit: HKUnit) -> Bool {
        switch identifier {
        case HKQuantityTypeIdentifier.heartRate.rawValue: unit.dimension == .frequency
        case HKQuantityTypeIdentifier.distanceWalkingRunning.rawValue, HKQuantityTypeIdentifier.distanceCycling.rawValue: unit.dimension == .length
        case HKQuantityTypeIdentifier.activeEnergyBurned.rawValue: unit.dimension == .energy
        default: false
        }
    }
}

/// The quantity types a workout app names.
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let heartRate = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierHeartRate")
    public static let distanceWalkingRunning = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning")
    public static let distanceCycling = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierDistanceCycling")
    public static let activeEnergyBurned = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")
}

/// A unit (HealthKit's `HKUnit`): the few a running app uses — count, count/min, meters, kilometres,
/// seconds, minutes, kilocalories.
open class HKUnit: NSObject, @unchecked Sendable {
    enum Dimension { case count, frequency, length, time, energy }

    public let unitString: String
    let dimension: Dimension
    /// The factor to the dimension's base (count, count/s, m, s, kcal).
    let factor: Double

    init(_ unitString: String, _ dimension: Dimension, _ factor: Double) {
        self.unitString = unitString
        self.dimension = dimension
        self.factor = factor
        super.init()
    }

    /// `count`, `count/min`, `count/s`, `m`, `km`, `s`, `min`, `kcal`.
    public convenience init(from string: String) {
        switch string {
        case "count/min": self.init("count/min", .frequency, 1 / 60)
        case "count/s": self.init("count/s", .frequency, 1)
        case "m": self.init("m", .length, 1)
        case "km": self.init("km", .length, 1000)
        case "s": self.init("s", .time, 1)
        case "min": self.init("min", .time, 60)
        case "kcal": self.init("kcal", .energy, 1)
        default: self.init("count", .count, 1)
        }
    }

    open class func count() -> HKUnit { HKUnit(from: "count") }
    open class func meter() -> HKUnit { HKUnit(from: "m") }
    open class func second() -> HKUnit { HKUnit(from: "s") }
    open class func minute() -> HKUnit { HKUnit(from: "min") }
    open class func kilocalorie() -> HKUnit { HKUnit(from: "kcal") }

    /// `count` divided by a time: a frequency (`count/min`).
    open func unitDivided(by unit: HKUnit) -> HKUnit {
        guard dimension == .count, unit.dimension == .time else { return self }
        return HKUnit("\(unitString)/\(unit.unitString)", .frequency, factor / unit.factor)
    }

    open override func isEqual(_ object: Any?) -> Bool { (object as? HKUnit)?.unitString == unitString }
    open override var hash: Int { unitString.hashValue }
    open override var description: String { unitString }
}

/// An amount in a unit (HealthKit's `HKQuantity`).
open class HKQuantity: NSObject, @unchecked Sendable {
    let unit: HKUnit
    let value: Double

    public init(unit: HKUnit, doubleValue value: Double) {
        self.unit = unit
        self.value = value
        super.init()
    }

    open func `is`(compatibleWith unit: HKUnit) -> Bool { unit.dimension == self.unit.dimension }

    /// The amount in `unit` (of the same dimension).
    open func doubleValue(for unit: HKUnit) -> Double { value * self.unit.factor / unit.factor }

    var baseValue: Double { value * unit.factor }
    open override var description: String { "\(value) \(unit.unitString)" }
}
