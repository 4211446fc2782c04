import Connectivity
import Control
import OSServices
import JSONText
import Posix
import RunWayDomain
import Storage

/// `runway clock show|set|advance|reset`: the devices' clocks (device time), for one home or for both
/// devices at once, phone first.
enum ClockCommands {
    static let targetSpecs: [ArgumentSpec] = [
        .option("home", "DIR", "one device's home (a phone's or a watch's)"),
        .option("phone", "P", "the phone's home (with --watch: both devices, phone first)"),
        .option("watch", "W", "the watch's home"),
        CLI.pairSpec,
    ]

    static let show = command(
        "show", synopsis: "[--home H | --phone P [--watch W] | --pair NAME] [--json]",
        summary: "Shows each device's time (local, TZ), and whether its clock runs (offset) or is frozen.",
        positionals: 0
    ) { _ in ClockRequest.Show() }

    static let set = command(
        "set", synopsis: "TIME [--home H | --phone P [--watch W] | --pair NAME] [--frozen] [--json]",
        summary: """
            Sets the device clock to TIME, ISO 8601 with a UTC offset or Z (2026-10-01T07:00:00+09:00), between
            2001-01-01 and 2100-01-01. It runs on from there, or stays there with --frozen until the next clock
            command. Backwards is allowed: what was delivered stays delivered. Whatever falls due (the phone's
            notifications) is delivered, in fire order, before the command returns.
            """, extra: [.flag("frozen", "stop the clock at TIME")], positionals: 1
    ) { parsed in
        guard let text = parsed.positionals.first else { throw ControlError.invalid("clock set: a TIME is required (2026-10-01T07:00:00Z)") }
        let at: Double
        switch TimeText.parseInstant(text) {
        case let .success(value): at = value
        case let .failure(error): throw ControlError.invalid("clock set: \(OneLine.quote(text)): \(error)")
        }
        guard DeviceClock.range.contains(at) else {
            throw ControlError.invalid("clock set: \(OneLine.quote(text)) is outside 2001-01-01 to 2100-01-01")
        }
        return ClockRequest.SetTime {
            $0.at = at
            $0.frozen = parsed.has("frozen")
        }
    }

    static let advance = command(
        "advance", synopsis: "DURATION [--home H | --phone P [--watch W] | --pair NAME] [--json]",
        summary: """
            Moves the device clock forward by DURATION, [Nd][Nh][Nm][Ns] (7d, 1d12h, 90s): more than 0, at most
            3650d. A frozen clock stays frozen at the new time. What falls due is delivered before it returns.
            """, positionals: 1
    ) { parsed in
        guard let text = parsed.positionals.first else { throw ControlError.invalid("clock advance: a DURATION is required (7d, 1d12h, 90s)") }
        if text.hasPrefix("-") { throw ControlError.invalid("clock advance: \(OneLine.quote(text)) must be more than 0 (the clock goes back with clock set)") }
        guard let seconds = TimeText.parseDuration(text) else {
            throw ControlError.invalid("clock advance: \(OneLine.quote(text)) is not a duration ([Nd][Nh][Nm][Ns], such as 7d or 1d12h)")
        }
        guard seconds > 0, seconds <= DeviceClock.maximumAdvance else {
            throw ControlError.invalid("clock advance: \(OneLine.quote(text)) must be more than 0 and at most 3650d")
        }
        return ClockRequest.Advance { $0.seconds = seconds }
    }

    static let reset = command(
        "reset", synopsis: "[--home H | --phone P [--watch W] | --pair NAME] [--json]",
        summary: "Puts the device clock back on the system's time, running (offset 0).",
        positionals: 0
    ) { _ in ClockRequest.Reset() }

    static var all: [CLI.Command] { [show, set, advance, reset] }

    // MARK: - Shared

    static func command(
        _ verb: String, synopsis: String, summary: String, extra: [ArgumentSpec] = [], positionals: Int,
        request: @escaping @Sendable (ParsedArguments) throws -> any ControlCommand<ClockReply>
    ) -> CLI.Command {
        CLI.Command(
            path: ["clock", verb], synopsis: synopsis, summary: summary,
            specs: targetSpecs + extra + [CLI.jsonSpec], positionals: positionals
        ) { parsed in
            // Everything is checked, and every daemon reached, before any clock changes: the arguments
            // first, so that bad input is exit 2 whether or not the daemons run.
            let call = try request(parsed)
            let targets = try self.targets(parsed)
            let clients = targets.map { target in (target.label, DeviceClient(home: target.home)) }
            for (_, client) in clients { _ = try client.client(for: type(of: call).spec.name) }
            var results: [(String, ClockReply)] = []
            for (label, client) in clients { results.append((label, try client.send(call))) }
            if parsed.has("json") {
                let readings = results.map { ($0.0, $0.1.reading.json) }
                Output.out(readings.count == 1 ? readings[0].1.text : JSONValue.object(Dictionary(uniqueKeysWithValues: readings)).text)
            } else {
                for (label, result) in results {
                    Output.out(line(label, result))
                    for item in result.delivered ?? [] {
                        Output.out("  delivered " + NotificationText.line(item, at: item.deliveredAt))
                    }
                }
            }
            return 0
        }
    }

    /// `phone  2026-10-08 16:00:00 +09:00  frozen`
    static func line(_ label: String, _ result: ClockReply) -> String {
        let now = Timestamp.parseISO8601(result.now).map(TimeText.localDateTime) ?? "?"
        return "\(label.padding(5))  \(now)  \(result.mode)"
    }

    struct Target { let label: String; let home: DeviceHome }

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
        var targets: [Target] = []
        if let phone { targets.append(Target(label: "phone", home: try checkedHome(phone, .phone))) }
        if let watch { targets.append(Target(label: "watch", home: try checkedHome(watch, .watch))) }
        return targets
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
