import Connectivity
import Control
import JSONText
import Posix

/// `runway`: the command-line client of the simulated pair.
package enum CLI {
    /// One subcommand: where it sits (`phone logbook`), its options, and what it does.
    struct Command: Sendable {
        let path: [String]
        let synopsis: String
        let summary: String
        let specs: [ArgumentSpec]
        let positionals: Int
        let run: @Sendable (ParsedArguments) throws -> Int32
        /// The values an option takes, by its name, for completion: a derived command's choices (a
        /// positional's by `#N`).
        var choices: [String: [String]] = [:]
        /// Where `runway --help` lists it.
        var topic: CLITopic = .runway
        /// Another way to say a command (`runway watch link down` for `runway link down`): listed after it.
        var isAlias = false
    }

    /// Every command: the hand-written ones, and those derived from their declarations (`DerivedCLI`),
    /// by topic (`CLITopic`: what a user of any app looks for first, RunWay's own app last), each topic's
    /// aliases after the commands they stand for.
    static let commands: [Command] = CLITopic.allCases.flatMap { topic in
        let listed = DerivedCLI.placed(among: handWritten).filter { $0.topic == topic }
        return listed.filter { !$0.isAlias } + listed.filter(\.isAlias)
    }

    /// The commands that are not the catalogue's: the registry and the launcher, the views, the scenarios,
    /// this tool's own help, completion and man page — and `message`'s data form is its own command's.
    static let handWritten: [Command] =
        ([PairCommand.command] + RegistryCommands.all).map { $0.in(.pairs) } + [DumpCommand.command.in(.devices)]
        + (ViewCommands.all + ScenarioCommands.all).map { $0.in(.scenarios) } + DocumentationCommands.all.map { $0.in(.tool) }

    package static func main(_ arguments: [String]) -> Int32 {
        if arguments == ["--version"] || arguments == ["-v"] {
            Output.out("runway \(RunWayPair.version) (RunWay Pair; simulates RunWay \(RunWayPair.appVersion))")
            return 0
        }
        // `runway help phone app kill`: that command's help (or its group's), as with `--help`.
        if arguments.first == "help", arguments.count > 1, !arguments[1].hasPrefix("-") {
            return main(Array(arguments.dropFirst()) + ["--help"])
        }
        // The shells' completion (`runway completion`): not a command of its own, never in the help.
        if arguments.first == "__complete" {
            Output.out(Completion.answer(Array(arguments.dropFirst())).text)
            return 0
        }
        // The longest command path that prefixes the arguments.
        let match =
            commands
            .filter { arguments.starts(with: $0.path) }
            .max { $0.path.count < $1.path.count }
        let wantsHelp = arguments.contains("--help") || arguments.contains("-h")
        guard let command = match else {
            if arguments.isEmpty || arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] {
                Output.out(usage())
                return arguments.isEmpty ? 2 : 0
            }
            let prefix = Array(arguments.prefix { !$0.hasPrefix("-") })
            let group = commands.filter { !prefix.isEmpty && $0.path.starts(with: prefix) }
            // `runway phone` alone (or with --help): the commands under it.
            if !group.isEmpty && (prefix.count == arguments.count || wantsHelp) {
                Output.out(groupUsage(prefix, group))
                return 0
            }
            if !group.isEmpty {
                let words = prefix.joined(separator: " ")
                fail(
                    arguments, name: "usage", message: "'runway \(words)' needs a command after it",
                    text: "runway: 'runway \(words)' needs a command after it\ntry 'runway \(words) --help'")
                return 2
            }
            return unknownCommand(arguments, prefix)
        }
        let rest = Array(arguments.dropFirst(command.path.count))
        // `runway phone quarantine remov 3`: a word where a subcommand goes, not an argument.
        if command.positionals == 0, let word = rest.first, !word.hasPrefix("-"), !wantsHelp,
            commands.contains(where: { $0.path.count > command.path.count && $0.path.starts(with: command.path) })
        {
            return unknownCommand(arguments, command.path + rest.prefix { !$0.hasPrefix("-") })
        }
        let parsed: ParsedArguments
        let specs = effectiveSpecs(command)
        let name = command.path.joined(separator: " ")
        do {
            parsed = try Arguments.parse(rest, specs: specs, maximumPositionals: command.positionals)
        } catch {
            usageFailure(arguments, name, error)
            return 2
        }
        if parsed.wantsHelp {
            Output.out(help(command))
            return 0
        }
        do {
            guard wrapsJSON(command), parsed.has("json") else { return try command.run(parsed) }
            Output.captured = []
            defer { Output.captured = nil }
            let status = try command.run(parsed)
            let lines = (Output.captured ?? []).flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
            let output = lines.last == "" ? Array(lines.dropLast()) : lines
            Output.captured = nil
            Output.out(JSONValue.object(["ok": .bool(status == 0), "output": .array(output.map(JSONValue.string))]).text)
            return status
        } catch {
            return failure(error, arguments, name)
        }
    }

    /// A command's error, told on stderr (`fail`): its exit status.
    static func failure(_ error: any Error, _ arguments: [String], _ name: String) -> Int32 {
        switch error {
        case let error as UsageError:
            usageFailure(arguments, name, error)
            return 2
        case let error as ControlError:
            fail(
                arguments, code: error.wcError?.code.rawValue, name: error.wcError?.name ?? (error.exitStatus == 2 ? "invalid" : "failed"),
                message: error.message, reason: error.reason, text: "runway: \(error.message)")
            return error.exitStatus
        case let error as WCError:
            fail(arguments, code: error.code.rawValue, name: error.name, message: error.message, text: "runway: \(error)")
            return 1
        case let error as DeviceHome.HomeError:
            fail(arguments, code: nil, name: "invalid", message: error.description, text: "runway: \(error)")
            return 2
        default:
            fail(arguments, code: nil, name: "failed", message: "\(error)", text: "runway: \(error)")
            return 1
        }
    }

    /// Reports a failure on stderr: `text` for people, or under `--json` one line of JSON for scripts,
    /// `{"error":{"code":7009,"name":"payloadTooLarge","message":"…"}}` (`code` only for WatchConnectivity
    /// errors; `didYouMean` for an unknown command or option close to known ones; `reason` where a command's
    /// failures are told apart, as `cancel`'s are).
    static func fail(
        _ arguments: [String], code: Int? = nil, name: String, message: String, suggestions: [String] = [], reason: String? = nil, text: String
    ) {
        guard arguments.contains("--json") else {
            Output.err(text)
            return
        }
        var error: [String: JSONValue] = ["name": .string(name), "message": .string(message)]
        if let code { error["code"] = .integer(Int64(code)) }
        if !suggestions.isEmpty { error["didYouMean"] = .array(suggestions.map(JSONValue.string)) }
        if let reason { error["reason"] = .string(reason) }
        Output.err(JSONValue.object(["error": .object(error)]).text)
    }

    /// A usage error: the one line, then where the help is — not the whole help page.
    static func usageFailure(_ arguments: [String], _ name: String, _ error: UsageError) {
        fail(
            arguments, name: "usage", message: error.message, suggestions: error.suggestions,
            text: "runway \(name): \(error.message)\ntry 'runway \(name) --help'")
    }

    /// `runway phone logbok`: the words that are not a command, what they may have meant, and the help to
    /// read (the deepest group the words did name). Exit 2.
    static func unknownCommand(_ arguments: [String], _ words: [String]) -> Int32 {
        let (known, suggestions) = CommandSuggestions.suggest(words)
        let typed = words.joined(separator: " ")
        let message = "unknown command \(OneLine.quote(typed))" + Suggestions.phrase(suggestions, quoted: true)
        let helpWords = (["runway"] + known + ["--help"]).joined(separator: " ")
        fail(arguments, name: "usage", message: message, suggestions: suggestions, text: "runway: \(message)\ntry '\(helpWords)'")
        return 2
    }

    /// Wherever a home can be given, a registered pair can name it instead (`--pair`).
    static func effectiveSpecs(_ command: Command) -> [ArgumentSpec] {
        var specs = command.specs
        if command.path != ["pair"] && specs.contains(where: { $0.name == "home" || $0.name == "phone" }) && !specs.contains(where: { $0.name == "pair" }) {
            specs.append(pairSpec)
        }
        if wrapsJSON(command) { specs.append(jsonSpec) }
        return specs
    }

    /// `--json` on every command: a command with no JSON form of its own (one that only confirms, like
    /// `link down`, or prints a script, like `completion`) prints `{"ok":true,"output":[its lines]}`.
    /// Not `phone ui`, whose output never ends.
    static func wrapsJSON(_ command: Command) -> Bool {
        !command.specs.contains { $0.name == "json" } && command.path != ["phone", "ui"]
    }

    // MARK: - Shared pieces

    /// `--home`, else the `role`'s home of the registered pair (`--pair NAME`, `RUNWAY_PAIR`, or the only one).
    static func homePath(_ parsed: ParsedArguments, _ role: DeviceRole) throws -> String {
        if let home = parsed.value("home"), !home.isEmpty { return home }
        let pair = try PairRegistry.load().resolve(parsed)
        return role == .phone ? pair.phone : pair.watch
    }

    /// Accepted wherever `--home` is: the registered pair to take the home from.
    static let pairSpec = ArgumentSpec.option("pair", "NAME", "the registered pair to use instead of --home (runway list)")

    static let homeSpec = ArgumentSpec.option("home", "DIR", "the device's home directory (default: the registered pair's)")
    static let jsonSpec = ArgumentSpec.flag("json", "print JSON for scripts")

    /// A client of the daemon of the home in `--home`. A path that is not a home at all is invalid input
    /// (exit 2); a home whose daemon is not running is a failure (exit 1) — found by the first request,
    /// after its arguments were checked: bad input is exit 2 whether or not the daemon runs.
    static func client(_ parsed: ParsedArguments, _ role: DeviceRole) throws -> DeviceClient {
        DeviceClient(home: try PairScope.checkedHome(try homePath(parsed, role), role))
    }
}
