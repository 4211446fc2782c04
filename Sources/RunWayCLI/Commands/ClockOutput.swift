import Connectivity
import Control
import JSONText
import OSServices
import Posix
import Storage

// MARK: - `runway clock show|set|advance|reset`: one device's clock, or both of a pair's, phone first

/// The commands offered over a pair (`ControlCommandCLI.Form.pair`): each sent to the device in `--home`,
/// or to the phone in `--phone` and the watch in `--watch`, or to both of the registered pair — every one
/// reached before any is changed, the arguments checked first (bad input is exit 2 whether or not the
/// daemons run).
enum PairScope {
    static let targetSpecs: [ArgumentSpec] = [
        .option("home", "DIR", "one device's home (a phone's or a watch's)"),
        .option("phone", "P", "the phone's home (with --watch: both devices, phone first)"),
        .option("watch", "W", "the watch's home"),
        CLI.pairSpec,
    ]

    static func command<Command: ControlCommand>(
        _ type: Command.Type, _ cli: ControlCommandCLI, _ form: ControlCommandCLI.Form, _ arguments: [DerivedCLI.Argument]
    ) -> CLI.Command {
        let offered = arguments.filter { !$0.cli.hidden }
        let positionals = offered.filter { $0.cli.position != nil }
        let flags = DerivedCLI.uniqueFlags(offered)
        let synopsis =
            (positionals.map(DerivedCLI.valueName) + ["[--home H | --phone P [--watch W] | --pair NAME]"] + flags.map(DerivedCLI.synopsisPart)
            + ["[--json]"]).joined(separator: " ")
        return CLI.Command(
            path: form.words, synopsis: synopsis, summary: form.help("device", "other"), specs: targetSpecs + flags.map(DerivedCLI.flag) + [CLI.jsonSpec],
            positionals: positionals.count,
            run: { parsed in
                let context = DerivedCLI.Context(parsed: parsed, device: .phone, path: form.words)
                let command = try DerivedCLI.made(Command.self, form, arguments, context)
                let clients = try targets(parsed).map { target in (target.label, DeviceClient(home: target.home)) }
                for (_, client) in clients { _ = try client.client(for: Command.spec) }
                var results: [(label: String, reply: Command.Reply)] = []
                for (label, client) in clients { results.append((label, try client.send(command))) }
                guard let output = Command.self as? any CLIPairOutput.Type else { return 0 }
                Output.out(render(output, results, json: parsed.has("json")))
                return 0
            }, topic: cli.topic)
    }

    private static func render<Output: CLIPairOutput, Reply>(_ type: Output.Type, _ results: [(label: String, reply: Reply)], json: Bool) -> String {
        Output.render(results.map { ($0.label, $0.reply as! Output.Reply) }, json: json)
    }

    struct Target {
        let label: String
        let home: DeviceHome
    }

    /// `--home H` (one device, of either kind), or `--phone P` and/or `--watch W`; not both forms.
    static func targets(_ parsed: ParsedArguments) throws -> [Target] {
        let home = parsed.value("home"), phone = parsed.value("phone"), watch = parsed.value("watch")
        if home != nil && (phone != nil || watch != nil) {
            throw ControlError.invalid("clock: give either --home or --phone/--watch, not both")
        }
        if let home {
            _ = try checkedHome(home, nil)
            let role = try role(of: home)
            return [Target(label: role.rawValue, home: DeviceHome(path: home, role: role))]
        }
        guard phone != nil || watch != nil else {
            // The registered pair, as every other command takes it (--pair, RUNWAY_PAIR, the only one): both devices.
            let registry = try PairRegistry.load()
            guard !registry.pairs.isEmpty || parsed.value("pair") != nil else {
                throw ControlError.invalid("clock: say which device: --home H, or --phone P [--watch W], or a registered pair (runway pair)")
            }
            let pair = try registry.resolve(parsed)
            return [
                Target(label: "phone", home: try checkedHome(pair.phone, .phone)),
                Target(label: "watch", home: try checkedHome(pair.watch, .watch)),
            ]
        }
        return try [(DeviceRole.phone, phone), (.watch, watch)].compactMap { role, path in
            try path.map { Target(label: role.rawValue, home: try checkedHome($0, role)) }
        }
    }

    /// Which device `path` is: the role its store records (read only, harmless to a running device),
    /// else a guess from its sockets (only a phone's home has a link socket) that the daemon checks (a
    /// request carries the role it expects, and the other device refuses it, exit 2). Nothing listening
    /// at all — no app's `control.sock`, no OS's `os.sock` — is exit 1. Under phone-os or watch-os with
    /// the app not running, the OS answers: `--home` reaches it exactly as `--pair` does.
    static func role(of path: String) throws -> DeviceRole {
        let home = DeviceHome(path: path, role: .phone)
        let listening = [home.controlSocketPath, home.osControlSocketPath].contains { Filesystem.kind(of: $0) == .socket }
        guard listening else {
            throw ControlError(
                "no daemon is running for \(home.path) (no app and no OS: nothing listens on \(home.controlSocketPath) or \(home.osControlSocketPath))")
        }
        if home.hasStore, let store = try? Database(path: home.storePath, readOnly: true), let role = try? SessionStore.recordedRole(store) {
            return role
        }
        return Filesystem.kind(of: home.linkSocketPath) == .socket ? .phone : .watch
    }

    /// A directory that is a device home (of `role`, or of either kind when nil); else exit 2.
    static func checkedHome(_ path: String, _ role: DeviceRole?) throws -> DeviceHome {
        let home = DeviceHome(path: path, role: role ?? .phone)
        let kind = role.map { "a \($0.rawValue) home" } ?? "a device home"
        switch Filesystem.kind(of: home.path) {
        case .missing: throw ControlError.invalid("\(home.path) does not exist, so it is not \(kind)")
        case .directory: break
        default: throw ControlError.invalid("\(home.path) is not \(kind) (it is not a directory)")
        }
        guard home.hasStore || Filesystem.kind(of: home.controlSocketPath) == .socket else {
            throw ControlError.invalid("\(home.path) is not \(kind) (it has no store.sqlite; create homes with runway pair or by starting the daemon)")
        }
        return home
    }
}

/// How a command offered over a pair shows its replies, one per device.
protocol CLIPairOutput: ControlCommand {
    static func render(_ results: [(label: String, reply: Reply)], json: Bool) -> String
}

/// The clock's calls, each answered with the clock after it.
protocol ClockCall: CLIPairOutput where Reply == ClockReply {}

extension ClockCall {
    /// `phone  2026-10-08 16:00:00 +09:00  frozen`, then each notification the change delivered; under
    /// `--json` the reading, or the readings by device.
    static func render(_ results: [(label: String, reply: ClockReply)], json: Bool) -> String {
        if json {
            let readings = results.map { ($0.label, $0.reply.reading.json) }
            return readings.count == 1 ? readings[0].1.text : JSONValue.object(Dictionary(uniqueKeysWithValues: readings)).text
        }
        var lines: [String] = []
        for (label, result) in results {
            let now = Timestamp.parseISO8601(result.now).map(TimeText.localDateTime) ?? "?"
            lines.append("\(label.padding(5))  \(now)  \(result.mode)")
            for item in result.delivered ?? [] { lines.append("  delivered " + NotificationText.line(item, at: item.deliveredAt)) }
        }
        return lines.joined(separator: "\n")
    }
}

extension ClockRequest.Show: ClockCall {}
extension ClockRequest.Reset: ClockCall {}

extension ClockRequest.SetTime: ClockCall, CLIPrepared {
    /// Between 2001-01-01 and 2100-01-01, checked here too (the OS would refuse it the same way).
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws {
        guard let at = arguments["at"]?.doubleValue, DeviceClock.range.contains(at) else {
            throw ControlError.invalid("clock set: \(OneLine.quote(context.parsed.positionals.first ?? "")) is outside 2001-01-01 to 2100-01-01")
        }
    }
}

extension ClockRequest.Advance: ClockCall, CLIPrepared {
    /// Forward, and at most 3650 days.
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws {
        guard let seconds = arguments["seconds"]?.doubleValue, seconds > 0, seconds <= DeviceClock.maximumAdvance else {
            throw ControlError.invalid("clock advance: \(OneLine.quote(context.parsed.positionals.first ?? "")) must be more than 0 and at most 3650d")
        }
    }
}
