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

/// What kind of workout (HealthKit's `HKWorkoutActivityType`): every case, with Apple's raw values.
public enum HKWorkoutActivityType: UInt, Sendable {
    case americanFootball = 1
    case archery = 2
    case australianFootball = 3
    case badminton = 4
    case baseball = 5
    case basketball = 6
    case bowling = 7
    case boxing = 8
    case climbing = 9
    case cricket = 10
    case crossTraining = 11
    case curling = 12
    case cycling = 13
    @available(*, deprecated, message: "use cardioDance or socialDance")
    case dance = 14
    @available(*, deprecated, message: "use barre, pilates, cardioDance or socialDance")
    case danceInspiredTraining = 15
    case elliptical = 16
    case equestrianSports = 17
    case fencing = 18
    case fishing = 19
    case functionalStrengthTraining = 20
    case golf = 21
    case gymnastics = 22
    case handball = 23
    case hiking = 24
    case hockey = 25
    case hunting = 26
    case lacrosse = 27
    case martialArts = 28
    case mindAndBody = 29
    @available(*, deprecated, message: "use mixedCardio or highIntensityIntervalTraining")
    case mixedMetabolicCardioTraining = 30
    case paddleSports = 31
    case play = 32
    case preparationAndRecovery = 33
    case racquetball = 34
    case rowing = 35
    case rugby = 36
    case running = 37
    case sailing = 38
    case skatingSports = 39
    case snowSports = 40
    case soccer = 41
    case softball = 42
    case squash = 43
    case stairClimbing = 44
    case surfingSports = 45
    case swimming = 46
    case tableTennis = 47
    case tennis = 48
    case trackAndField = 49
    case traditionalStrengthTraining = 50
    case volleyball = 51
    case walking = 52
    case waterFitness = 53
    case waterPolo = 54
    case waterSports = 55
    case wrestling = 56
    case yoga = 57
    case barre = 58
    case coreTraining = 59
    case crossCountrySkiing = 60
    case downhillSkiing = 61
    case flexibility = 62
    case highIntensityIntervalTraining = 63
    case jumpRope = 64
    case kickboxing = 65
    case pilates = 66
    case snowboarding = 67
    case stairs = 68
    case stepTraining = 69
    case wheelchairWalkPace = 70
    case wheelchairRunPace = 71
    case taiChi = 72
    case mixedCardio = 73
    case handCycling = 74
    case discSports = 75
    case fitnessGaming = 76
    case cardioDance = 77
    case socialDance = 78
    case pickleball = 79
    case cooldown = 80
    case swimBikeRun = 82
    case transition = 83
    case underwaterDiving = 84
    case other = 3000

    /// The Health store's name for it: the case's name (`HealthWorkoutItem.activityTypes`).
    var name: String { String(describing: self) }

    init?(name: String) {
        guard let found = Self.every.first(where: { $0.name == name }) else { return nil }
        self = found
    }

    /// Every case, in raw order (not `CaseIterable`: Apple's is not, and no code may compile here that
    /// Xcode refuses).
    static let every: [HKWorkoutActivityType] = (0...3000).compactMap { HKWorkoutActivityType(rawValue: $0) }
}

/// A finished workout (HealthKit's `HKWorkout`).
open class HKWorkout: HKSample, @unchecked Sendable {
    public let workoutActivityType: HKWorkoutActivityType
    /// Active time: the interval less its pauses.
    public let duration: TimeInterval
    /// The distance and energy its builder collected (nil: none), and its events (pauses, laps).
    public let totalDistance: HKQuantity?
    public let totalEnergyBurned: HKQuantity?
    public let workoutEvents: [HKWorkoutEvent]?

    public init(
        activityType: HKWorkoutActivityType, start: Date, end: Date, duration: TimeInterval = 0, totalEnergyBurned: HKQuantity? = nil,
        totalDistance: HKQuantity? = nil, metadata: [String: Any]? = nil
    ) {
        workoutActivityType = activityType
        self.duration = duration > 0 ? duration : end.timeIntervalSince(start)
        self.totalDistance = totalDistance
        self.totalEnergyBurned = totalEnergyBurned
        workoutEvents = nil
        super.init(type: HKObjectType.workoutType(), start: start, end: end, uuid: Self.uuid(from: metadata), metadata: metadata)
    }

    init(
        activityType: HKWorkoutActivityType, start: Date, end: Date, duration: TimeInterval, uuid: UUID, metadata: [String: Any]?,
        totalDistance: HKQuantity? = nil, totalEnergyBurned: HKQuantity? = nil, events: [HKWorkoutEvent]? = nil
    ) {
        workoutActivityType = activityType
        self.duration = duration
        self.totalDistance = totalDistance
        self.totalEnergyBurned = totalEnergyBurned
        workoutEvents = events
        super.init(type: HKObjectType.workoutType(), start: start, end: end, uuid: uuid, metadata: metadata)
    }

    /// The metadata's `HKMetadataKeyExternalUUID` when it is a UUID, else a new one.
    static func uuid(from metadata: [String: Any]?) -> UUID {
        (metadata?[HKMetadataKeyExternalUUID] as? String).flatMap(UUID.init(uuidString:)) ?? UUID()
    }
}

/// The statistics of one quantity type over an interval (HealthKit's `HKStatistics`): the sum for a
/// cumulative type; the average, minimum, maximum and most recent for a discrete one (the average
/// weighted by each sample's duration for a temporally weighted type, a heart rate). Archivable
/// (`NSSecureCoding`: sent to the mirror with `NSKeyedArchiver`).
open class HKStatistics: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public let quantityType: HKQuantityType
    public let startDate: Date
    public let endDate: Date
    /// Each sample as (value in the unit's SI base, start, end), and the unit they were given in.
    private let values: [(base: Double, start: Date, end: Date)]
    private let unit: HKUnit?

    init(quantityType: HKQuantityType, startDate: Date, endDate: Date, samples: [HKQuantitySample]) {
        self.quantityType = quantityType
        self.startDate = startDate
        self.endDate = endDate
        values = samples.map { ($0.quantity.baseValue, $0.startDate, $0.endDate) }
        unit = samples.first?.quantity.unit
        super.init()
    }

    private func quantity(_ base: Double?) -> HKQuantity? {
        guard let base, let unit else { return nil }
        return HKQuantity(unit: unit, doubleValue: base / unit.factor)
    }

    private var isCumulative: Bool { quantityType.aggregationStyle == .cumulative }

    open func sumQuantity() -> HKQuantity? {
        guard isCumulative, !values.isEmpty else { return nil }
        return quantity(values.reduce(0) { $0 + $1.base })
    }

    open func averageQuantity() -> HKQuantity? {
        guard !isCumulative, !values.isEmpty else { return nil }
        if quantityType.aggregationStyle == .discreteTemporallyWeighted {
            let weights = values.map { max(0, $0.end.timeIntervalSince($0.start)) }
            let total = weights.reduce(0, +)
            if total > 0 { return quantity(zip(values, weights).reduce(0) { $0 + $1.0.base * $1.1 } / total) }
        }
        return quantity(values.reduce(0) { $0 + $1.base } / Double(values.count))
    }

    open func minimumQuantity() -> HKQuantity? { isCumulative ? nil : quantity(values.map(\.base).min()) }
    open func maximumQuantity() -> HKQuantity? { isCumulative ? nil : quantity(values.map(\.base).max()) }
    open func mostRecentQuantity() -> HKQuantity? { isCumulative ? nil : quantity(values.max { $0.end < $1.end }?.base) }
    open func mostRecentQuantityDateInterval() -> DateInterval? {
        guard !isCumulative, let last = values.max(by: { $0.end < $1.end }) else { return nil }
        return DateInterval(start: last.start, end: max(last.start, last.end))
    }

    // MARK: - Copying, archiving

    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(quantityType, forKey: "HKStatisticsType")
        coder.encode(startDate.timeIntervalSince1970, forKey: "HKStatisticsStart")
        coder.encode(endDate.timeIntervalSince1970, forKey: "HKStatisticsEnd")
        if let unit { coder.encode(unit.unitString, forKey: "HKStatisticsUnit") }
        // The samples' values and dates, packed (three doubles each).
        var packed = Data(capacity: values.count * 24)
        for value in values {
            for double in [value.base, value.start.timeIntervalSince1970, value.end.timeIntervalSince1970] {
                withUnsafeBytes(of: double.bitPattern.littleEndian) { packed.append(contentsOf: $0) }
            }
        }
        coder.encode(packed, forKey: "HKStatisticsValues")
    }

    public required init?(coder: NSCoder) {
        guard let type = coder.decodeObject(of: HKQuantityType.self, forKey: "HKStatisticsType"),
            let packed = coder.decodeObject(of: NSData.self, forKey: "HKStatisticsValues") as Data?, packed.count % 24 == 0
        else { return nil }
        quantityType = type
        startDate = Date(timeIntervalSince1970: coder.decodeDouble(forKey: "HKStatisticsStart"))
        endDate = Date(timeIntervalSince1970: coder.decodeDouble(forKey: "HKStatisticsEnd"))
        unit = (coder.decodeObject(of: NSString.self, forKey: "HKStatisticsUnit") as String?).flatMap(UnitParser.parse).map(HKUnit.init(factors:))
        let bytes = [UInt8](packed)
        func double(_ index: Int) -> Double {
            var bits: UInt64 = 0
            for byte in 0..<8 { bits |= UInt64(bytes[index * 8 + byte]) << (8 * UInt64(byte)) }
            return Double(bitPattern: bits)
        }
        values = (0..<bytes.count / 24).map {
            (double($0 * 3), Date(timeIntervalSince1970: double($0 * 3 + 1)), Date(timeIntervalSince1970: double($0 * 3 + 2)))
        }
        super.init()
    }
}

/// Where a workout happens.
public enum HKWorkoutSessionLocationType: Int, Sendable {
    case unknown = 1
    case indoor = 2
    case outdoor = 3
}

/// Where a swim happens (HealthKit's `HKWorkoutSwimmingLocationType`).
public enum HKWorkoutSwimmingLocationType: Int, Sendable {
    case unknown = 0
    case pool = 1
    case openWater = 2
}

/// What a workout session is for (HealthKit's `HKWorkoutConfiguration`). Archivable and copyable: the
/// phone sends one to the watch (`startWatchApp`), an app may archive one for its own mirror.
open class HKWorkoutConfiguration: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    open var activityType: HKWorkoutActivityType = .other
    open var locationType: HKWorkoutSessionLocationType = .unknown
    open var swimmingLocationType: HKWorkoutSwimmingLocationType = .unknown
    /// A pool's length (swimming in a pool).
    open var lapLength: HKQuantity?

    public override init() { super.init() }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKWorkoutConfiguration else { return false }
        return other.activityType == activityType && other.locationType == locationType && other.swimmingLocationType == swimmingLocationType
            && other.lapLength == lapLength
    }
    open override var hash: Int { Int(activityType.rawValue) &* 31 &+ locationType.rawValue }

    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = HKWorkoutConfiguration()
        copy.activityType = activityType
        copy.locationType = locationType
        copy.swimmingLocationType = swimmingLocationType
        copy.lapLength = lapLength
        return copy
    }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(Int(activityType.rawValue), forKey: "HKWorkoutActivityType")
        coder.encode(locationType.rawValue, forKey: "HKWorkoutLocationType")
        coder.encode(swimmingLocationType.rawValue, forKey: "HKWorkoutSwimmingLocationType")
        if let lapLength { coder.encode(lapLength, forKey: "HKWorkoutLapLength") }
    }

    public required init?(coder: NSCoder) {
        guard let activity = HKWorkoutActivityType(rawValue: UInt(max(0, coder.decodeInteger(forKey: "HKWorkoutActivityType")))) else { return nil }
        activityType = activity
        locationType = HKWorkoutSessionLocationType(rawValue: coder.decodeInteger(forKey: "HKWorkoutLocationType")) ?? .unknown
        swimmingLocationType = HKWorkoutSwimmingLocationType(rawValue: coder.decodeInteger(forKey: "HKWorkoutSwimmingLocationType")) ?? .unknown
        lapLength = coder.decodeObject(of: HKQuantity.self, forKey: "HKWorkoutLapLength")
        super.init()
    }
}

/// What happened during a workout (HealthKit's `HKWorkoutEventType`, Apple's raw values).
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

/// An event in a workout: a pause, a resume, a lap (HealthKit's `HKWorkoutEvent`).
open class HKWorkoutEvent: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public let type: HKWorkoutEventType
    public let dateInterval: DateInterval
    public let metadata: [String: Any]?

    public init(type: HKWorkoutEventType, dateInterval: DateInterval, metadata: [String: Any]?) {
        self.type = type
        self.dateInterval = dateInterval
        self.metadata = metadata
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKWorkoutEvent else { return false }
        return other.type == type && other.dateInterval == dateInterval
    }
    open override var hash: Int { type.rawValue &* 31 &+ dateInterval.start.timeIntervalSince1970.hashValue }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(type.rawValue, forKey: "HKWorkoutEventType")
        coder.encode(dateInterval.start.timeIntervalSince1970, forKey: "HKWorkoutEventStart")
        coder.encode(dateInterval.duration, forKey: "HKWorkoutEventDuration")
    }

    public required init?(coder: NSCoder) {
        guard let type = HKWorkoutEventType(rawValue: coder.decodeInteger(forKey: "HKWorkoutEventType")) else { return nil }
        let duration = coder.decodeDouble(forKey: "HKWorkoutEventDuration")
        guard duration >= 0 else { return nil }
        self.type = type
        dateInterval = DateInterval(start: Date(timeIntervalSince1970: coder.decodeDouble(forKey: "HKWorkoutEventStart")), duration: duration)
        metadata = nil
        super.init()
    }
}

/// The device that recorded data (HealthKit's `HKDevice`): `local()` is the simulated watch or phone.
open class HKDevice: NSObject, @unchecked Sendable {
    public let name: String?
    public let manufacturer: String?
    public let model: String?
    public let hardwareVersion: String?
    public let firmwareVersion: String?
    public let softwareVersion: String?
    public let localIdentifier: String?
    public let udiDeviceIdentifier: String?

    public init(
        name: String?, manufacturer: String?, model: String?, hardwareVersion: String?, firmwareVersion: String?, softwareVersion: String?,
        localIdentifier: String?, udiDeviceIdentifier: String?
    ) {
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
        super.init()
    }

    /// This device.
    open class func local() -> HKDevice {
        HKDevice(
            name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: nil, firmwareVersion: nil, softwareVersion: "10.0",
            localIdentifier: nil, udiDeviceIdentifier: nil)
    }
}
