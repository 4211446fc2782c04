/// A property-list value: the only kinds of data WatchConnectivity carries (dictionary, array, string,
/// number, bool, date, data). Anything else — a JSON `null` among them — is `payloadUnsupportedTypes`.
///
/// Typed, so the hot path never goes through Foundation's untyped serialisers (100x slower here).
public enum PropertyListValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    /// Seconds since 1970-01-01T00:00:00Z.
    case date(Double)
    case data([UInt8])
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
}

/// The dictionary passed to `transferUserInfo`, `sendMessage` and `updateApplicationContext`.
package typealias UserInfo = [String: PropertyListValue]

extension PropertyListValue {
    public var stringValue: String? { if case let .string(v) = self { v } else { nil } }
    public var dataValue: [UInt8]? { if case let .data(v) = self { v } else { nil } }
    public var boolValue: Bool? { if case let .bool(v) = self { v } else { nil } }
    public var dictionaryValue: [String: PropertyListValue]? { if case let .dictionary(v) = self { v } else { nil } }

    /// Integers and reals both read as a Double.
    public var doubleValue: Double? {
        switch self {
        case let .real(v): v
        case let .integer(v): Double(v)
        case let .date(v): v
        default: nil
        }
    }

    public var int64Value: Int64? {
        switch self {
        case let .integer(v): v
        case let .real(v) where v == v.rounded() && abs(v) < 9e15: Int64(v)
        default: nil
        }
    }
}

// MARK: - Binary encoding

/// A compact, deterministic binary form of property lists: a tag byte, then the value. Dictionary keys
/// are written sorted, so equal dictionaries encode to equal bytes (how an identical application context
/// is recognised). The decoder bounds nesting depth and checks every count against the bytes left.
package enum PropertyListCodec {
    package static let maximumDepth = 32

    package enum Tag: UInt8, Sendable {
        case dictionary = 1, array, string, integer, real, falseValue, trueValue, date, data
    }

    package static func encode(_ dictionary: UserInfo) -> [UInt8] {
        var writer = ByteWriter(capacity: 512)
        encode(.dictionary(dictionary), into: &writer)
        return writer.bytes
    }

    package static func encode(_ value: PropertyListValue, into writer: inout ByteWriter) {
        switch value {
        case let .dictionary(entries):
            writer.write(Tag.dictionary.rawValue)
            writer.write(UInt32(entries.count))
            for key in entries.keys.sorted() {
                writer.writeString(key)
                encode(entries[key]!, into: &writer)
            }
        case let .array(items):
            writer.write(Tag.array.rawValue)
            writer.write(UInt32(items.count))
            for item in items { encode(item, into: &writer) }
        case let .string(string):
            writer.write(Tag.string.rawValue)
            writer.writeString(string)
        case let .integer(number):
            writer.write(Tag.integer.rawValue)
            writer.write(number)
        case let .real(number):
            writer.write(Tag.real.rawValue)
            writer.write(number)
        case let .bool(flag):
            writer.write(flag ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
        case let .date(seconds):
            writer.write(Tag.date.rawValue)
            writer.write(seconds)
        case let .data(bytes):
            writer.write(Tag.data.rawValue)
            writer.write(UInt32(bytes.count))
            writer.write(contentsOf: bytes)
        }
    }

    /// How deeply `value` nests, counted as the decoder counts: the top-level dictionary is at depth 0,
    /// its values at 1, and the decoder refuses anything at `maximumDepth` or deeper.
    package static func nestingDepth(_ value: PropertyListValue, at depth: Int = 0) -> Int {
        // Stop counting past the limit: the answer is "too deep" whatever lies below.
        guard depth < maximumDepth else { return depth }
        switch value {
        case let .dictionary(entries): return entries.values.reduce(depth) { max($0, nestingDepth($1, at: depth + 1)) }
        case let .array(items): return items.reduce(depth) { max($0, nestingDepth($1, at: depth + 1)) }
        default: return depth
        }
    }

    /// Why the receiving decoder would refuse `dictionary` once encoded, or nil if it would take it.
    /// The sender checks this so that whatever it accepts, the receiver can decode.
    package static func undecodableReason(_ dictionary: UserInfo) -> String? {
        let depth = nestingDepth(.dictionary(dictionary))
        return depth >= maximumDepth ? "it nests deeper than \(maximumDepth - 1) levels, more than the receiver decodes" : nil
    }

    /// Decodes a dictionary that fills `bytes` exactly.
    package static func decodeDictionary(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> UserInfo {
        var reader = ByteReader(bytes)
        guard case let .dictionary(dictionary) = try decode(from: &reader, depth: 0) else {
            throw .invalid("payload is not a dictionary")
        }
        guard reader.isAtEnd else { throw .invalid("\(reader.remaining) trailing bytes after the dictionary") }
        return dictionary
    }

    package static func decodeDictionary(_ bytes: [UInt8]) throws(DecodeError) -> UserInfo {
        var result: Result<UserInfo, DecodeError> = .failure(.invalid("unreachable"))
        bytes.withUnsafeBytes { raw in
            do throws(DecodeError) { result = .success(try decodeDictionary(raw)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    static func decode(from reader: inout ByteReader, depth: Int) throws(DecodeError) -> PropertyListValue {
        guard depth < maximumDepth else { throw .tooDeep(limit: maximumDepth) }
        let rawTag = try reader.readUInt8()
        guard let tag = Tag(rawValue: rawTag) else { throw .invalid("unknown value tag \(rawTag)") }
        switch tag {
        case .dictionary:
            let count = Int(try reader.readUInt32())
            // Each entry takes at least 5 bytes (key length + tag): a count beyond that is a lie.
            guard count <= reader.remaining / 5 else { throw .truncated(needed: count * 5, available: reader.remaining) }
            var entries: UserInfo = [:]
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try reader.readString()
                let value = try decode(from: &reader, depth: depth + 1)
                guard entries.updateValue(value, forKey: key) == nil else { throw .invalid("duplicate key") }
            }
            return .dictionary(entries)
        case .array:
            let count = Int(try reader.readUInt32())
            guard count <= reader.remaining else { throw .truncated(needed: count, available: reader.remaining) }
            var items: [PropertyListValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try decode(from: &reader, depth: depth + 1)) }
            return .array(items)
        case .string: return .string(try reader.readString())
        case .integer: return .integer(try reader.readInt64())
        case .real: return .real(try reader.readDouble())
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .date: return .date(try reader.readDouble())
        case .data:
            let count = Int(try reader.readUInt32())
            return .data(Array(try reader.readBytes(count)))
        }
    }
}
