/// How a few fields differ from what a synthesized `Codable` conformance does, said where the property is
/// declared, so that the type keeps its one declaration: a nil written as `null` rather than left out, a
/// value a reply may lack (an older daemon's) read as a default, and the members a type does not declare
/// kept beside the ones it does.

/// A nil optional written as JSON `null`, not left out; a missing member reads as nil.
@propertyWrapper
package struct NullIfNil<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    package var wrappedValue: Value?

    package init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// The value a missing member reads as (`@TrueIfMissing`, `@ZeroIfMissing`): a field added to a reply
/// later, which a daemon from before it does not send.
package protocol MissingValue {
    associatedtype Value: Codable & Sendable & Equatable
    static var value: Value { get }
}

package enum MissingValues {
    package enum True: MissingValue { package static var value: Bool { true } }
    package enum False: MissingValue { package static var value: Bool { false } }
    package enum Zero: MissingValue { package static var value: Int64 { 0 } }
}

package typealias TrueIfMissing = MissingAs<MissingValues.True>
package typealias FalseIfMissing = MissingAs<MissingValues.False>
package typealias ZeroIfMissing = MissingAs<MissingValues.Zero>

@propertyWrapper
package struct MissingAs<Default: MissingValue>: Codable, Sendable, Equatable {
    package var wrappedValue: Default.Value

    package init(wrappedValue: Default.Value) { self.wrappedValue = wrappedValue }

    package init(from decoder: any Decoder) throws { wrappedValue = try decoder.singleValueContainer().decode(Default.Value.self) }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

/// The members of an object its type does not declare, free-form: written beside the declared ones (which
/// win a clash), read as whatever the declared ones left. Declare it last, so that it is read last.
@propertyWrapper
package struct OtherFields: Codable, Sendable, Equatable {
    package var wrappedValue: [String: JSONValue]

    package init(wrappedValue: [String: JSONValue]) { self.wrappedValue = wrappedValue }

    package init(from decoder: any Decoder) throws { wrappedValue = try decoder.singleValueContainer().decode([String: JSONValue].self) }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

// A synthesized `init(from:)` asks for a wrapped property with `decode`, which would refuse a missing
// member: these ask `decodeIfPresent` instead.
extension KeyedDecodingContainer {
    package func decode<Value>(_ type: NullIfNil<Value>.Type, forKey key: Key) throws -> NullIfNil<Value> {
        try decodeIfPresent(type, forKey: key) ?? NullIfNil(wrappedValue: nil)
    }

    package func decode<Default>(_ type: MissingAs<Default>.Type, forKey key: Key) throws -> MissingAs<Default> {
        try decodeIfPresent(type, forKey: key) ?? MissingAs(wrappedValue: Default.value)
    }

    package func decode(_ type: OtherFields.Type, forKey key: Key) throws -> OtherFields {
        try decodeIfPresent(type, forKey: key) ?? OtherFields(wrappedValue: [:])
    }
}

// MARK: - JSONValue itself

extension JSONValue: Codable {
    /// Through `JSONValueDecoder` a `JSONValue` member is taken as it is; another decoder is asked for
    /// each kind in turn.
    package init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: JSONAnyKey.self) {
            var fields: [String: JSONValue] = [:]
            for key in keyed.allKeys { fields[key.stringValue] = try keyed.decode(JSONValue.self, forKey: key) }
            self = .object(fields)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(JSONValue.self)) }
            self = .array(items)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let flag = try? single.decode(Bool.self) {
                self = .bool(flag)
            } else if let integer = try? single.decode(Int64.self) {
                self = .integer(integer)
            } else if let number = try? single.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case let .bool(flag):
            var single = encoder.singleValueContainer()
            try single.encode(flag)
        case let .integer(number):
            var single = encoder.singleValueContainer()
            try single.encode(number)
        case let .number(number):
            var single = encoder.singleValueContainer()
            try single.encode(number)
        case let .string(text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case let .array(items):
            var unkeyed = encoder.unkeyedContainer()
            for item in items { try unkeyed.encode(item) }
        case let .object(fields):
            var keyed = encoder.container(keyedBy: JSONAnyKey.self)
            for (key, value) in fields { try keyed.encode(value, forKey: JSONAnyKey(key)) }
        }
    }
}

/// Any member's name, for a free-form object.
struct JSONAnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
