import Connectivity
import JSONText
import Posix
import PropertyLists

/// Typed JSON: the property-list types JSON lacks, as one-key objects — `{"$date": "2026-11-30T07:00:00.250Z"}`
/// (ISO 8601 with `Z` or an offset) and `{"$data": "AAEC"}` (standard base64, padded). Accepted wherever a
/// payload is read from JSON and written wherever one is shown, so any output can be fed back in.
///
/// An object holding `"$date"` or `"$data"` together with other keys is refused, not taken as a plain
/// dictionary: it is almost always a typo, and a silent dictionary would hide it. (The price: a dictionary
/// whose only key is `$date` or `$data` cannot be written in JSON.)
package enum TypedJSON {
    package static let dateKey = "$date"
    package static let dataKey = "$data"

    /// Why `json` is not valid typed JSON (a malformed `$date`/`$data`, or one mixed with other keys), or
    /// nil. One line, naming where: `$.when.$date: "yesterday" is not an ISO 8601 time …`.
    package static func problem(in json: JSONValue, path: String = "$") -> String? {
        switch json {
        case let .array(items):
            for (index, item) in items.enumerated() {
                if let problem = problem(in: item, path: "\(path)[\(index)]") { return problem }
            }
            return nil
        case let .object(entries):
            if let typed = typedKey(entries) {
                guard entries.count == 1 else {
                    let others = entries.keys.filter { $0 != typed }.sorted().prefix(3).map { OneLine.escape($0, limit: 40) }.joined(separator: ", ")
                    return "\(path): an object with \"\(typed)\" must have no other key (found \(others))"
                }
                switch decodeTyped(typed, entries[typed]!) {
                case .success: return nil
                case let .failure(why): return "\(path).\(typed): \(why)"
                }
            }
            for key in entries.keys.sorted() {
                if let problem = problem(in: entries[key]!, path: "\(path).\(OneLine.escape(key, limit: 40))") { return problem }
            }
            return nil
        default:
            return nil
        }
    }

    static func typedKey(_ entries: [String: JSONValue]) -> String? {
        if entries[dateKey] != nil { return dateKey }
        if entries[dataKey] != nil { return dataKey }
        return nil
    }

    static func decodeTyped(_ key: String, _ value: JSONValue) -> Result<PropertyListValue, TypedJSONError> {
        guard case let .string(text) = value else {
            return .failure(TypedJSONError(key == dateKey ? "must be an ISO 8601 string" : "must be a base64 string"))
        }
        if key == dateKey {
            let quoted = JSONValue.string(String(text.prefix(40))).text
            switch TimeText.parseInstant(text) {
            case let .success(seconds): return .success(.date(seconds))
            case .failure(.fractionTooLong):
                return .failure(TypedJSONError("\(quoted) has more than \(Timestamp.maximumFractionDigits) digits after the seconds' point"))
            case .failure: return .failure(TypedJSONError("\(quoted) is not an ISO 8601 time with a zone (2026-11-30T07:00:00Z)"))
            }
        }
        guard let bytes = Base64.decode(text) else {
            return .failure(TypedJSONError("\(JSONValue.string(String(text.prefix(40))).text) is not standard base64 (A-Z a-z 0-9 + /, padded with =)"))
        }
        return .success(.data(bytes))
    }
}

package struct TypedJSONError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

extension PropertyListValue {
    /// A property list from JSON (typed JSON for dates and data: `TypedJSON`). JSON's `null` has no
    /// property-list counterpart: that is `payloadUnsupportedTypes`, as Apple's framework reports for a
    /// non-plist value. Malformed typed JSON is `invalidParameter` (check `TypedJSON.problem` first to
    /// tell the user it is their input).
    package init(json: JSONValue, path: String = "$") throws(WCError) {
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
            if let typed = TypedJSON.typedKey(entries) {
                guard entries.count == 1 else {
                    throw WCError(.invalidParameter, TypedJSON.problem(in: json, path: path) ?? "\(path): malformed \(typed)")
                }
                switch TypedJSON.decodeTyped(typed, entries[typed]!) {
                case let .success(value): self = value
                case let .failure(why): throw WCError(.invalidParameter, "\(path).\(typed): \(why)")
                }
                return
            }
            var converted: UserInfo = [:]
            for (key, value) in entries {
                converted[key] = try PropertyListValue(json: value, path: "\(path).\(OneLine.escape(key, limit: 40))")
            }
            self = .dictionary(converted)
        }
    }

    /// A JSON rendering in typed JSON: `{"$date": ISO 8601 with milliseconds}`, `{"$data": base64}`.
    package var json: JSONValue {
        switch self {
        case let .string(text): .string(text)
        case let .integer(number): .integer(number)
        case let .real(number): .number(number)
        case let .bool(flag): .bool(flag)
        case let .date(seconds): .object([TypedJSON.dateKey: .string(Timestamp.iso8601(seconds, milliseconds: true))])
        case let .data(bytes): .object([TypedJSON.dataKey: .string(Base64.encode(bytes))])
        case let .array(items): .array(items.map(\.json))
        case let .dictionary(entries): .object(entries.mapValues(\.json))
        }
    }
}

extension Dictionary where Key == String, Value == PropertyListValue {
    /// A userInfo dictionary from a JSON object; anything but an object is `invalidParameter`.
    package init(userInfoJSON json: JSONValue) throws(WCError) {
        guard case .object = json else {
            throw WCError(.invalidParameter, "the payload must be a JSON object")
        }
        guard case let .dictionary(dictionary) = try PropertyListValue(json: json) else {
            throw WCError(.invalidParameter, "the payload must be a JSON object")
        }
        self = dictionary
    }

    package var json: JSONValue { .object(jsonObject) }
    /// The members of `json`.
    package var jsonObject: [String: JSONValue] { mapValues(\.json) }
}

/// Standard base64 (RFC 4648) for data values rendered as JSON.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
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

    /// Standard base64 with padding; nil for anything else (a wrong length, a character outside the
    /// alphabet, non-zero bits after the last byte).
    package static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var values: [UInt8] = []
        values.reserveCapacity(input.count)
        var padding = 0
        for (index, byte) in input.enumerated() {
            if byte == 0x3D {
                guard index >= input.count - 2 else { return nil }
                padding += 1
                values.append(0)
                continue
            }
            guard padding == 0, let value = Self.value(of: byte) else { return nil }
            values.append(value)
        }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < values.count {
            let chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            out.append(UInt8(chunk >> 16))
            out.append(UInt8((chunk >> 8) & 0xFF))
            out.append(UInt8(chunk & 0xFF))
            index += 4
        }
        if padding > 0 {
            // The bits the padding stands for must be zero (the canonical form encode writes).
            let last = out.count - padding
            guard out[last...].allSatisfy({ $0 == 0 }) else { return nil }
            out.removeLast(padding)
        }
        return out
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case 0x41...0x5A: byte - 0x41
        case 0x61...0x7A: byte - 0x61 + 26
        case 0x30...0x39: byte - 0x30 + 52
        case 0x2B: 62
        case 0x2F: 63
        default: nil
        }
    }
}
