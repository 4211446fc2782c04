/// Swift's `Codable` from `JSONValue` (see `JSONValueEncoder`): a synthesized `init(from:)` reads the
/// value its type declares, and anything else — a missing key, a string where a number belongs, a number
/// that is not a whole one where an integer belongs — is a `JSONDecodingFailure` naming the key.
///
/// What it reads: an integer from `.integer` or from a `.number` that is exactly one (and fits the type);
/// a `Double` or `Float` from either; a missing or null member of an optional as nil; a `JSONValue` as it
/// is; `@OtherFields` as the members the type did not read itself.
package struct JSONValueDecoder {
    package init() {}

    package func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONDecodingFailure) -> T {
        do {
            return try NodeDecoder(value: value, codingPath: []).read(type)
        } catch let error as DecodingError {
            throw JSONDecodingFailure(error)
        } catch let error as JSONDecodingFailure {
            throw error
        } catch {
            throw JSONDecodingFailure(path: "", problem: "\(error)")
        }
    }
}

/// Why a value is not the type it was read as: where (`outbox.window`, `ids[2]`; empty for the value
/// itself) and what is wrong, in a few words for one line.
package struct JSONDecodingFailure: Error, Equatable, CustomStringConvertible {
    package let path: String
    package let problem: String

    package init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    init(_ error: DecodingError) {
        switch error {
        case let .keyNotFound(key, context): self.init(path: Self.path(context.codingPath + [key]), problem: "missing")
        case let .valueNotFound(_, context): self.init(path: Self.path(context.codingPath), problem: "missing")
        case let .typeMismatch(type, context): self.init(path: Self.path(context.codingPath), problem: "not \(Self.kind(type))")
        case let .dataCorrupted(context): self.init(path: Self.path(context.codingPath), problem: context.debugDescription)
        @unknown default: self.init(path: "", problem: "\(error)")
        }
    }

    package var description: String { path.isEmpty ? problem : "\(path): \(problem)" }

    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if key.intValue != nil, key is JSONIndexKey {
                text += key.stringValue
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    static func kind(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is String.Type: "a string"
        case is Double.Type, is Float.Type: "a number"
        case is any FixedWidthInteger.Type: "a whole number in range"
        default: "an object or array of the right shape"
        }
    }
}

/// One value being decoded and where it is.
struct NodeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case let .object(fields) = value else { throw DecodingError.typeMismatch([String: JSONValue].self, context) }
        return KeyedDecodingContainer(KeyedNodeDecoder<Key>(fields: fields, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case let .array(items) = value else { throw DecodingError.typeMismatch([JSONValue].self, context) }
        return UnkeyedNodeDecoder(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleNodeDecoder(decoder: self) }

    var context: DecodingError.Context { DecodingError.Context(codingPath: codingPath, debugDescription: "") }

    /// `type` from this value: a scalar directly, anything else through its `init(from:)`.
    func read<T: Decodable>(_ type: T.Type) throws -> T {
        if let json = value as? T { return json }
        if let scalar = try scalar(type) { return scalar }
        return try T(from: self)
    }

    private func scalar<T>(_ type: T.Type) throws -> T? {
        func mismatch() -> DecodingError { .typeMismatch(type, context) }
        switch type {
        case is Bool.Type:
            guard case let .bool(flag) = value else { throw mismatch() }
            return flag as? T
        case is String.Type:
            guard case let .string(text) = value else { throw mismatch() }
            return text as? T
        case is Double.Type:
            guard let number = value.doubleValue else { throw mismatch() }
            return number as? T
        case is Float.Type:
            guard let number = value.doubleValue else { throw mismatch() }
            return Float(number) as? T
        case let integer as any FixedWidthInteger.Type:
            guard let number = Self.integer(value, as: integer) else { throw mismatch() }
            return number as? T
        default:
            return nil
        }
    }

    /// A whole number of `type` from `.integer` or an exactly whole `.number`, nil if it is not one or
    /// does not fit.
    static func integer<I: FixedWidthInteger>(_ value: JSONValue, as type: I.Type) -> I? {
        switch value {
        case let .integer(number): I(exactly: number)
        case let .number(number): I(exactly: number)
        default: nil
        }
    }
}

struct KeyedNodeDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let fields: [String: JSONValue]
    let codingPath: [any CodingKey]
    /// The members read so far: `@OtherFields`, read last, takes the rest.
    private let read = ReadKeys()

    init(fields: [String: JSONValue], codingPath: [any CodingKey]) {
        self.fields = fields
        self.codingPath = codingPath
    }

    var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        read.keys.insert(key.stringValue)
        return fields[key.stringValue] != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        read.keys.insert(key.stringValue)
        return fields[key.stringValue] ?? .null == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if type == OtherFields.self, let rest = rest as? T { return rest }
        read.keys.insert(key.stringValue)
        guard let value = fields[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: ""))
        }
        return try NodeDecoder(value: value, codingPath: codingPath + [key]).read(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        if type == OtherFields.self, let rest = rest as? T { return rest }
        guard try !decodeNil(forKey: key) else { return nil }
        return try decode(type, forKey: key)
    }

    private var rest: OtherFields { OtherFields(wrappedValue: fields.filter { !read.keys.contains($0.key) }) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(value: fields[key.stringValue] ?? .null, codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(value: fields[key.stringValue] ?? .null, codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { NodeDecoder(value: .object(fields), codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { NodeDecoder(value: fields[key.stringValue] ?? .null, codingPath: codingPath + [key]) }
}

/// The keys a keyed container has read (a class: the container is a value the caller copies).
final class ReadKeys {
    var keys: Set<String> = []
}

struct UnkeyedNodeDecoder: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = try next()
        let value = try decoder.read(type)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let decoder = try next()
        currentIndex += 1
        return try decoder.container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let decoder = try next()
        currentIndex += 1
        return try decoder.unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try next()
        currentIndex += 1
        return decoder
    }

    private func next() throws -> NodeDecoder {
        let path = codingPath + [JSONIndexKey(currentIndex)]
        guard !isAtEnd else { throw DecodingError.valueNotFound(JSONValue.self, DecodingError.Context(codingPath: path, debugDescription: "")) }
        return NodeDecoder(value: items[currentIndex], codingPath: path)
    }
}

struct SingleNodeDecoder: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.read(type) }
}
