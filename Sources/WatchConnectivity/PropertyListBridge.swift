import Foundation
import PropertyLists

/// `[String: Any]` of property-list types, as Apple's API takes and gives them, to and from the
/// session's typed values — with the project's own codec, never Foundation's serialisers (100× slower
/// here: `../shared/LIMITS.md`). This is the API's slow path; an app on the hot path can hand typed
/// values to the extensions (`WCSession+RunWayPair.swift`).
enum PropertyListBridge {
    /// Anything that is not a property-list type (or a dictionary whose keys are not strings) is Apple's
    /// `payloadUnsupportedTypes` (7010), naming where it is.
    static func typed(_ dictionary: [String: Any]) throws(WCError) -> [String: PropertyListValue] {
        var result: [String: PropertyListValue] = [:]
        result.reserveCapacity(dictionary.count)
        for (key, value) in dictionary { result[key] = try typed(value, at: key) }
        return result
    }

    static func typed(_ value: Any, at path: String) throws(WCError) -> PropertyListValue {
        switch value {
        case let string as String: return .string(string)
        case let bool as Bool where !(value is NSNumber) || isBoolean(value as! NSNumber): return .bool(bool)
        case let number as NSNumber: return try typed(number, at: path)
        case let int as Int: return .integer(Int64(int))
        case let int as Int64: return .integer(int)
        case let int as Int32: return .integer(Int64(int))
        case let int as Int16: return .integer(Int64(int))
        case let int as Int8: return .integer(Int64(int))
        case let int as UInt8: return .integer(Int64(int))
        case let int as UInt16: return .integer(Int64(int))
        case let int as UInt32: return .integer(Int64(int))
        case let int as UInt where int <= UInt(Int64.max): return .integer(Int64(int))
        case let int as UInt64 where int <= UInt64(Int64.max): return .integer(Int64(int))
        case let double as Double: return .real(double)
        case let float as Float: return .real(Double(float))
        case let date as Date: return .date(date.timeIntervalSince1970)
        case let data as Data: return .data([UInt8](data))
        case let array as [Any]:
            var items: [PropertyListValue] = []
            items.reserveCapacity(array.count)
            for (index, item) in array.enumerated() { items.append(try typed(item, at: "\(path)[\(index)]")) }
            return .array(items)
        case let dictionary as [String: Any]:
            var entries: [String: PropertyListValue] = [:]
            for (key, item) in dictionary { entries[key] = try typed(item, at: "\(path).\(key)") }
            return .dictionary(entries)
        default:
            throw WCError(
                .payloadUnsupportedTypes,
                description: "\(path) is a \(type(of: value)), not a property-list type (string, number, Bool, Date, Data, array, dictionary)")
        }
    }

    /// A Boolean `NSNumber` (`NSNumber(value: true)`, a Swift `Bool` bridged, what a received `.bool`
    /// becomes): Foundation's Boolean class, as `kCFBooleanTrue`/`kCFBooleanFalse` are on Apple's
    /// platforms — not any char-typed number that happens to be 0 or 1 (`NSNumber(value: Int8(1))` is an
    /// integer there, and here).
    static func isBoolean(_ number: NSNumber) -> Bool { type(of: number) == booleanClass }

    private static let booleanClass: NSNumber.Type = type(of: NSNumber(value: true))

    private static func typed(_ number: NSNumber, at path: String) throws(WCError) -> PropertyListValue {
        switch String(cString: number.objCType) {
        case "f", "d": return .real(number.doubleValue)
        case "Q", "L", "I", "S", "C":
            guard number.uint64Value <= UInt64(Int64.max) else {
                throw WCError(.payloadUnsupportedTypes, description: "\(path) is an unsigned number beyond Int64")
            }
            return .integer(Int64(number.uint64Value))
        default: return .integer(number.int64Value)
        }
    }

    static func untyped(_ dictionary: [String: PropertyListValue]) -> [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(dictionary.count)
        for (key, value) in dictionary { result[key] = untyped(value) }
        return result
    }

    /// What the app reads, as iOS hands it a received property list: numbers and Booleans are
    /// `NSNumber`s (Boolean ones Foundation's Boolean class), so `value as? Double`, `as? Int`, `as? Bool`
    /// and `as? NSNumber` succeed exactly when they do there — an integral real is `as? Int` too, an
    /// integer `as? Double`, a 0 or 1 `as? Bool` — and the kind an app sent (`objCType`: `d`, `q`, `c`)
    /// survives being sent back (`typed`). Before issue 49 an integer came as a Swift `Int`, for which
    /// `as? Double` is nil: an app tested here dropped a run whose distance was `5000`.
    static func untyped(_ value: PropertyListValue) -> Any {
        switch value {
        case let .string(string): string
        case let .integer(int): NSNumber(value: int)
        case let .real(double): NSNumber(value: double)
        case let .bool(bool): NSNumber(value: bool)
        case let .date(seconds): Date(timeIntervalSince1970: seconds)
        case let .data(bytes): Data(bytes)
        case let .array(items): items.map(untyped)
        case let .dictionary(entries): untyped(entries)
        }
    }
}
