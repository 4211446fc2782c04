import Connectivity
import Control
import Glibc
import JSONText
import Posix

/// `runway list`, `runway unpair NAME`, `runway up [NAME]`, `runway down [NAME]`: the registered pairs
/// (`PairRegistry`), and both daemons started in the background or stopped with one command.
enum RegistryCommands {
    static let list = CLI.Command(
        path: ["list"], synopsis: "[--json]",
        summary: """
        The pairs `runway pair` has registered, with their homes and whether each daemon runs. With exactly one
        pair registered, every command's --home may be left out; with several, name one with --pair NAME or
        RUNWAY_PAIR. The registry is $RUNWAY_STATE_DIR/pairs.json, else $XDG_STATE_HOME/runway/pairs.json, else
        ~/.local/state/runway/pairs.json.
        """,
        specs: [CLI.jsonSpec], positionals: 0,
        run: { parsed in
            let registry = try PairRegistry.load()
            let rows = registry.pairs.map { pair in
                (pair, isRunning(DeviceHome(path: pair.phone, role: .phone)), isRunning(DeviceHome(path: pair.watch, role: .watch)))
            }
            if parsed.has("json") {
                Output.out(JSONValue.array(rows.map { pair, phone, watch in
                    .object(["name": .string(pair.name), "phone": .string(pair.phone), "watch": .string(pair.watch),
                             "phoneRunning": .bool(phone), "watchRunning": .bool(watch)])
                }).text)
            } else if rows.isEmpty {
                Output.out("no pairs registered (runway pair --phone P --watch W [--name NAME])")
            } else {
                Output.out(rows.map { pair, phone, watch in
                    "\(pair.name.padding(12))  phone \(pair.phone) (\(phone ? "running" : "stopped"))  watch \(pair.watch) (\(watch ? "running" : "stopped"))"
                }.joined(separator: "\n"))
            }
            return 0
        })

    static let unpair = CLI.Command(
        path: ["unpair"], synopsis: "NAME [--json]",
        summary: "Forgets a registered pair. The homes, their stores and the pairing recorded in them are left as they are.",
        specs: [CLI.jsonSpec], positionals: 1,
        run: { parsed in
            guard let name = parsed.positionals.first else { throw UsageError("the NAME of a registered pair is required (runway list)") }
            var registry = try PairRegistry.load()
            guard let index = registry.pairs.firstIndex(where: { $0.name == name }) else {
                throw ControlError.invalid("no pair named '\(name)' (runway list)")
            }
            let pair = registry.pairs.remove(at: index)
            try registry.save()
            Output.out(parsed.has("json") ? JSONValue.object(["unpaired": .string(pair.name)]).text : "forgot pair \(pair.name)")
            return 0
        })

    static let up = CLI.Command(
        path: ["up"], synopsis: "[NAME] [--json]",
        summary: """
        Starts the pair's phone-daemon and watch-agent in the background (new sessions, logs appended to
        HOME/daemon.log) and waits until each has said ready. A daemon already running is left alone (said so,
        exit 0). NAME defaults to --pair, RUNWAY_PAIR or the only registered pair.
        """,
        specs: [CLI.jsonSpec, CLI.pairSpec], positionals: 1,
        run: { parsed in
            let pair = try named(parsed)
            var results: [String: JSONValue] = [:]
            var lines: [String] = []
            for (role, path, binary) in [(DeviceRole.phone, pair.phone, "phone-daemon"), (.watch, pair.watch, "watch-agent")] {
                let home = DeviceHome(path: path, role: role)
                if isRunning(home) {
                    results[role.rawValue] = .object(["state": .string("already running"), "pid": runningPID(home).map { .integer(Int64($0)) } ?? .null])
                    lines.append("\(role.rawValue): already running (\(home.path))")
                    continue
                }
                let pid = try Launcher.start(binary, home: home)
                results[role.rawValue] = .object(["state": .string("started"), "pid": .integer(Int64(pid))])
                lines.append("\(role.rawValue): started \(binary) (pid \(pid)), log \(home.path)/daemon.log")
            }
            Output.out(parsed.has("json") ? JSONValue.object(results).text : lines.joined(separator: "\n"))
            return 0
        })

    static let down = CLI.Command(
        path: ["down"], synopsis: "[NAME] [--json]",
        summary: "Stops the pair's daemons with SIGTERM (a clean shutdown) and waits until they are gone; SIGKILL after 15 s.",
        specs: [CLI.jsonSpec, CLI.pairSpec], positionals: 1,
        run: { parsed in
            let pair = try named(parsed)
            var results: [String: JSONValue] = [:]
            var lines: [String] = []
            for (role, path) in [(DeviceRole.watch, pair.watch), (.phone, pair.phone)] {
                let home = DeviceHome(path: path, role: role)
                guard let pid = runningPID(home) else {
                    results[role.rawValue] = .object(["state": .string("not running")])
                    lines.append("\(role.rawValue): not running")
                    continue
                }
                let how = Launcher.stop(pid)
                results[role.rawValue] = .object(["state": .string("stopped"), "pid": .integer(Int64(pid)), "signal": .string(how)])
                lines.append("\(role.rawValue): stopped (pid \(pid), \(how))")
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
                throw ControlError.invalid("no pair named '\(name)' (runway list)")
            }
            return pair
        }
        return try registry.resolve(parsed)
    }

    /// Whether a daemon answers on the home's control socket.
    static func isRunning(_ home: DeviceHome) -> Bool {
        guard Filesystem.kind(of: home.controlSocketPath) == .socket else { return false }
        return (try? ControlClient(home: home)) != nil
    }

    /// The pid of the daemon serving `home` (from `HOME/lock`), if one is running.
    static func runningPID(_ home: DeviceHome) -> Int32? {
        guard isRunning(home), let bytes = try? Filesystem.readFile(home.lockPath),
              let pid = Int32(String(decoding: bytes, as: UTF8.self).trimmingWhitespace), pid > 0, kill(pid, 0) == 0 else { return nil }
        return pid
    }
}

extension String {
    var trimmingWhitespace: String {
        String(self.drop { $0 == " " || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\n" }.reversed())
    }
}

/// Starts a daemon detached from the terminal (`setsid`), and stops one.
enum Launcher {
    /// Starts `binary --home HOME` (next to this `runway`), its stdout in `HOME/daemon.out` and its log
    /// appended to `HOME/daemon.log`, and waits up to 30 s for its `ready` line. Returns its pid.
    static func start(_ binary: String, home: DeviceHome) throws -> Int32 {
        try Filesystem.makeDirectory(home.path, mode: 0o700)
        let executable = siblingPath(binary)
        let outPath = home.path + "/daemon.out", logPath = home.path + "/daemon.log"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        // Nothing else of ours is inherited: a daemon holding our parent's pipe open would keep whoever
        // waits for `runway up` to finish waiting for the daemon instead.
        for descriptor in openDescriptors() where descriptor > 2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        // POSIX_SPAWN_SETSID (0x80, glibc 2.26): a session of its own, so closing this terminal leaves it running.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | 0x80))
        let arguments = [executable, "--home", home.path]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        guard result == 0 else { throw ControlError("cannot start \(executable): \(String(cString: strerror(result)))") }
        // Ready, or gone: the daemon says `ready` on stdout once it accepts connections.
        for _ in 0..<1500 {
            if let output = try? Filesystem.readFile(outPath), String(decoding: output, as: UTF8.self).split(separator: "\n").contains("ready") {
                return pid
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let log = (try? Filesystem.readFile(logPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
                let last = log.split(separator: "\n").last.map(String.init) ?? "no log"
                throw ControlError("\(binary) for \(home.path) exited before it was ready: \(last)")
            }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        throw ControlError("\(binary) for \(home.path) did not say ready within 30 s; see \(logPath)")
    }

    /// SIGTERM, then waits (up to 15 s) for the process to go; SIGKILL if it does not. Returns which.
    static func stop(_ pid: Int32) -> String {
        kill(pid, SIGTERM)
        for _ in 0..<1500 {
            var status: Int32 = 0
            _ = waitpid(pid, &status, WNOHANG)  // reaps it if it is our child; harmless otherwise
            if kill(pid, 0) != 0 { return "SIGTERM" }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        return "SIGKILL after 15 s"
    }

    /// This process's open descriptors (from /proc/self/fd).
    static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var result: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name), descriptor != own { result.append(descriptor) }
        }
        return result
    }

    /// A binary installed next to this `runway`.
    static func siblingPath(_ binary: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return binary }
        let own = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/" + binary
    }
}
