import Connectivity
import Control
import JSONText
import Posix

/// The `runway` commands derived from their declarations (`ControlCommand.cli`, issue 53), as
/// swift-argument-parser derives a command from one `ParsableCommand`: each form of each command on each
/// device it names — its words, its flags and positionals from its arguments (name, kind, syntax,
/// default, summary), its synopsis and help, and so its completion and its man entry, which read the
/// command table. Running one makes the command's value from the words, checks it as the daemon will,
/// sends it, and prints its reply: as JSON under `--json`, else through the command's `Render`
/// (beside the other renders of its family in `Sources/RunWayCLI/Commands`), else as indented JSON.
enum DerivedCLI {
    /// Every declared command's CLI forms, in the catalogue's order.
    static var commands: [CLI.Command] { ControlCommands.declared.flatMap { commands(for: $0) } }

    /// What the CLI knows of a running command: the words parsed, the device it talks to.
    struct Context {
        let parsed: ParsedArguments
        let device: DeviceRole
        /// The command's words, as typed (`phone app open`).
        let path: [String]
        var json: Bool { parsed.has("json") }

        func client() throws -> DeviceClient { try CLI.client(parsed, device) }
    }

    /// `command`'s forms, each on each device it names.
    static func commands<Command: ControlCommand>(for command: Command.Type) -> [CLI.Command] {
        guard let cli = Command.cli else { return [] }
        let arguments = Command.declaredArguments()
        return cli.forms.flatMap { form -> [CLI.Command] in
            switch form.place {
            case let .device(on):
                return devices(Command.spec, on).map { device in
                    derive(
                        Command.self, cli, form, arguments, path: [device.rawValue] + form.words, device: device,
                        summary: form.help(device.rawValue, device.other))
                }
            case let .top(device, alias):
                let main = derive(Command.self, cli, form, arguments, path: form.words, device: device, summary: form.help(device.rawValue, device.other))
                guard alias else { return [main] }
                var under = derive(
                    Command.self, cli, form, arguments, path: [device.rawValue] + form.words, device: device,
                    summary: "The same as runway \(form.words.joined(separator: " ")). " + main.summary)
                under.isAlias = true
                return [main, under]
            case .pair:
                return [PairScope.command(Command.self, cli, form, arguments)]
            }
        }
    }

    /// The devices a command is offered on: those whose app or OS answers it, or the one named.
    static func devices(_ spec: ControlCommandSpec, _ named: DeviceRole?) -> [DeviceRole] {
        if let named { return [named] }
        return DeviceRole.allCases.filter { spec.servers.contains($0.server) || spec.servers.contains($0.osServer) }
    }

    static func derive<Command: ControlCommand>(
        _ type: Command.Type, _ cli: ControlCommandCLI, _ form: ControlCommandCLI.Form, _ arguments: [(spec: ControlArgumentSpec, cli: ControlArgumentCLI)],
        path: [String], device: DeviceRole, summary: String
    ) -> CLI.Command {
        let offered = arguments.filter { !$0.cli.hidden && form.sets[$0.spec.name] == nil }
        let positionals = offered.filter { $0.cli.position != nil }.sorted { $0.cli.position! < $1.cli.position! }
        let flags = uniqueFlags(offered.filter { $0.cli.position == nil })
        let home = "[--home \(device == .phone ? "P" : "W")]"
        let synopsis =
            cli.synopsis.map { $0.replacingOccurrences("HOME", home) }
            ?? (positionals.map { $0.spec.isRequired ? valueName($0) : "[\(valueName($0))]" } + [home] + flags.map(synopsisPart)
            + cli.options.map(optionalPart) + (cli.repliesInJSON ? ["[--json]"] : [])).joined(separator: " ")
        var choices: [String: [String]] = [:]
        for argument in flags { choices[flagName(argument)] = self.choices(argument) }
        for (index, argument) in positionals.enumerated() { choices["#\(index)"] = self.choices(argument) }
        return CLI.Command(
            path: path, synopsis: synopsis, summary: summary,
            specs: [CLI.homeSpec] + flags.map(flag) + cli.options + (cli.repliesInJSON ? [CLI.jsonSpec] : []),
            positionals: positionals.count + cli.positionals.count,
            run: { parsed in
                let context = Context(parsed: parsed, device: device, path: path)
                return try run(try made(Command.self, form, arguments, context), context)
            },
            choices: choices.compactMapValues { $0 }, topic: cli.topic)
    }

    /// The command's value from the words: what the form sets, then each argument from its flag or
    /// positional, its text read by its syntax and checked against its kind (one line, exit 2, naming the
    /// flag), then the whole checked as the daemon checks it.
    static func made<Command: ControlCommand>(
        _ type: Command.Type, _ form: ControlCommandCLI.Form, _ arguments: [(spec: ControlArgumentSpec, cli: ControlArgumentCLI)], _ context: Context
    ) throws -> Command {
        var values = form.sets.filter { $0.value != .null }
        let parsed = context.parsed
        for argument in arguments where !argument.cli.hidden && form.sets[argument.spec.name] == nil {
            let name = argument.spec.name
            if let position = argument.cli.position {
                guard position < parsed.positionals.count else {
                    // One line naming the command, as a positional's bad value is (`link fail-next` with no N).
                    if argument.spec.isRequired {
                        throw ControlError.invalid("\(words(context.path)): \(valueName(argument)) is required: \(kindText(argument))")
                    }
                    continue
                }
                values[name] = try ValueSyntax.read(parsed.positionals[position], argument, label: valueName(argument), words: words(context.path))
            } else if isFlag(argument) {
                if parsed.has(flagName(argument)) { values[name] = .bool(argument.cli.syntax != .setsFalse) }
            } else if let text = parsed.value(flagName(argument)) {
                values[name] = try ValueSyntax.read(
                    text, argument, label: "--" + flagName(argument), words: words(context.path), oneLine: Command.cli?.oneLineErrors ?? false)
            } else if argument.spec.isRequired, !(Command.self is any CLIPrepared.Type) {
                throw UsageError("missing --\(flagName(argument))")
            }
        }
        if let prepared = Command.self as? any CLIPrepared.Type { try prepared.prepare(&values, context) }
        let server = context.device.server(for: Command.spec)
        return try Command(request: try ControlRequest(command: Command.spec.name, arguments: values).validated(on: server))
    }

    /// Runs a command made from the words: the CLI's own preparation, then its procedure, or the request
    /// and its reply printed.
    static func run<Command: ControlCommand>(_ command: Command, _ context: Context) throws -> Int32 {
        if let performed = Command.self as? any CLIPerformed.Type { return try perform(performed, command, context) }
        let reply = try context.client().send(command)
        Output.out(try text(reply, of: command, context))
        return 0
    }

    /// The reply as printed: JSON on one line under `--json` (a command whose words are its output wraps
    /// them instead: `CLI.wrapsJSON`), else the command's render, else indented JSON.
    static func text<Command: ControlCommand>(_ reply: Command.Reply, of command: Command, _ context: Context) throws -> String {
        if context.json, Command.cli?.repliesInJSON ?? true { return reply.json.text }
        if let render = Render.all[ObjectIdentifier(Command.self)] { return try render.text(reply, command, context) }
        return reply.json.prettyText
    }

    private static func perform<Performed: CLIPerformed, Command: ControlCommand>(_ type: Performed.Type, _ command: Command, _ context: Context) throws
        -> Int32
    {
        try Performed.perform(command as! Performed, context)
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

    /// `clock advance`, `cancel`: the command's words, the device left out.
    static func words(_ path: [String]) -> String {
        (DeviceRole(rawValue: path.first ?? "") != nil ? path.dropFirst() : path[...]).joined(separator: " ")
    }
}

/// How a command derived from its declaration shows its reply to a person: one row of a table by the
/// command's type, in its family's list beside the others (`Render.session` in
/// `Sources/RunWayCLI/Commands/SessionOutput.swift`, …). A command without one prints its reply as
/// indented JSON.
struct Render: Sendable {
    let command: ObjectIdentifier
    let text: @Sendable (_ reply: Any, _ command: Any, DerivedCLI.Context) throws -> String

    /// `Command`'s render: its reply, the command as sent (its arguments), and the context it ran in.
    static func of<Command: ControlCommand>(
        _ type: Command.Type, _ render: @escaping @Sendable (Command.Reply, Command, DerivedCLI.Context) throws -> String
    ) -> Render {
        Render(command: ObjectIdentifier(type)) { reply, command, context in try render(reply as! Command.Reply, command as! Command, context) }
    }

    /// Every family's renders, by the command's type.
    static let all = Dictionary(
        uniqueKeysWithValues: (apps + device + inspection + link + liveRun + logbook + osServices + runWayApp + session + update + faults).map {
            ($0.command, $0)
        })
}

/// What the CLI checks or completes in the arguments read from the words, before they are checked as the
/// daemon checks them: what depends on two flags together (`link set` names at least one condition), or
/// comes from a file or options of the CLI's own (`link schedule FILE`, `run sample --t … --hr …`).
protocol CLIPrepared: ControlCommand {
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws
}

/// A command whose CLI is more than one request and its reply (`record` in chunks, `delete` after a
/// confirmation): its words, flags, help and completion are derived all the same.
protocol CLIPerformed: ControlCommand {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32
}

extension DeviceRole {
    /// `watch` for the phone.
    var other: String { self == .phone ? "watch" : "phone" }
    /// The device's app's server, and its OS's.
    var server: ControlServerKind { self == .phone ? .phone : .watch }
    var osServer: ControlServerKind { self == .phone ? .phoneOS : .watchOS }

    /// The server that checks `spec` for this device: the app's if it answers it, else its OS's.
    func server(for spec: ControlCommandSpec) -> ControlServerKind { spec.servers.contains(server) ? server : osServer }
}
