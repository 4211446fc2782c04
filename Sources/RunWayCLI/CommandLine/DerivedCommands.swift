import Connectivity
import Control
import JSONText
import Posix

/// The `runway` commands derived whole from their declarations (`ControlCommand.cli`), as
/// swift-argument-parser derives a command from one `ParsableCommand`: on each device that answers it,
/// `runway phone|watch WORDS --home DIR [--ARGUMENT VALUE]… [--json]` — its flags from its arguments (name,
/// kind, default, summary), its synopsis and help from them and from its summary, and so its completion
/// and its man entry, which read the command table. A command declared so has no CLI code of its own.
enum DerivedCLI {
    /// Every declared command's CLI form, in the catalogue's order.
    static var commands: [CLI.Command] { ControlCommands.declared.flatMap { commands(for: $0) } }

    /// `command`'s CLI form on each device that answers it (itself, or its OS for it), or none.
    static func commands<Command: ControlCommand>(for command: Command.Type) -> [CLI.Command] {
        guard let cli = Command.cli else { return [] }
        let spec = Command.spec
        return DeviceRole.allCases.compactMap { device in
            let server: ControlServerKind = device == .phone ? .phone : .watch
            guard spec.servers.contains(server) || spec.servers.contains(device == .phone ? .phoneOS : .watchOS) else { return nil }
            let arguments = spec.arguments
            let home = device == .phone ? "P" : "W"
            let synopsis = (["--home \(home)"] + arguments.map(synopsisPart) + ["[--json]"]).joined(separator: " ")
            return CLI.Command(
                path: [device.rawValue] + (cli.words ?? [spec.name]), synopsis: synopsis,
                summary: cli.help(device.rawValue, device == .phone ? "watch" : "phone"),
                specs: [CLI.homeSpec] + arguments.map(flag) + [CLI.jsonSpec], positionals: 0,
                run: { parsed in
                    var request = ControlRequest(command: spec.name)
                    for argument in arguments {
                        if isFlag(argument) {
                            if parsed.has(flagName(argument.name)) { request.arguments[argument.name] = .bool(true) }
                        } else if let text = parsed.value(flagName(argument.name)) {
                            request.arguments[argument.name] = try value(text, for: argument)
                        }
                    }
                    // Checked against the catalogue before it is sent: the daemon's own line, exit 2.
                    let reply = try SessionCLI.call(parsed, device, try Command(request: request.validated(on: server)))
                    Output.out(parsed.has("json") ? reply.json.text : reply.json.prettyText)
                    return 0
                },
                choices: Dictionary(uniqueKeysWithValues: arguments.compactMap { argument in choices(argument.kind).map { (flagName(argument.name), $0) } }))
        }
    }

    /// The hand-written commands with each derived one placed after the command nearest it in the tree
    /// (`phone context get` after `phone context set`), so that the help lists it among its neighbours.
    static func placed(among handWritten: [CLI.Command], _ derived: [CLI.Command] = commands) -> [CLI.Command] {
        var result = handWritten
        for command in derived {
            let shared = result.map { zip($0.path, command.path).prefix { $0 == $1 }.count }
            if let best = shared.max(), best > 0, let index = shared.lastIndex(of: best) {
                result.insert(command, at: index + 1)
            } else {
                result.append(command)
            }
        }
        return result
    }

    // MARK: - An argument as a flag

    /// `timeoutMs`: `timeout-ms`.
    static func flagName(_ name: String) -> String {
        name.reduce(into: "") { result, character in result += character.isUppercase ? "-" + character.lowercased() : String(character) }
    }

    /// A `bool` that defaults to false is a flag without a value: given, it is true.
    static func isFlag(_ argument: ControlArgumentSpec) -> Bool { argument.kind == .bool && argument.defaultValue == .bool(false) }

    static func flag(_ argument: ControlArgumentSpec) -> ArgumentSpec {
        if isFlag(argument) { return .flag(flagName(argument.name), argument.summary) }
        let defaultText = argument.defaultValue.map { " (default \($0.stringValue ?? $0.text))" } ?? ""
        return .option(flagName(argument.name), valueName(argument.kind), "\(argument.summary): \(argument.kind.text)\(defaultText)")
    }

    /// `--pages N` when required, `[--limit N]` when not.
    static func synopsisPart(_ argument: ControlArgumentSpec) -> String {
        let text = isFlag(argument) ? "--\(flagName(argument.name))" : "--\(flagName(argument.name)) \(valueName(argument.kind))"
        return argument.isRequired ? text : "[\(text)]"
    }

    /// The values a flag completes to: a choice's, a `bool`'s.
    static func choices(_ kind: ControlArgumentKind) -> [String]? {
        switch kind {
        case let .choice(values): values
        case let .intChoice(values): values.map(String.init)
        case .bool: ["true", "false"]
        default: nil
        }
    }

    static func valueName(_ kind: ControlArgumentKind) -> String {
        switch kind {
        case .int, .intChoice, .number: "N"
        case .string: "TEXT"
        case let .choice(values): values.joined(separator: "|")
        case .format(.flightID): "ID"
        case .format(.month): "MONTH"
        case .format(.base64): "BASE64"
        case .bool: "true|false"
        case .object, .array: "JSON"
        }
    }

    /// The flag's text as the argument's JSON. A number that does not parse goes as the text, for the
    /// catalogue's check to refuse in its own words (`limit must be a whole number from 1 to 100000`).
    static func value(_ text: String, for argument: ControlArgumentSpec) throws -> JSONValue {
        switch argument.kind {
        case .int, .intChoice: return Int(text).map { .integer(Int64($0)) } ?? .string(text)
        case .number: return Double(text).map(JSONValue.number) ?? .string(text)
        case .bool: return text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
        case .object, .array:
            do { return try JSONValue(parsing: Array(text.utf8)) } catch { throw UsageError("--\(flagName(argument.name)) is not valid JSON: \(error)") }
        case .string, .choice, .format: return .string(text)
        }
    }
}
