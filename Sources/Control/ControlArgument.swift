import JSONText

// MARK: - An argument, declared where it is stored

/// One argument of a control command, declared once, on the stored property that holds it — its kind
/// (JSON type and bounds), its summary, and its default (the property's initial value) — as
/// swift-argument-parser declares an option. The key is the property's name:
///
///     @Argument(.int(1...100_000), "list at most this many") package var limit = 100    // default 100
///     @Argument(.object, "the dictionary, in typed JSON") package var payload: JSONValue    // required
///     @Argument(.int(1...Int.max), "the quarantined transfer's id") package var id: Int?     // may be absent
///
/// The catalogue reads the declarations from a command made with `init()` (`ControlCommand.declaredArguments`);
/// a value decoded from a request carries only the values (the router checked them and filled the defaults).
@propertyWrapper
package struct Argument<Value: Codable & Sendable>: Sendable {
    /// What the attribute says; absent in a value decoded from a request.
    let declaration: Declaration?
    /// The value set, or decoded; nil: not set (the default, or absent).
    var value: Value?

    struct Declaration: Sendable {
        let kind: ControlArgumentKind
        let summary: String
        let defaultValue: Value?
        let cli: ControlArgumentCLI
    }

    /// An argument with a default: `@Argument(.int(1...100), "…") var limit = 100`.
    package init(wrappedValue: Value, _ kind: ControlArgumentKind, _ summary: String, cli: ControlArgumentCLI = .option()) {
        declaration = Declaration(kind: kind, summary: summary, defaultValue: wrappedValue, cli: cli)
    }

    /// A required argument (`var payload: JSONValue`), or one that may be absent (`var id: Int?`).
    package init(_ kind: ControlArgumentKind, _ summary: String, cli: ControlArgumentCLI = .option()) {
        declaration = Declaration(kind: kind, summary: summary, defaultValue: nil, cli: cli)
    }

    init(decoded value: Value?) {
        declaration = nil
        self.value = value
    }

    package var wrappedValue: Value {
        get {
            if let value { return value }
            if let defaultValue = declaration?.defaultValue { return defaultValue }
            if let absent = (Value.self as? any OptionalArgument.Type)?.absent as? Value { return absent }
            preconditionFailure("a required argument of \(Value.self) was read before it was set (from a request the router did not check)")
        }
        set { value = newValue }
    }

    /// Whether a value is set that a request carries (not nil).
    var isSet: Bool { value.map { !(($0 as? any OptionalArgument)?.isAbsent ?? false) } ?? false }
}

/// `Optional`, for an argument that may be absent.
package protocol OptionalArgument {
    static var absent: Self { get }
    var isAbsent: Bool { get }
}

extension Optional: OptionalArgument {
    package static var absent: Self { nil }
    package var isAbsent: Bool { self == nil }
}

/// What the catalogue reads of each stored argument (through `Mirror`).
protocol ArgumentDeclaring {
    func spec(named name: String) -> (ControlArgumentSpec, ControlArgumentCLI)?
}

/// The arguments `value`'s stored properties declare, in their order: each `@Argument`, and a group's
/// (`@ArgumentGroup`) where the group stands.
func arguments(declaredBy value: Any) -> [(spec: ControlArgumentSpec, cli: ControlArgumentCLI)] {
    Mirror(reflecting: value).children.flatMap { child -> [(spec: ControlArgumentSpec, cli: ControlArgumentCLI)] in
        guard let label = child.label, label.hasPrefix("_") else { return [] }
        if let group = child.value as? any ArgumentGrouping { return arguments(declaredBy: group.members) }
        return (child.value as? any ArgumentDeclaring)?.spec(named: String(label.dropFirst())).map { [$0] } ?? []
    }
}

// MARK: - Arguments declared once for several commands

/// Arguments several commands take, declared once in a struct of `@Argument`s and stored in each command
/// as a group, as swift-argument-parser's `@OptionGroup` is: `@ArgumentGroup package var target:
/// RunTargetArguments`. To the catalogue, the CLI and a request, its arguments are the command's own (the
/// request carries them beside the others, not in an object of their own).
@propertyWrapper
package struct ArgumentGroup<Members: Codable & Sendable>: Sendable {
    package var wrappedValue: Members

    package init(wrappedValue: Members) { self.wrappedValue = wrappedValue }
}

/// A group, to `Mirror`: its members' declarations.
protocol ArgumentGrouping {
    var members: Any { get }
}

extension ArgumentGroup: ArgumentGrouping {
    var members: Any { wrappedValue }
}

extension ArgumentGroup: Codable {
    package init(from decoder: any Decoder) throws { wrappedValue = try Members(from: decoder) }
    package func encode(to encoder: any Encoder) throws { try wrappedValue.encode(to: encoder) }
}

extension Argument: ArgumentDeclaring {
    func spec(named name: String) -> (ControlArgumentSpec, ControlArgumentCLI)? {
        guard let declaration else { return nil }
        let isOptional = Value.self is any OptionalArgument.Type
        var defaultJSON: JSONValue?
        if let defaultValue = declaration.defaultValue {
            do { defaultJSON = try JSONValueEncoder().encode(defaultValue) } catch { preconditionFailure("\(name): its default cannot be encoded: \(error)") }
            precondition(!isOptional, "\(name): an argument that may be absent has no default")
            precondition(declaration.kind.accept(defaultJSON!) != nil, "\(name): the default \(defaultJSON!.text) is not \(declaration.kind.text)")
        }
        let spec = ControlArgumentSpec(
            name: name, kind: declaration.kind, isRequired: defaultJSON == nil && !isOptional, defaultValue: defaultJSON, summary: declaration.summary)
        return (spec, declaration.cli)
    }
}

// MARK: - As a request carries it

extension Argument: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(decoded: container.decodeNil() ? nil : try container.decode(Value.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value, isSet { try container.encode(value) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// An argument the request leaves out (or sends as null) is not set: the command's synthesized
    /// `init(from:)` reads each through this.
    package func decode<Value>(_ type: Argument<Value>.Type, forKey key: Key) throws -> Argument<Value> {
        Argument(decoded: try decodeIfPresent(Value.self, forKey: key))
    }

    /// A group's arguments, from the request's own object (`JSONValueDecoder`'s `superDecoder()` is it).
    package func decode<Members>(_ type: ArgumentGroup<Members>.Type, forKey key: Key) throws -> ArgumentGroup<Members> {
        ArgumentGroup(wrappedValue: try Members(from: try superDecoder()))
    }
}

extension KeyedEncodingContainer {
    /// An argument not set is left out of the request (the daemon fills in its default).
    package mutating func encode<Value>(_ argument: Argument<Value>, forKey key: Key) throws {
        guard let value = argument.value, argument.isSet else { return }
        try encode(value, forKey: key)
    }

    /// A group's arguments, merged into the request beside the command's own (`OtherFields`).
    package mutating func encode<Members>(_ group: ArgumentGroup<Members>, forKey key: Key) throws {
        try encode(OtherFields(wrappedValue: try JSONValueEncoder().encode(group.wrappedValue).objectValue ?? [:]), forKey: key)
    }
}
