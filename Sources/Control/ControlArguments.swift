import Connectivity
import JSONText
import Posix

// MARK: - What an argument takes

/// The shape of a value a control command takes: its JSON type and its bounds. The router checks every
/// request against these before the handler runs; the CLI checks against the same before it sends.
package enum ControlArgumentKind: Sendable, Equatable {
    /// A whole number (a JSON integer, or a real with no fraction) within the range.
    case int(ClosedRange<Int>)
    /// One of these whole numbers (an error code).
    case intChoice([Int])
    /// A finite number within the range.
    case number(ClosedRange<Double>)
    /// A string of that many UTF-8 bytes.
    case string(bytes: ClosedRange<Int>)
    /// One of these strings.
    case choice([String])
    /// A string of a fixed format (a flight id, a month).
    case format(ControlStringFormat)
    case bool
    /// A JSON object in typed JSON (a `$date` or `$data` well formed): a property-list payload
    /// (userInfo, context, message).
    case object
    /// A JSON array (a run's samples; each element is the handler's to check).
    case array

    /// `a whole number from 1 to 100`, `pace, heart-rate or heartRate`: how the docs and the errors say it.
    package var text: String {
        switch self {
        case let .int(range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case let .intChoice(values): Self.list(values.map(String.init))
        case let .number(range): "a number from \(range.lowerBound) to \(range.upperBound)"
        case let .string(bytes) where bytes.lowerBound == 0: "a string of at most \(bytes.upperBound) bytes"
        case let .string(bytes): "a string of \(bytes.lowerBound) to \(bytes.upperBound) bytes"
        case let .choice(values): Self.list(values)
        case let .format(format): format.noun
        case .bool: "true or false"
        case .object: "a JSON object (typed JSON)"
        case .array: "a JSON array"
        }
    }

    /// `a, b or c`
    static func list(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items.last!
    }

    /// The value, normalised (a whole real becomes an integer), or nil if it is not of this kind.
    package func accept(_ value: JSONValue) -> JSONValue? {
        switch self {
        case let .int(range):
            guard let number = value.intValue, range.contains(number) else { return nil }
            return .integer(Int64(number))
        case let .intChoice(values):
            guard let number = value.intValue, values.contains(number) else { return nil }
            return .integer(Int64(number))
        case let .number(range):
            guard let number = value.doubleValue, number.isFinite, range.contains(number) else { return nil }
            return value
        case let .string(bytes):
            guard let text = value.stringValue, bytes.contains(text.utf8.count) else { return nil }
            return value
        case let .choice(values):
            guard let text = value.stringValue, values.contains(text) else { return nil }
            return value
        case let .format(format):
            guard let text = value.stringValue, format.matches(text) else { return nil }
            return value
        case .bool: return value.boolValue == nil ? nil : value
        case .object: return value.objectValue == nil || TypedJSON.problem(in: value) != nil ? nil : value
        case .array: return value.arrayValue == nil ? nil : value
        }
    }
}

/// The string formats an argument can require.
package enum ControlStringFormat: String, Sendable, Equatable {
    /// A flight's id: a UUID, either case.
    case flightID
    /// A month of the logbook's groups: `2026-11`.
    case month
    /// Bytes in standard base64 (RFC 4648, `+/`, padded), only in its canonical form (`Base64.decode`).
    case base64

    package var noun: String {
        switch self {
        case .flightID: "a flight id (a UUID)"
        case .month: "a month like 2026-11"
        case .base64: "bytes in standard base64"
        }
    }

    package func matches(_ text: String) -> Bool {
        switch self {
        case .flightID: return Identifier.isUUID(text)
        case .base64: return Base64.decode(text) != nil
        case .month:
            let bytes = Array(text.utf8)
            guard bytes.count == 7, bytes[4] == 0x2D, bytes.enumerated().allSatisfy({ $0.offset == 4 || (0x30...0x39).contains($0.element) }),
                let month = Int(String(text.suffix(2)))
            else { return false }
            return (1...12).contains(month)
        }
    }
}

// MARK: - One argument

/// One argument of a command, as the catalogue declares it: the documentation, the router's check and
/// the client's check all come from this.
package struct ControlArgumentSpec: Sendable, Equatable {
    package let name: String
    package let kind: ControlArgumentKind
    package let isRequired: Bool
    /// Filled in by the router when the request leaves the argument out.
    package let defaultValue: JSONValue?
    package let summary: String

    /// The one line a value that does not fit gets (exit 2).
    package func problem(with value: JSONValue) -> String {
        switch kind {
        case .format:
            if let text = value.stringValue { return "\(name) \(OneLine.quote(text)) is not \(kind.text)" }
            return "\(name) must be \(kind.text)"
        case .object where value.objectValue != nil:
            return "\(name): \(TypedJSON.problem(in: value) ?? "not \(kind.text)")"
        case .choice where value.stringValue != nil, .intChoice where value.intValue != nil:
            return "\(name) must be \(kind.text), not \(OneLine.quote(value.stringValue ?? value.text))"
        default:
            return "\(name) must be \(kind.text)"
        }
    }
}
