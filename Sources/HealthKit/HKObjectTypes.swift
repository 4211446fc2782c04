import Foundation

/// A type of health data (HealthKit's `HKObjectType`), named by its identifier: equal when the
/// identifiers are. Archivable and copyable, as Apple's.
open class HKObjectType: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public let identifier: String

    init(identifier: String) {
        self.identifier = identifier
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool { (object as? HKObjectType)?.identifier == identifier }
    open override var hash: Int { identifier.hashValue }
    open override var description: String { identifier }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) { coder.encode(identifier, forKey: "HKObjectTypeIdentifier") }

    public required init?(coder: NSCoder) {
        guard let identifier = coder.decodeObject(of: NSString.self, forKey: "HKObjectTypeIdentifier") as String? else { return nil }
        self.identifier = identifier
        super.init()
    }

    /// The workout type (`HKWorkoutTypeIdentifier`).
    open class func workoutType() -> HKWorkoutType { HKWorkoutType(identifier: "HKWorkoutTypeIdentifier") }

    /// The activity-summary type (the rings: `HKActivitySummaryTypeIdentifier`), which a workout app asks
    /// to read. No summaries are kept here.
    open class func activitySummaryType() -> HKActivitySummaryType { HKActivitySummaryType(identifier: "HKActivitySummaryTypeIdentifier") }

    /// The quantity type of `identifier`.
    open class func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? { HKQuantityType(identifier) }

    /// The characteristic type of `identifier`.
    open class func characteristicType(forIdentifier identifier: HKCharacteristicTypeIdentifier) -> HKCharacteristicType? {
        HKCharacteristicType(identifier)
    }
}

/// A type of sample (HealthKit's `HKSampleType`).
open class HKSampleType: HKObjectType, @unchecked Sendable {}

/// The workout type.
open class HKWorkoutType: HKSampleType, @unchecked Sendable {}

/// The activity-summary type (HealthKit's `HKActivitySummaryType`).
open class HKActivitySummaryType: HKObjectType, @unchecked Sendable {}

/// A characteristic type (HealthKit's `HKCharacteristicType`): what does not change from sample to sample —
/// date of birth, biological sex, the activity move mode — which a workout app asks to read (Apple's
/// mirroring sample reads the move mode). No characteristics are kept here: the type is named and
/// authorized, as any other.
open class HKCharacteristicType: HKObjectType, @unchecked Sendable {
    public init(_ identifier: HKCharacteristicTypeIdentifier) { super.init(identifier: identifier.rawValue) }

    public required init?(coder: NSCoder) { super.init(coder: coder) }
}

/// The characteristics HealthKit names (HealthKit's `HKCharacteristicTypeIdentifier`), with Apple's raw values.
public struct HKCharacteristicTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let biologicalSex = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierBiologicalSex")
    public static let bloodType = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierBloodType")
    public static let dateOfBirth = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierDateOfBirth")
    public static let fitzpatrickSkinType = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierFitzpatrickSkinType")
    public static let wheelchairUse = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierWheelchairUse")
    public static let activityMoveMode = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierActivityMoveMode")
}

/// A quantity type: heart rate, distance, energy. `aggregationStyle` says whether its samples add up
/// (cumulative: a distance) or are readings (discrete: a heart rate), as HealthKit's documentation of
/// each identifier says.
open class HKQuantityType: HKSampleType, @unchecked Sendable {
    /// Apple's raw values.
    public enum AggregationStyle: Int, Sendable {
        case cumulative = 0
        case discreteArithmetic = 1
        case discreteTemporallyWeighted = 2
        case discreteEquivalentContinuousLevel = 3
    }

    public init(_ identifier: HKQuantityTypeIdentifier) {
        super.init(identifier: identifier.rawValue)
    }

    public required init?(coder: NSCoder) { super.init(coder: coder) }

    open var aggregationStyle: AggregationStyle { HKQuantityTypeIdentifier.known[identifier]?.style ?? .discreteArithmetic }

    /// Whether `unit` measures what this type measures (an identifier not listed here: any unit).
    open func `is`(compatibleWith unit: HKUnit) -> Bool {
        guard let canonical = HKQuantityTypeIdentifier.known[identifier]?.unit else { return true }
        return HKUnit(from: canonical).dimension == unit.dimension
    }
}

/// The quantity types running and fitness apps name (HealthKit's `HKQuantityTypeIdentifier`).
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    private static func named(_ name: String) -> HKQuantityTypeIdentifier { HKQuantityTypeIdentifier("HKQuantityTypeIdentifier" + name) }

    // Activity
    public static let stepCount = named("StepCount")
    public static let distanceWalkingRunning = named("DistanceWalkingRunning")
    public static let distanceCycling = named("DistanceCycling")
    public static let distanceSwimming = named("DistanceSwimming")
    public static let distanceWheelchair = named("DistanceWheelchair")
    public static let distanceDownhillSnowSports = named("DistanceDownhillSnowSports")
    public static let distanceCrossCountrySkiing = named("DistanceCrossCountrySkiing")
    public static let distancePaddleSports = named("DistancePaddleSports")
    public static let distanceRowing = named("DistanceRowing")
    public static let distanceSkatingSports = named("DistanceSkatingSports")
    public static let pushCount = named("PushCount")
    public static let swimmingStrokeCount = named("SwimmingStrokeCount")
    public static let flightsClimbed = named("FlightsClimbed")
    public static let activeEnergyBurned = named("ActiveEnergyBurned")
    public static let basalEnergyBurned = named("BasalEnergyBurned")
    public static let appleExerciseTime = named("AppleExerciseTime")
    public static let appleMoveTime = named("AppleMoveTime")
    public static let appleStandTime = named("AppleStandTime")
    public static let physicalEffort = named("PhysicalEffort")
    public static let vo2Max = named("VO2Max")
    // Running and cycling
    public static let runningSpeed = named("RunningSpeed")
    public static let runningPower = named("RunningPower")
    public static let runningStrideLength = named("RunningStrideLength")
    public static let runningVerticalOscillation = named("RunningVerticalOscillation")
    public static let runningGroundContactTime = named("RunningGroundContactTime")
    public static let cyclingSpeed = named("CyclingSpeed")
    public static let cyclingPower = named("CyclingPower")
    public static let cyclingCadence = named("CyclingCadence")
    public static let cyclingFunctionalThresholdPower = named("CyclingFunctionalThresholdPower")
    public static let rowingSpeed = named("RowingSpeed")
    public static let paddleSportsSpeed = named("PaddleSportsSpeed")
    public static let walkingSpeed = named("WalkingSpeed")
    public static let walkingStepLength = named("WalkingStepLength")
    // Heart and lungs
    public static let heartRate = named("HeartRate")
    public static let restingHeartRate = named("RestingHeartRate")
    public static let walkingHeartRateAverage = named("WalkingHeartRateAverage")
    public static let heartRateVariabilitySDNN = named("HeartRateVariabilitySDNN")
    public static let heartRateRecoveryOneMinute = named("HeartRateRecoveryOneMinute")
    public static let oxygenSaturation = named("OxygenSaturation")
    public static let respiratoryRate = named("RespiratoryRate")
    // Body
    public static let bodyMass = named("BodyMass")
    public static let height = named("Height")
    public static let leanBodyMass = named("LeanBodyMass")
    public static let bodyFatPercentage = named("BodyFatPercentage")
    public static let bodyMassIndex = named("BodyMassIndex")
    public static let dietaryWater = named("DietaryWater")
    public static let dietaryEnergyConsumed = named("DietaryEnergyConsumed")

    /// Each listed type's canonical unit and aggregation style.
    static let known: [String: (unit: String, style: HKQuantityType.AggregationStyle)] = {
        let cumulative: [(HKQuantityTypeIdentifier, String)] = [
            (.stepCount, "count"), (.distanceWalkingRunning, "m"), (.distanceCycling, "m"), (.distanceSwimming, "m"), (.distanceWheelchair, "m"),
            (.distanceDownhillSnowSports, "m"), (.distanceCrossCountrySkiing, "m"), (.distancePaddleSports, "m"), (.distanceRowing, "m"),
            (.distanceSkatingSports, "m"), (.pushCount, "count"), (.swimmingStrokeCount, "count"), (.flightsClimbed, "count"),
            (.activeEnergyBurned, "kcal"), (.basalEnergyBurned, "kcal"), (.appleExerciseTime, "min"), (.appleMoveTime, "min"),
            (.appleStandTime, "min"), (.dietaryWater, "mL"), (.dietaryEnergyConsumed, "kcal"),
        ]
        let discrete: [(HKQuantityTypeIdentifier, String)] = [
            (.vo2Max, "mL/(kg*min)"), (.runningSpeed, "m/s"), (.runningPower, "W"), (.runningStrideLength, "m"),
            (.runningVerticalOscillation, "cm"), (.runningGroundContactTime, "ms"), (.cyclingSpeed, "m/s"), (.cyclingPower, "W"),
            (.cyclingCadence, "count/min"), (.cyclingFunctionalThresholdPower, "W"), (.rowingSpeed, "m/s"), (.paddleSportsSpeed, "m/s"),
            (.walkingSpeed, "m/s"), (.walkingStepLength, "m"), (.restingHeartRate, "count/min"), (.walkingHeartRateAverage, "count/min"),
            (.heartRateVariabilitySDNN, "ms"), (.heartRateRecoveryOneMinute, "count/min"), (.oxygenSaturation, "%"),
            (.respiratoryRate, "count/min"), (.bodyMass, "kg"), (.height, "m"), (.leanBodyMass, "kg"), (.bodyFatPercentage, "%"),
            (.bodyMassIndex, "count"),
        ]
        var known: [String: (unit: String, style: HKQuantityType.AggregationStyle)] = [:]
        for (identifier, unit) in cumulative { known[identifier.rawValue] = (unit, .cumulative) }
        for (identifier, unit) in discrete { known[identifier.rawValue] = (unit, .discreteArithmetic) }
        // Apple: heart rate and physical effort are averaged over time, not per sample.
        known[HKQuantityTypeIdentifier.heartRate.rawValue] = ("count/min", .discreteTemporallyWeighted)
        known[HKQuantityTypeIdentifier.physicalEffort.rawValue] = ("kcal/(kg*hr)", .discreteTemporallyWeighted)
        return known
    }()
}
