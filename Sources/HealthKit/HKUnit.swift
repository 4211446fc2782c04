import Foundation

/// A metric prefix (HealthKit's `HKMetricPrefix`, Apple's raw values).
public enum HKMetricPrefix: Int, Sendable {
    case none = 0
    case femto = 13
    case pico = 1
    case nano = 2
    case micro = 3
    case milli = 4
    case centi = 5
    case deci = 6
    case deca = 7
    case hecto = 8
    case kilo = 9
    case mega = 10
    case giga = 11
    case tera = 12

    var symbol: String {
        switch self {
        case .none: ""
        case .femto: "f"
        case .pico: "p"
        case .nano: "n"
        case .micro: "mc"
        case .milli: "m"
        case .centi: "c"
        case .deci: "d"
        case .deca: "da"
        case .hecto: "h"
        case .kilo: "k"
        case .mega: "M"
        case .giga: "G"
        case .tera: "T"
        }
    }

    var factor: Double {
        switch self {
        case .none: 1
        case .femto: 1e-15
        case .pico: 1e-12
        case .nano: 1e-9
        case .micro: 1e-6
        case .milli: 1e-3
        case .centi: 1e-2
        case .deci: 1e-1
        case .deca: 1e1
        case .hecto: 1e2
        case .kilo: 1e3
        case .mega: 1e6
        case .giga: 1e9
        case .tera: 1e12
        }
    }
}

/// A unit (HealthKit's `HKUnit`): a product of base units with exponents — `count/min`, `m/s`,
/// `kcal`, `mL/(kg*min)` — made by its factory methods, by `unitDivided(by:)`, `unitMultiplied(by:)`,
/// `unitRaised(toPower:)`, `reciprocal()`, or parsed from HealthKit's unit strings (`HKUnit(from:)`).
/// Two units are compatible when they measure the same dimension (mass, length, time); a quantity
/// converts between compatible units. Temperatures and the other physiological units are not here.
open class HKUnit: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// The dimension: exponents of kilogram, metre and second (energy is kg·m²·s⁻², a count is none).
    struct Dimension: Hashable {
        var mass = 0
        var length = 0
        var time = 0

        static let none = Dimension()
        static func + (lhs: Dimension, rhs: Dimension) -> Dimension {
            Dimension(mass: lhs.mass + rhs.mass, length: lhs.length + rhs.length, time: lhs.time + rhs.time)
        }
        static func * (lhs: Dimension, power: Int) -> Dimension {
            Dimension(mass: lhs.mass * power, length: lhs.length * power, time: lhs.time * power)
        }
    }

    /// One base unit with its prefix, raised to a power: `km`, `min^-1`.
    struct Factor: Equatable {
        var symbol: String
        var power: Int
    }

    public let unitString: String
    let dimension: Dimension
    /// The factor to the dimension's SI unit (kg, m, s and their products; a count is 1).
    let factor: Double
    let factors: [Factor]

    init(factors: [Factor]) {
        var merged: [Factor] = []
        for factor in factors where factor.power != 0 {
            if let index = merged.firstIndex(where: { $0.symbol == factor.symbol }) {
                merged[index].power += factor.power
                if merged[index].power == 0 { merged.remove(at: index) }
            } else {
                merged.append(factor)
            }
        }
        self.factors = merged
        var dimension = Dimension.none
        var scale = 1.0
        for factor in merged {
            let base = Self.base(factor.symbol) ?? (Dimension.none, 1)
            dimension = dimension + base.dimension * factor.power
            scale *= pow(base.factor, Double(factor.power))
        }
        self.dimension = dimension
        self.factor = scale
        unitString = Self.string(merged)
        super.init()
    }

    /// The unit `string` names in HealthKit's syntax: base units with prefixes (`kg`, `mL`, `km`, `ms`),
    /// `*` and `/`, parentheses, `^` with an integer power (`m/s^2`, `mL/(kg*min)`, `count/min`). A string
    /// that names no unit is `count` (HealthKit raises an exception there).
    public convenience init(from string: String) {
        self.init(factors: UnitParser.parse(string) ?? [Factor(symbol: "count", power: 1)])
    }

    // MARK: - Base units

    /// The unprefixed base units, their dimension and factor to SI.
    static let bases: [String: (dimension: Dimension, factor: Double)] = [
        "g": (Dimension(mass: 1), 1e-3),
        "m": (Dimension(length: 1), 1),
        "L": (Dimension(length: 3), 1e-3),
        "s": (Dimension(time: 1), 1),
        "J": (Dimension(mass: 1, length: 2, time: -2), 1),
        "cal": (Dimension(mass: 1, length: 2, time: -2), 4.184),
        "W": (Dimension(mass: 1, length: 2, time: -3), 1),
        "Hz": (Dimension(time: -1), 1),
        "Pa": (Dimension(mass: 1, length: -1, time: -2), 1),
        "count": (Dimension.none, 1),
        "%": (Dimension.none, 1),  // as HealthKit: 0.5 % is one half
        "min": (Dimension(time: 1), 60),
        "hr": (Dimension(time: 1), 3600),
        "d": (Dimension(time: 1), 86_400),
        "kcal": (Dimension(mass: 1, length: 2, time: -2), 4184),
        "Cal": (Dimension(mass: 1, length: 2, time: -2), 4184),
        "lb": (Dimension(mass: 1), 0.453_592_37),
        "oz": (Dimension(mass: 1), 0.028_349_523_125),
        "st": (Dimension(mass: 1), 6.350_293_18),
        "in": (Dimension(length: 1), 0.0254),
        "ft": (Dimension(length: 1), 0.3048),
        "yd": (Dimension(length: 1), 0.9144),
        "mi": (Dimension(length: 1), 1609.344),
        "mmHg": (Dimension(mass: 1, length: -1, time: -2), 133.322_387_415),
        "atm": (Dimension(mass: 1, length: -1, time: -2), 101_325),
        "fl_oz_us": (Dimension(length: 3), 2.957_352_956_25e-5),
        "cup_us": (Dimension(length: 3), 2.365_882_365e-4),
        "pt_us": (Dimension(length: 3), 4.731_764_73e-4),
    ]

    /// Units a metric prefix may go before.
    static let prefixable: Set<String> = ["g", "m", "L", "s", "J", "cal", "W", "Hz", "Pa"]

    /// The dimension and SI factor of `symbol`: a base unit, or a prefix and a prefixable one (`km`, `mcg`).
    static func base(_ symbol: String) -> (dimension: Dimension, factor: Double)? {
        if let base = bases[symbol] { return base }
        for prefix in [HKMetricPrefix.femto, .pico, .nano, .micro, .milli, .centi, .deci, .deca, .hecto, .kilo, .mega, .giga, .tera]
        where symbol.hasPrefix(prefix.symbol) {
            let rest = String(symbol.dropFirst(prefix.symbol.count))
            if prefixable.contains(rest), let base = bases[rest] { return (base.dimension, base.factor * prefix.factor) }
        }
        return nil
    }

    static func string(_ factors: [Factor]) -> String {
        func term(_ factor: Factor, _ power: Int) -> String { power == 1 ? factor.symbol : "\(factor.symbol)^\(power)" }
        let numerator = factors.filter { $0.power > 0 }.map { term($0, $0.power) }
        let denominator = factors.filter { $0.power < 0 }.map { term($0, -$0.power) }
        let top = numerator.isEmpty ? "count" : numerator.joined(separator: "*")
        guard !denominator.isEmpty else { return top }
        return top + "/" + (denominator.count == 1 ? denominator[0] : "(" + denominator.joined(separator: "*") + ")")
    }

    private static func unit(_ symbol: String, _ prefix: HKMetricPrefix = .none) -> HKUnit {
        HKUnit(factors: [Factor(symbol: prefix.symbol + symbol, power: 1)])
    }

    // MARK: - Factories

    open class func count() -> HKUnit { unit("count") }
    open class func percent() -> HKUnit { unit("%") }
    open class func gram() -> HKUnit { unit("g") }
    open class func gramUnit(with prefix: HKMetricPrefix) -> HKUnit { unit("g", prefix) }
    open class func pound() -> HKUnit { unit("lb") }
    open class func ounce() -> HKUnit { unit("oz") }
    open class func stone() -> HKUnit { unit("st") }
    open class func meter() -> HKUnit { unit("m") }
    open class func meterUnit(with prefix: HKMetricPrefix) -> HKUnit { unit("m", prefix) }
    open class func inch() -> HKUnit { unit("in") }
    open class func foot() -> HKUnit { unit("ft") }
    open class func yard() -> HKUnit { unit("yd") }
    open class func mile() -> HKUnit { unit("mi") }
    open class func liter() -> HKUnit { unit("L") }
    open class func literUnit(with prefix: HKMetricPrefix) -> HKUnit { unit("L", prefix) }
    open class func fluidOunceUS() -> HKUnit { unit("fl_oz_us") }
    open class func cupUS() -> HKUnit { unit("cup_us") }
    open class func pintUS() -> HKUnit { unit("pt_us") }
    open class func second() -> HKUnit { unit("s") }
    open class func secondUnit(with prefix: HKMetricPrefix) -> HKUnit { unit("s", prefix) }
    open class func minute() -> HKUnit { unit("min") }
    open class func hour() -> HKUnit { unit("hr") }
    open class func day() -> HKUnit { unit("d") }
    open class func joule() -> HKUnit { unit("J") }
    open class func jouleUnit(with prefix: HKMetricPrefix) -> HKUnit { unit("J", prefix) }
    open class func kilocalorie() -> HKUnit { unit("kcal") }
    open class func largeCalorie() -> HKUnit { unit("Cal") }
    open class func smallCalorie() -> HKUnit { unit("cal") }
    open class func watt() -> HKUnit { unit("W") }
    open class func wattUnit(with prefix: HKMetricPrefix) -> HKUnit { unit("W", prefix) }
    open class func hertz() -> HKUnit { unit("Hz") }
    open class func pascal() -> HKUnit { unit("Pa") }
    open class func millimeterOfMercury() -> HKUnit { unit("mmHg") }
    open class func atmosphere() -> HKUnit { unit("atm") }

    // MARK: - Arithmetic

    open func unitMultiplied(by unit: HKUnit) -> HKUnit { HKUnit(factors: factors + unit.factors) }
    open func unitDivided(by unit: HKUnit) -> HKUnit { HKUnit(factors: factors + unit.factors.map { Factor(symbol: $0.symbol, power: -$0.power) }) }
    open func unitRaised(toPower power: Int) -> HKUnit {
        HKUnit(factors: factors.map { Factor(symbol: $0.symbol, power: $0.power * max(-64, min(64, power))) })
    }
    open func reciprocal() -> HKUnit { unitRaised(toPower: -1) }

    /// Whether this is `count` (HealthKit's unit of no dimension).
    open func isNull() -> Bool { factors.isEmpty }

    // MARK: - Equality, copying, archiving

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKUnit else { return false }
        return other.dimension == dimension && other.factor == factor
    }
    open override var hash: Int { unitString.hashValue }
    open override var description: String { unitString }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) { coder.encode(unitString, forKey: "HKUnitString") }

    public required convenience init?(coder: NSCoder) {
        guard let string = coder.decodeObject(of: NSString.self, forKey: "HKUnitString") as String?, let factors = UnitParser.parse(string) else {
            return nil
        }
        self.init(factors: factors)
    }
}

/// HealthKit's unit strings, parsed: `term (('*' | '/') term)*`, a term a symbol with an optional
/// `^power`, or a parenthesised expression. Total: nil for anything else.
enum UnitParser {
    static func parse(_ string: String) -> [HKUnit.Factor]? {
        guard string.utf8.count <= 256 else { return nil }
        var scalars = Array(string.unicodeScalars.filter { $0 != " " })[...]
        guard let factors = expression(&scalars, depth: 0), scalars.isEmpty else { return nil }
        return factors
    }

    private static func expression(_ scalars: inout ArraySlice<Unicode.Scalar>, depth: Int) -> [HKUnit.Factor]? {
        guard depth < 8, var factors = term(&scalars, depth: depth) else { return nil }
        while let next = scalars.first, next == "*" || next == "/" {
            scalars.removeFirst()
            guard let more = term(&scalars, depth: depth) else { return nil }
            factors += next == "*" ? more : more.map { HKUnit.Factor(symbol: $0.symbol, power: -$0.power) }
        }
        return factors
    }

    private static func term(_ scalars: inout ArraySlice<Unicode.Scalar>, depth: Int) -> [HKUnit.Factor]? {
        var factors: [HKUnit.Factor]
        if scalars.first == "(" {
            scalars.removeFirst()
            guard let inner = expression(&scalars, depth: depth + 1), scalars.first == ")" else { return nil }
            scalars.removeFirst()
            factors = inner
        } else {
            var symbol = ""
            while let next = scalars.first, next.properties.isAlphabetic || next == "%" || next == "_" {
                symbol.unicodeScalars.append(next)
                scalars.removeFirst()
            }
            guard HKUnit.base(symbol) != nil else { return nil }
            factors = [HKUnit.Factor(symbol: symbol, power: 1)]
        }
        if scalars.first == "^" {
            scalars.removeFirst()
            var sign = 1
            if scalars.first == "-" {
                sign = -1
                scalars.removeFirst()
            }
            var digits = ""
            while let next = scalars.first, ("0"..."9").contains(next), digits.count < 2 {
                digits.unicodeScalars.append(next)
                scalars.removeFirst()
            }
            guard let power = Int(digits) else { return nil }
            factors = factors.map { HKUnit.Factor(symbol: $0.symbol, power: $0.power * power * sign) }
        }
        return factors
    }
}

/// An amount in a unit (HealthKit's `HKQuantity`). Archivable (`NSSecureCoding`: a workout app sends
/// one to its mirror with `NSKeyedArchiver`).
open class HKQuantity: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    let unit: HKUnit
    let value: Double

    public init(unit: HKUnit, doubleValue value: Double) {
        self.unit = unit
        self.value = value
        super.init()
    }

    open func `is`(compatibleWith unit: HKUnit) -> Bool { unit.dimension == self.unit.dimension }

    /// The amount in `unit`; NaN for a unit of another dimension (HealthKit raises an exception).
    open func doubleValue(for unit: HKUnit) -> Double {
        guard `is`(compatibleWith: unit) else { return .nan }
        return value * self.unit.factor / unit.factor
    }

    /// Orders two quantities of compatible units (`orderedSame` for incompatible ones).
    open func compare(_ quantity: HKQuantity) -> ComparisonResult {
        guard `is`(compatibleWith: quantity.unit) else { return .orderedSame }
        let (lhs, rhs) = (baseValue, quantity.baseValue)
        return lhs < rhs ? .orderedAscending : lhs > rhs ? .orderedDescending : .orderedSame
    }

    var baseValue: Double { value * unit.factor }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? HKQuantity else { return false }
        return other.unit.dimension == unit.dimension && other.baseValue == baseValue
    }
    open override var hash: Int { baseValue.hashValue }
    open override var description: String { "\(value) \(unit.unitString)" }

    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(value, forKey: "HKQuantityValue")
        coder.encode(unit.unitString, forKey: "HKQuantityUnit")
    }

    public required init?(coder: NSCoder) {
        guard let string = coder.decodeObject(of: NSString.self, forKey: "HKQuantityUnit") as String?, let factors = UnitParser.parse(string) else {
            return nil
        }
        unit = HKUnit(factors: factors)
        value = coder.decodeDouble(forKey: "HKQuantityValue")
        super.init()
    }
}
