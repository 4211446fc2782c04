/// Swift's `Codable` to `JSONValue`, with no Foundation and no text in between: a reply or a record is
/// declared once, as a `Codable` struct (its keys are its property names), and this turns it into the
/// project's JSON value — which `JSONWriter` writes, keys sorted, or a caller walks in order (`fields`).
///
/// What it writes: every integer type as `.integer` (a `UInt64` past `Int64.max` as a `.number`), `Double`
/// and `Float` as `.number`, a nil optional not at all (`encodeIfPresent`) unless the property is
/// `@NullIfNil`, a `JSONValue` as it is, and `@OtherFields` merged into the object around it.
package struct JSONValueEncoder {
    package init() {}

    package func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = JSONNode()
        try root.encode(value, path: [])
        return root.value
    }

    /// The object `value` encodes to, its keys in the order it encoded them (a type's declaration order,
    /// for a synthesized conformance): for writers that show fields in that order. Nil if it is not an object.
    package func fields<T: Encodable>(_ value: T) throws -> [(key: String, value: JSONValue)]? {
        let root = JSONNode()
        try root.encode(value, path: [])
        guard root.kind == .object else { return nil }
        return root.keys.map { ($0, root.children[$0]!.value) }
    }
}

/// A value being encoded: a scalar, an object whose keys keep their order, or an array. A class, so that
/// the containers handed out for nested values fill it in place.
final class JSONNode {
    enum Kind { case empty, scalar, object, array }
    var kind = Kind.empty
    var scalar = JSONValue.null
    var keys: [String] = []
    var children: [String: JSONNode] = [:]
    var items: [JSONNode] = []

    var value: JSONValue {
        switch kind {
        case .empty: .object([:])
        case .scalar: scalar
        case .object: .object(children.mapValues(\.value))
        case .array: .array(items.map(\.value))
        }
    }

    func set(_ value: JSONValue) {
        kind = .scalar
        scalar = value
    }

    /// The member `key` of this object, made on first use (an object it was not becomes one).
    func child(_ key: String) -> JSONNode {
        if kind != .object { kind = .object }
        if let existing = children[key] { return existing }
        let node = JSONNode()
        keys.append(key)
        children[key] = node
        return node
    }

    func appended() -> JSONNode {
        if kind != .array { kind = .array }
        let node = JSONNode()
        items.append(node)
        return node
    }

    func encode<T: Encodable>(_ value: T, path: [any CodingKey]) throws {
        if let scalar = JSONNode.scalar(value) {
            set(scalar)
        } else if let other = value as? OtherFields {
            // Merged into the object around it; the typed keys, encoded before, win.
            if kind != .object { kind = .object }
            for key in other.wrappedValue.keys.sorted() where children[key] == nil { child(key).set(other.wrappedValue[key]!) }
        } else {
            try value.encode(to: NodeEncoder(node: self, codingPath: path))
        }
    }

    /// A value that is a JSON scalar (or a `JSONValue`) as it is.
    static func scalar(_ value: Any) -> JSONValue? {
        switch value {
        case let json as JSONValue: json
        case let flag as Bool: .bool(flag)
        case let text as String: .string(text)
        case let number as Int64: .integer(number)
        case let number as Int: .integer(Int64(number))
        case let number as Int32: .integer(Int64(number))
        case let number as Int16: .integer(Int64(number))
        case let number as Int8: .integer(Int64(number))
        case let number as UInt32: .integer(Int64(number))
        case let number as UInt16: .integer(Int64(number))
        case let number as UInt8: .integer(Int64(number))
        case let number as UInt64: Int64(exactly: number).map(JSONValue.integer) ?? .number(Double(number))
        case let number as UInt: Int64(exactly: number).map(JSONValue.integer) ?? .number(Double(number))
        case let number as Double: .number(number)
        case let number as Float: .number(Double(number))
        default: nil
        }
    }
}

/// What a `Codable` conformance writes into: one node, and the path to it for errors.
struct NodeEncoder: Encoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.kind != .object { node.kind = .object }
        return KeyedEncodingContainer(KeyedNodeEncoder<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.kind != .array { node.kind = .array }
        return UnkeyedNodeEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleNodeEncoder(node: node, codingPath: codingPath) }
}

struct KeyedNodeEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.child(key.stringValue).set(.null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if value is OtherFields {
            try node.encode(value, path: codingPath)
        } else {
            try node.child(key.stringValue).encode(value, path: codingPath + [key])
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.child("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]) }
}

struct UnkeyedNodeEncoder: UnkeyedEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var count: Int { node.items.count }

    mutating func encodeNil() throws { node.appended().set(.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = node.items.count
        try node.appended().encode(value, path: codingPath + [JSONIndexKey(index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let index = node.items.count
        return NodeEncoder(node: node.appended(), codingPath: codingPath + [JSONIndexKey(index)]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = node.items.count
        return NodeEncoder(node: node.appended(), codingPath: codingPath + [JSONIndexKey(index)]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let index = node.items.count
        return NodeEncoder(node: node.appended(), codingPath: codingPath + [JSONIndexKey(index)])
    }
}

struct SingleNodeEncoder: SingleValueEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, path: codingPath) }
}

/// An array element's place in a coding path (`[3]` in an error).
struct JSONIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "[\(intValue ?? 0)]" }

    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
