import Connectivity
import Control
import JSONText
import Posix
import Storage

/// `runway list`, `runway unpair NAME`, `runway up [NAME]`, `runway down [NAME]`: the registered pairs
/// (`PairRegistry`), and both daemons started in the background or stopped with one command.
enum RegistryCommands {
    static let list = CLI.Command(
        path: ["list"], synopsis: "[--json]",
        summary: """
            The pairs `runway pair` has registered, with their homes and whether each daemon runs (for a phone run by
            phone-os, the app's state: not running, background, foreground, suspended). With exactly one
            pair registered, every command's --home may be left out; with several, name one with --pair NAME or
            RUNWAY_PAIR. The registry is $RUNWAY_STATE_DIR/pairs.json, else $XDG_STATE_HOME/runway/pairs.json, else
            ~/.local/state/runway/pairs.json.
            """,
        specs: [CLI.jsonSpec], positionals: 0,
        run: { parsed in
            let registry = try PairRegistry.load()
            let rows = registry.pairs.map { pair in
                let phone = DeviceHome(path: pair.phone, role: .phone)
                let app = PhoneOSRegistry.isRunning(phone, os: true) ? PhoneOSRegistry.appState(phone) ?? "unknown" : nil
                let watch = DeviceHome(path: pair.watch, role: .watch)
                return (
                    pair, app != nil || PhoneOSRegistry.isRunning(phone, os: false), app,
                    PhoneOSRegistry.isRunning(watch, os: true) || PhoneOSRegistry.isRunning(watch, os: false)
                )
            }
            if parsed.has("json") {
                Output.out(
                    JSONValue.array(
                        rows.map { pair, phone, app, watch in
                            var fields: [String: JSONValue] = [
                                "name": .string(pair.name), "phone": .string(pair.phone), "watch": .string(pair.watch),
                                "phoneRunning": .bool(phone), "watchRunning": .bool(watch), "phoneOS": .bool(app != nil),
                            ]
                            if let app { fields["phoneApp"] = .string(app) }
                            return .object(fields)
                        }
                    ).text)
            } else if rows.isEmpty {
                Output.out("no pairs registered (runway pair --phone P --watch W [--name NAME])")
            } else {
                Output.out(
                    rows.map { pair, phone, app, watch in
                        let phoneState = app.map { "running: phone-os, app \($0)" } ?? (phone ? "running" : "stopped")
                        return "\(pair.name.padding(12))  phone \(pair.phone) (\(phoneState))  watch \(pair.watch) (\(watch ? "running" : "stopped"))"
                    }.joined(separator: "\n"))
            }
            return 0
        })

    static let unpair = CLI.Command(
        path: ["unpair"], synopsis: "NAME [--json]",
        summary: """
            Forgets a registered pair, and removes the pair's secret from both homes: the two can no longer connect
            until they are paired again (runway pair, which makes a new secret). The homes, their stores and
            the pairing recorded in them are left as they are.
            A pair whose daemons run is refused (exit 1, naming them): runway down NAME first, so that none is
            left running with no name to stop it by.
            """,
        specs: [CLI.jsonSpec], positionals: 1,
        run: { parsed in
            guard let name = parsed.positionals.first else { throw UsageError("the NAME of a registered pair is required (runway list)") }
            let pair = try PairRegistry.update { registry in
                guard let index = registry.pairs.firstIndex(where: { $0.name == name }) else {
                    throw ControlError.invalid("no pair named \(OneLine.quote(name)) (runway list)")
                }
                // Forgotten, a running pair could no longer be stopped by its name (`runway down NAME`).
                let running = runningPrograms(registry.pairs[index])
                guard running.isEmpty else {
                    throw ControlError(
                        "pair \(name) is running (\(running.joined(separator: ", "))): stop it first with runway down \(name), then unpair it")
                }
                try forgetSecret(phone: registry.pairs[index].phone, watch: registry.pairs[index].watch)
                return registry.pairs.remove(at: index)
            }
            Output.out(parsed.has("json") ? JSONValue.object(["unpaired": .string(pair.name)]).text : "forgot pair \(pair.name)")
            return 0
        })

    /// The pair's secret leaves both homes (`PairingSecrets`): the watch's every one (it has one phone),
    /// the phone's for this watch's pairing only (it may have other watches). Homes gone are skipped.
    static func forgetSecret(phone: String, watch: String) throws {
        let watchHome = DeviceHome(path: watch, role: .watch)
        guard watchHome.hasStore else { return }
        let store = try Database(path: watchHome.storePath, readOnly: true)
        let pairing = try SessionStore.pairing(store)
        store.close()
        try PairingSecrets(home: watchHome.path).removeAll()
        if let pairing, let path = PairingSecrets(home: DeviceHome(path: phone, role: .phone).path).path(for: pairing.pairingID) {
            try Filesystem.removeDurably(path)
        }
    }

    static let up = CLI.Command(
        path: ["up"],
        synopsis:
            "[NAME] [--no-os] [--system MODE] [--phone-app PATH] [--phone-bundle-id ID] [--phone-arg ARG]... [--watch-app PATH] [--watch-bundle-id ID] [--watch-arg ARG]... [--json]",
        summary: """
            Starts the pair's phone and watch in the background (new sessions, logs appended to HOME/daemon.log)
            and waits until each has said ready. Each is its OS when that is installed next to runway — phone-os,
            the phone's simulated iOS; watch-os, the watch's watchOS — which launches the app (phone-daemon,
            watch-agent) in the background when the other device has something for it, and in the foreground on
            runway phone|watch app open (and runway watch record). --no-os starts phone-daemon and watch-agent
            themselves, always running. A daemon already running is left alone (said so, with its pid, exit 0). Safe
            to run from several shells at once: each home is started by one of them, which waits for that daemon's
            own ready; the others then find it running. --phone-arg and --watch-arg pass switches to the phone's
            app and to the watch's (the legacy paths: --phone-arg=--save-path --phone-arg=ui-drain); --phone-app
            and --watch-app put apps of your own on the phone and the watch, each in the container named by
            --phone-bundle-id / --watch-bundle-id (default: the executable's file name), made before its first
            launch. They apply to what this up starts, not to what already runs. --system realistic[:SEED] runs the
            pair under the realistic system's timing (a seed is drawn and said when none is given; the same seed
            gives the same schedule; the devices' logs say what was deferred and why: system.deferred,
            os.refresh-deferred).
            NAME defaults to --pair, RUNWAY_PAIR or the only registered pair.
            """,
        specs: [CLI.jsonSpec, CLI.pairSpec, PhoneOSRegistry.osSpec] + PhoneOSRegistry.appSpecs + [PhoneOSRegistry.systemSpec], positionals: 1,
        run: { parsed in
            let pair = try named(parsed)
            let system = try PhoneOSRegistry.system(parsed.value("system"))
            var results: [String: JSONValue] = [:]
            var lines: [String] = []
            // Both checked before either starts: a bad --watch-app must not leave the phone started.
            let starts = try [DeviceHome(path: pair.phone, role: .phone), DeviceHome(path: pair.watch, role: .watch)].map {
                try PhoneOSRegistry.start($0, parsed)
            }
            for start in starts {
                let (result, line) = try PhoneOSRegistry.up(start)
                results[start.home.role.rawValue] = result
                lines.append(line)
            }
            if let system {
                results["system"] = .string(system.text)
                lines.append("system: \(system.text) (for what this up started)")
            }
            Output.out(parsed.has("json") ? JSONValue.object(results).text : lines.joined(separator: "\n"))
            return 0
        })

    static let down = CLI.Command(
        path: ["down"], synopsis: "[NAME] [--json]",
        summary:
            "Stops the pair's daemons with SIGTERM (a clean shutdown; phone-os and watch-os stop the app they launched) and waits until they are gone; SIGKILL after 15 s.",
        specs: [CLI.jsonSpec, CLI.pairSpec], positionals: 1,
        run: { parsed in
            let pair = try named(parsed)
            var results: [String: JSONValue] = [:]
            var lines: [String] = []
            for home in [DeviceHome(path: pair.watch, role: .watch), DeviceHome(path: pair.phone, role: .phone)] {
                let (result, line) = PhoneOSRegistry.down(home)
                results[home.role.rawValue] = result
                lines.append(line)
            }
            Output.out(parsed.has("json") ? JSONValue.object(results).text : lines.joined(separator: "\n"))
            return 0
        })

    static let all = [list, unpair, up, down]

    /// The pair named by the positional NAME, else as `--home` would be resolved.
    static func named(_ parsed: ParsedArguments) throws -> PairRegistry.Pair {
        let registry = try PairRegistry.load()
        if let name = parsed.positionals.first {
            guard let pair = registry.pairs.first(where: { $0.name == name }) else {
                throw ControlError.invalid("no pair named \(OneLine.quote(name)) (runway list)")
            }
            return pair
        }
        return try registry.resolve(parsed)
    }

    /// The programs holding the pair's homes (`watch-agent (pid 812)`, `phone-os (pid 901)`), from their
    /// locks: a frozen or busy daemon counts too.
    static func runningPrograms(_ pair: PairRegistry.Pair) -> [String] {
        let phone = DeviceHome(path: pair.phone, role: .phone), watch = DeviceHome(path: pair.watch, role: .watch)
        let locks = [
            ("phone-os", FileLock.holder(of: phone.path + "/os.lock")),
            ("phone-daemon", FileLock.holder(ofDirectory: phone.path, pidFile: phone.lockPath)),
            ("watch-os", FileLock.holder(of: watch.path + "/os.lock")),
            ("watch-agent", FileLock.holder(ofDirectory: watch.path, pidFile: watch.lockPath)),
        ]
        return locks.compactMap { program, holder in
            guard case let .some(pid) = holder else { return nil }
            return program + (pid.map { " (pid \($0))" } ?? "")
        }
    }
}

extension String {
    var trimmingWhitespace: String {
        String(self.drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
    }
}
