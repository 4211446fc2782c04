import Foundation

/// A log message written as a string literal with interpolations, each with its own privacy and format:
/// `"sent \(count) to \(name, privacy: .public) in \(seconds, format: .fixed(precision: 2))s"`.
///
/// Privacy is applied as a device's log shows it to its developer: `.public` and `.auto` values are
/// written, `.private` ones as `<private>` (`.private(mask: .hash)` as `<mask.hash: …>`, a hash of the
/// value that stays the same across lines), and `.sensitive` as `<private>` too.
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral, Sendable {
    public let interpolation: OSLogInterpolation

    public init(stringInterpolation: OSLogInterpolation) { interpolation = stringInterpolation }
    public init(stringLiteral value: String) {
        var interpolation = OSLogInterpolation(literalCapacity: value.utf8.count, interpolationCount: 0)
        interpolation.appendLiteral(value)
        self.interpolation = interpolation
    }

    /// The text written to the log.
    var rendered: String { interpolation.text }
}

/// The parts of an `OSLogMessage`: the literal text and the interpolated values, formatted as they come.
public struct OSLogInterpolation: StringInterpolationProtocol, Sendable {
    var text = ""

    public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity + 8 * interpolationCount) }

    public mutating func appendLiteral(_ literal: String) { text += literal }

    mutating func append(_ value: String, align: OSLogStringAlignment, privacy: OSLogPrivacy) {
        text += align.apply(privacy.apply(value))
    }

    public mutating func appendInterpolation(
        _ argumentString: @autoclosure @escaping () -> String, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        append(argumentString(), align: align, privacy: privacy)
    }

    public mutating func appendInterpolation<T: CustomStringConvertible>(
        _ value: @autoclosure @escaping () -> T, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto
    ) {
        append(value().description, align: align, privacy: privacy)
    }

    public mutating func appendInterpolation<T: FixedWidthInteger>(
        _ number: @autoclosure @escaping () -> T, format: OSLogIntegerFormatting = .decimal, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        append(format.apply(number()), align: align, privacy: privacy)
    }

    public mutating func appendInterpolation(
        _ number: @autoclosure @escaping () -> Double, format: OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        append(format.apply(number()), align: align, privacy: privacy)
    }

    public mutating func appendInterpolation(
        _ number: @autoclosure @escaping () -> Float, format: OSLogFloatFormatting = .fixed, align: OSLogStringAlignment = .none,
        privacy: OSLogPrivacy = .auto
    ) {
        append(format.apply(Double(number())), align: align, privacy: privacy)
    }

    public mutating func appendInterpolation(_ boolean: @autoclosure @escaping () -> Bool, format: OSLogBoolFormat = .truth, privacy: OSLogPrivacy = .auto) {
        let value = boolean()
        append(format == .answer ? (value ? "YES" : "NO") : (value ? "true" : "false"), align: .none, privacy: privacy)
    }

    public mutating func appendInterpolation(_ value: @autoclosure @escaping () -> Any.Type, align: OSLogStringAlignment = .none, privacy: OSLogPrivacy = .auto)
    {
        append(String(describing: value()), align: align, privacy: privacy)
    }

    /// Any error: `logger.error("save failed: \(error)")`, written as `String(describing:)` writes it (an
    /// `NSError`'s domain, code and user info; a Swift error's case).
    public mutating func appendInterpolation(_ error: @autoclosure @escaping () -> any Error, privacy: OSLogPrivacy = .auto, attributes: String = "") {
        append(String(describing: error()), align: .none, privacy: privacy)
    }

    /// An object, by its `description`.
    public mutating func appendInterpolation(_ argumentObject: @autoclosure @escaping () -> NSObject, privacy: OSLogPrivacy = .auto) {
        append(argumentObject().description, align: .none, privacy: privacy)
    }

    /// An object, by its `description`, with attributes (which change nothing in the text).
    public mutating func appendInterpolation(_ argumentObject: @autoclosure @escaping () -> NSObject, privacy: OSLogPrivacy = .auto, attributes: String) {
        append(argumentObject().description, align: .none, privacy: privacy)
    }
}

/// Whether an interpolated value may appear in the log.
public struct OSLogPrivacy: Equatable, Sendable {
    enum Kind: Equatable, Sendable { case auto, `public`, `private`, sensitive }
    let kind: Kind
    let hashed: Bool

    public static let auto = OSLogPrivacy(kind: .auto, hashed: false)
    public static let `public` = OSLogPrivacy(kind: .public, hashed: false)
    public static let `private` = OSLogPrivacy(kind: .private, hashed: false)
    public static let sensitive = OSLogPrivacy(kind: .sensitive, hashed: false)

    public static func auto(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(kind: .auto, hashed: mask == .hash) }
    public static func `private`(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(kind: .private, hashed: mask == .hash) }
    public static func sensitive(mask: Mask) -> OSLogPrivacy { OSLogPrivacy(kind: .sensitive, hashed: mask == .hash) }

    /// How a redacted value is shown: not at all, or as a hash.
    public struct Mask: Equatable, Sendable {
        let isHash: Bool
        public static let hash = Mask(isHash: true)
        public static let none = Mask(isHash: false)
    }

    func apply(_ value: String) -> String {
        switch kind {
        case .public, .auto: return value
        case .private, .sensitive:
            guard hashed else { return "<private>" }
            // FNV-1a: the same value gives the same mask in every line and every run.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in value.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return "<mask.hash: '\(String(hash, radix: 16))'>"
        }
    }
}

/// Padding an interpolated value to a column.
public struct OSLogStringAlignment: Sendable {
    let columns: Int
    let left: Bool
    public static let none = OSLogStringAlignment(columns: 0, left: false)
    public static func left(columns: @autoclosure @escaping () -> Int) -> OSLogStringAlignment { OSLogStringAlignment(columns: columns(), left: true) }
    public static func right(columns: @autoclosure @escaping () -> Int) -> OSLogStringAlignment { OSLogStringAlignment(columns: columns(), left: false) }

    func apply(_ value: String) -> String {
        let padding = String(repeating: " ", count: max(0, columns - value.count))
        return left ? value + padding : padding + value
    }
}

/// How an interpolated integer is written.
public struct OSLogIntegerFormatting: Sendable {
    enum Radix: Sendable { case decimal, hex, octal }
    let radix: Radix
    let explicitPositiveSign: Bool
    let includePrefix: Bool
    let uppercase: Bool
    let minDigits: Int

    public static let decimal = decimal()
    public static let hex = hex()
    public static let octal = octal()

    public static func decimal(explicitPositiveSign: Bool = false, minDigits: @autoclosure @escaping () -> Int = 0) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(radix: .decimal, explicitPositiveSign: explicitPositiveSign, includePrefix: false, uppercase: false, minDigits: minDigits())
    }

    public static func hex(
        explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: @autoclosure @escaping () -> Int = 0
    ) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(
            radix: .hex, explicitPositiveSign: explicitPositiveSign, includePrefix: includePrefix, uppercase: uppercase, minDigits: minDigits())
    }

    public static func octal(
        explicitPositiveSign: Bool = false, includePrefix: Bool = false, uppercase: Bool = false, minDigits: @autoclosure @escaping () -> Int = 0
    ) -> OSLogIntegerFormatting {
        OSLogIntegerFormatting(
            radix: .octal, explicitPositiveSign: explicitPositiveSign, includePrefix: includePrefix, uppercase: uppercase, minDigits: minDigits())
    }

    func apply<T: FixedWidthInteger>(_ value: T) -> String {
        let radix = self.radix == .hex ? 16 : self.radix == .octal ? 8 : 10
        var digits = String(value.magnitude, radix: radix, uppercase: uppercase)
        if digits.count < minDigits { digits = String(repeating: "0", count: minDigits - digits.count) + digits }
        if includePrefix { digits = (self.radix == .hex ? "0x" : self.radix == .octal ? "0" : "") + digits }
        let sign = value < 0 ? "-" : explicitPositiveSign ? "+" : ""
        return sign + digits
    }
}

/// How an interpolated floating-point number is written.
public struct OSLogFloatFormatting: Sendable {
    enum Style: Sendable { case fixed, exponential, hybrid }
    let style: Style
    let precision: Int?
    let explicitPositiveSign: Bool

    public static let fixed = fixed(explicitPositiveSign: false)
    public static let exponential = exponential(explicitPositiveSign: false)
    public static let hybrid = hybrid(explicitPositiveSign: false)

    public static func fixed(precision: @autoclosure @escaping () -> Int, explicitPositiveSign: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(style: .fixed, precision: precision(), explicitPositiveSign: explicitPositiveSign)
    }
    public static func fixed(explicitPositiveSign: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(style: .fixed, precision: nil, explicitPositiveSign: explicitPositiveSign)
    }
    public static func exponential(precision: @autoclosure @escaping () -> Int, explicitPositiveSign: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(style: .exponential, precision: precision(), explicitPositiveSign: explicitPositiveSign)
    }
    public static func exponential(explicitPositiveSign: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(style: .exponential, precision: nil, explicitPositiveSign: explicitPositiveSign)
    }
    public static func hybrid(precision: @autoclosure @escaping () -> Int, explicitPositiveSign: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(style: .hybrid, precision: precision(), explicitPositiveSign: explicitPositiveSign)
    }
    public static func hybrid(explicitPositiveSign: Bool = false) -> OSLogFloatFormatting {
        OSLogFloatFormatting(style: .hybrid, precision: nil, explicitPositiveSign: explicitPositiveSign)
    }

    /// As C's `%f`, `%e` and `%g` write it (six digits unless a precision is given).
    func apply(_ value: Double) -> String {
        let conversion = style == .fixed ? "f" : style == .exponential ? "e" : "g"
        let format = "%" + (explicitPositiveSign ? "+" : "") + ".\(max(0, min(precision ?? 6, 60)))" + conversion
        var buffer = [CChar](repeating: 0, count: 400)
        let count = withVaList([value]) { vsnprintf(&buffer, buffer.count, format, $0) }
        return count < 0 ? String(value) : String(decoding: buffer.prefix(min(Int(count), buffer.count - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// How an interpolated Boolean is written: `true`/`false` or `YES`/`NO`.
public enum OSLogBoolFormat: Sendable {
    case truth
    case answer
}
