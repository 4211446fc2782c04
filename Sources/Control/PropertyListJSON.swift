import Connectivity
import JSONText
import Posix

extension PropertyListValue {
    /// A property list from JSON. JSON's `null` has no property-list counterpart: that is
    /// `payloadUnsupportedTypes`, as Apple's framework reports for a non-plist value.
    public init(json: JSONValue, path: String = "$") throws(WCError) {
        switch json {
        case .null:
            throw WCError(.payloadUnsupportedTypes, "\(path) is null, which is not a property-list type")
        case let .bool(flag): self = .bool(flag)
        case let .integer(number): self = .integer(number)
        case let .number(number): self = .real(number)
        case let .string(text): self = .string(text)
        case let .array(items):
            var converted: [PropertyListValue] = []
            for (index, item) in items.enumerated() {
                converted.append(try PropertyListValue(json: item, path: "\(path)[\(index)]"))
            }
            self = .array(converted)
        case let .object(entries):
            var converted: UserInfo = [:]
            for (key, value) in entries {
                converted[key] = try PropertyListValue(json: value, path: "\(path).\(key)")
            }
            self = .dictionary(converted)
        }
    }

    /// A JSON rendering: data as base64, dates as ISO 8601 strings.
    public var json: JSONValue {
        switch self {
        case let .string(text): .string(text)
        case let .integer(number): .integer(number)
        case let .real(number): .number(number)
        case let .bool(flag): .bool(flag)
        case let .date(seconds): .string(Timestamp.iso8601(seconds, milliseconds: true))
        case let .data(bytes): .string(Base64.encode(bytes))
        case let .array(items): .array(items.map(\.json))
        case let .dictionary(entries): .object(entries.mapValues(\.json))
        }
    }
}

extension Dictionary where Key == String, Value == PropertyListValue {
    /// A userInfo dictionary from a JSON object; anything but an object is `invalidParameter`.
    public init(userInfoJSON json: JSONValue) throws(WCError) {
        guard case .object = json else {
            throw WCError(.invalidParameter, "the payload must be a JSON object")
        }
        guard case let .dictionary(dictionary) = try PropertyListValue(json: json) else {
            throw WCError(.invalidParameter, "the payload must be a JSON object")
        }
        self = dictionary
    }

    public var json: JSONValue { .object(mapValues(\.json)) }
}

/// Standard base64 (RFC 4648) for data values rendered as JSON.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int((chunk >> UInt32(shift)) & 0x3F)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var chunk = UInt32(bytes[index]) << 16
            if rest == 2 { chunk |= UInt32(bytes[index + 1]) << 8 }
            out.append(alphabet[Int((chunk >> 18) & 0x3F)])
            out.append(alphabet[Int((chunk >> 12) & 0x3F)])
            out.append(rest == 2 ? alphabet[Int((chunk >> 6) & 0x3F)] : 0x3D)
            out.append(0x3D)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
