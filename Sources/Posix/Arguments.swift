/// A small command-line parser shared by the daemons and the CLI: `--name value`, `--name=value`,
/// boolean `--flag`s, and positional arguments. Anything else is a usage error (exit status 2).
package struct ArgumentSpec: Sendable {
    package let name: String
    package let valueName: String?
    package let help: String
    package let hidden: Bool

    /// An option that takes a value (`--home DIR`).
    package static func option(_ name: String, _ valueName: String, _ help: String, hidden: Bool = false) -> ArgumentSpec {
        ArgumentSpec(name: name, valueName: valueName, help: help, hidden: hidden)
    }

    /// A boolean flag (`--json`).
    package static func flag(_ name: String, _ help: String, hidden: Bool = false) -> ArgumentSpec {
        ArgumentSpec(name: name, valueName: nil, help: help, hidden: hidden)
    }
}

package struct UsageError: Error, CustomStringConvertible, Sendable {
    package let message: String
    /// What the user may have meant (`--count` for `--cout`); the message already says it, this is for
    /// a program (`runway`'s JSON error).
    package let suggestions: [String]

    package init(_ message: String, suggestions: [String] = []) {
        self.message = message
        self.suggestions = suggestions
    }

    package var description: String { message }
}

package struct ParsedArguments: Sendable {
    /// Each option's last value.
    package var values: [String: String] = [:]
    /// Every value of each option, in order (a repeatable option: `--app-arg A --app-arg B`).
    package var allValues: [String: [String]] = [:]
    package var flags: Set<String> = []
    package var positionals: [String] = []
    package var wantsHelp = false

    package init() {}

    package func value(_ name: String) -> String? { values[name] }
    /// Every value given for a repeatable option, in order.
    package func values(_ name: String) -> [String] { allValues[name] ?? [] }
    package func has(_ name: String) -> Bool { flags.contains(name) }

    package func required(_ name: String) throws(UsageError) -> String {
        guard let value = values[name], !value.isEmpty else { throw UsageError("missing --\(name)") }
        return value
    }

    /// An integer option within `range`, or `defaultValue` when absent.
    package func integer(_ name: String, default defaultValue: Int? = nil, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return defaultValue }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(text))")
        }
        return number
    }

    package func number(_ name: String, range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError("--\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(text))")
        }
        return number
    }
}

package enum Arguments {
    package static func parse(_ arguments: [String], specs: [ArgumentSpec], maximumPositionals: Int = 0) throws(UsageError) -> ParsedArguments {
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
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                parsed.values[name] = value
                parsed.allValues[name, default: []].append(value)
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
    package static func describe(_ specs: [ArgumentSpec]) -> String {
        let visible = specs.filter { !$0.hidden }
        let labels = visible.map { spec in "--\(spec.name)" + (spec.valueName.map { " \($0)" } ?? "") }
        let width = (labels.map(\.count).max() ?? 0) + 2
        return zip(labels, visible).map { label, spec in
            "  " + label + String(repeating: " ", count: max(1, width - label.count)) + spec.help
        }.joined(separator: "\n")
    }
}
