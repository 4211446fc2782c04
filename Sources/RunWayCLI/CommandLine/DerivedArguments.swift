import Control
import Posix

/// A derived command's argument as a flag or a positional: its flag's name, its synopsis, its help's
/// line, its values for completion, its value's name.
extension DerivedCLI {

    typealias Argument = (spec: ControlArgumentSpec, cli: ControlArgumentCLI)

    /// `timeoutMs`: `timeout-ms`.
    static func flagName(_ name: String) -> String {
        name.reduce(into: "") { result, character in result += character.isUppercase ? "-" + character.lowercased() : String(character) }
    }

    static func flagName(_ argument: Argument) -> String { argument.cli.flag ?? flagName(argument.spec.name) }

    /// The flags, one each: two arguments read from one flag (`--target-hr`) are offered once.
    static func uniqueFlags(_ arguments: [Argument]) -> [Argument] {
        var seen = Set<String>()
        return arguments.filter { $0.cli.position == nil && seen.insert(flagName($0)).inserted }
    }

    /// A flag without a value: a `bool` that defaults to false, given for true; or one that sets false.
    static func isFlag(_ argument: Argument) -> Bool {
        argument.cli.syntax == .setsFalse || (argument.spec.kind == .bool && argument.spec.defaultValue == .bool(false))
    }

    static func flag(_ argument: Argument) -> ArgumentSpec {
        if isFlag(argument) { return .flag(flagName(argument), argument.cli.help ?? argument.spec.summary) }
        let defaultText = argument.spec.defaultValue.map { " (default \($0.stringValue ?? $0.text))" } ?? ""
        return .option(flagName(argument), valueName(argument), argument.cli.help ?? "\(argument.spec.summary): \(kindText(argument))\(defaultText)")
    }

    /// `--pages N` when required, `[--limit N]` when not.
    static func synopsisPart(_ argument: Argument) -> String {
        let text = isFlag(argument) ? "--\(flagName(argument))" : "--\(flagName(argument)) \(valueName(argument))"
        return argument.spec.isRequired ? text : "[\(text)]"
    }

    static func optionalPart(_ spec: ArgumentSpec) -> String { "[--\(spec.name)\(spec.valueName.map { " " + $0 } ?? "")]" }

    /// The values a flag completes to: those the CLI offers, a choice's, a `bool`'s.
    static func choices(_ argument: Argument) -> [String]? {
        if let values = argument.cli.values { return values }
        switch argument.spec.kind {
        case let .choice(values): return values
        case let .intChoice(values): return values.map(String.init)
        case .bool: return ["true", "false"]
        default: return nil
        }
    }

    static func valueName(_ argument: Argument) -> String {
        if let name = argument.cli.valueName { return name }
        if let values = argument.cli.values { return values.joined(separator: "|") }
        switch argument.spec.kind {
        case let .intChoice(values): return values.map(String.init).joined(separator: "|")
        case .int, .number: return "N"
        case .string: return "TEXT"
        case let .choice(values): return values.joined(separator: "|")
        case .format(.flightID): return "ID"
        case .format(.month): return "MONTH"
        case .format(.base64): return "BASE64"
        case .bool: return "true|false"
        case .object, .array: return "JSON"
        }
    }

    /// What the value must be, as the CLI offers it.
    static func kindText(_ argument: Argument) -> String {
        if let values = argument.cli.values { return ControlArgumentKind.choice(values).text }
        switch argument.cli.syntax {
        case .plain, .setsFalse: return argument.spec.kind.text
        case .jsonObjectFile: return "a file holding one JSON object (- for stdin)"
        case .path: return "a file's path"
        case .pace: return "M:SS from 2:00 to 20:00"
        case .zoneLow, .zoneHigh: return "LOW-HIGH with 40 <= LOW < HIGH <= 220"
        case .duration: return "a duration, [Nd][Nh][Nm][Ns] (7d, 1d12h, 90s)"
        case .instant: return "a time, ISO 8601 with a UTC offset or Z"
        }
    }
}
