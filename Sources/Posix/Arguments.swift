/// A small command-line parser shared by the daemons and the CLI: `--name value`, `--name=value`,
/// boolean `--flag`s, and positional arguments. Anything else is a usage error (exit status 2).
public struct ArgumentSpec: Sendable {
    public let name: String
    public let valueName: String?
    public let help: String
    public let hidden: Bool

    /// An option that takes a value (`--home DIR`).
    public static func option(_ name: String, _ valueName: String, _ help: String, hidden: Bool = false) -> ArgumentSpec {
        ArgumentSpec(name: name, valueName: valueName, help: help, hidden: hidden)
    }

    /// A boolean flag (`--json`).
    public static func flag(_ name: String, _ help: String, hidden: Bool = false) -> ArgumentSpec {
        ArgumentSpec(name: name, valueName: nil, help: help, hidden: hidden)
    }
}

public struct UsageError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// What the user may have meant (`--count` for `--cout`); the message already says it, this is for
    /// a program (`runway`'s JSON error).
    public let suggestions: [String]

    public init(_ message: String, suggestions: [String] = []) {
        self.message = message
        self.suggestions = suggestions
    }

    public var description: String { message }
}

public struct ParsedArguments: Sendable {
    public var values: [String: String] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []
    public var wantsHelp = false

    public init() {}

    public func value(_ name: String) -> String? { values[name] }
    public func has(_ name: String) -> Bool { flags.contains(name) }

    public func required(_ name: String) throws(UsageError) -> String {
        guard let value = values[name], !value.isEmpty else { throw UsageError("missing --\(name)") }
        return value
    }

    /// An integer option within `range`, or `defaultValue` when absent.
    public func integer(_ name: String, default defaultValue: Int? = nil, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(text))")
        }
        return number
    }

    public func number(_ name: String, range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError("--\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(text))")
        }
        return number
    }
}

public enum Arguments {
    public static func parse(_ arguments: [String], specs: [ArgumentSpec], maximumPositionals: Int = 0) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                continue
            }
            if argument == "--" {
                parsed.positionals.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                // `-4` and `-1d` are values (a negative number, a negative duration), not options.
                if argument.hasPrefix("-") && argument.count > 1 && Double(argument) == nil
                    && !(argument.dropFirst().first?.isNumber ?? false)
                {
                    // `-json` for `--json`: one dash short.
                    let name = String(argument.dropFirst())
                    let names = specs.filter { !$0.hidden }.map(\.name) + ["help"]
                    let close = (names.contains(name) ? [name] : Suggestions.closest(to: name, among: names)).map { "--" + $0 }
                    throw UsageError("unknown option \(OneLine.escape(argument))" + Suggestions.phrase(close), suggestions: close)
                }
                parsed.positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                let close = Suggestions.closest(to: name, among: specs.filter { !$0.hidden }.map(\.name) + ["help"]).map { "--" + $0 }
                throw UsageError("unknown option --\(OneLine.escape(name))" + Suggestions.phrase(close), suggestions: close)
            }
            if spec.valueName != nil {
                if let inlineValue {
                    parsed.values[name] = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    parsed.values[name] = arguments[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else { throw UsageError("--\(name) takes no value") }
                parsed.flags.insert(name)
            }
        }
        if parsed.positionals.count > maximumPositionals && !parsed.wantsHelp {
            throw UsageError("unexpected argument \(OneLine.quote(parsed.positionals[maximumPositionals]))")
        }
        return parsed
    }

    /// The options part of a usage text, aligned.
    public static func describe(_ specs: [ArgumentSpec]) -> String {
        let visible = specs.filter { !$0.hidden }
        let labels = visible.map { spec in "--\(spec.name)" + (spec.valueName.map { " \($0)" } ?? "") }
        let width = (labels.map(\.count).max() ?? 0) + 2
        return zip(labels, visible).map { label, spec in
            "  " + label + String(repeating: " ", count: max(1, width - label.count)) + spec.help
        }.joined(separator: "\n")
    }
}
