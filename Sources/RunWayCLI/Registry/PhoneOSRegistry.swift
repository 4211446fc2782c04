import Connectivity
import Control
import AppHost
import JSONText
import Posix

/// A device of a registered pair as `runway up`, `down` and `list` see it: run by its OS — `phone-os` (the
/// phone's simulated iOS), `watch-os` (the watch's watchOS), which launch the app themselves — when that
/// binary is installed next to `runway`, else by a daemon of its own, always running (`phone-daemon`,
/// `watch-agent`: `runway up --no-os`, or no OS installed).
enum PhoneOSRegistry {
    static let osSpec = ArgumentSpec.flag(
        "no-os", "start phone-daemon and watch-agent themselves rather than phone-os and watch-os (the apps always running, as before the OSes)")
    static let systemSpec = ArgumentSpec.option(
        "system", "MODE",
        "the system's own timing for what this up starts: immediate (the default: transfers go at once, a refresh fires on its date) or realistic[:SEED][:low-power] (seeded deferrals of background transfers, refreshes shortly after their date and four an hour; docs/system-timing.md)"
    )
    /// `--system MODE` read (nil: not given, the daemons inherit whatever `RUNWAY_SYSTEM` says), and put in
    /// this process's environment so that every daemon this command starts — and every app its OSes
    /// launch — inherits it. `realistic` without a seed draws one, said in the output.
    static func system(_ value: String?) throws -> SystemTiming? {
        guard let value else { return nil }
        var text = value
        if text == "realistic" || text == "realistic:low-power" {
            var seed: UInt64 = 0
            while seed == 0 { seed = UInt64.random(in: 1...999_999) }
            text = text == "realistic" ? "realistic:\(seed)" : "realistic:\(seed):low-power"
        }
        let timing: SystemTiming
        do {
            timing = try SystemTiming(parsing: text)
        } catch {
            // A bad value is one line naming the command (as every option's bad value), not a usage error.
            throw ControlError.invalid("up: --system: \(error.description)")
        }
        setenv(SystemTiming.variable, timing.text, 1)
        return timing
    }

    /// `--phone-app PATH --phone-bundle-id ID --phone-arg ARG…`, and the watch's: an app of your own, and its switches.
    static let appSpecs = [("phone", "--phone-arg=--save-path --phone-arg=ui-drain"), ("watch", "--watch-arg=--app-version --watch-arg=1.5")]
        .flatMap { device, example -> [ArgumentSpec] in
            let os = device + "-os"
            return [
                .option("\(device)-app", "PATH", "the \(device)'s app: an executable linking WatchConnectivity (\(os) --app; default RunWay's)"),
                .option(
                    "\(device)-bundle-id", "ID",
                    "the \(device)'s app's bundle id, naming its container HOME/apps/ID (\(os) --bundle-id; default: the --\(device)-app's file name)"),
                .option("\(device)-arg", "ARG", "passed to the \(device)'s app at each launch (\(os) --app-arg; repeatable: \(example))"),
            ]
        }

    /// The device's OS and its app's daemon, by name.
    static func osName(_ home: DeviceHome) -> String { home.role == .phone ? "phone-os" : "watch-os" }
    static func daemonName(_ home: DeviceHome) -> String { home.role == .phone ? "phone-daemon" : "watch-agent" }

    /// Whether the device's OS is installed next to this `runway`.
    static func isInstalled(_ home: DeviceHome) -> Bool { access(Processes.sibling(osName(home)), X_OK) == 0 }

    /// Whether the device's OS answers on the home's `os.sock` (`os`), or its app's daemon on `control.sock`.
    static func isRunning(_ home: DeviceHome, os: Bool) -> Bool {
        let socket = os ? home.osControlSocketPath : home.controlSocketPath
        return Filesystem.kind(of: socket) == .socket && (try? ControlClient(home: home, socketPath: os ? socket : nil)) != nil
    }

    /// The pid of the OS running the home (from `HOME/os.lock`), or of its daemon (`HOME/lock`), if it runs.
    static func runningPID(_ home: DeviceHome, os: Bool) -> Int32? {
        guard isRunning(home, os: os), let bytes = try? Filesystem.readFile(os ? home.path + "/os.lock" : home.lockPath),
            let pid = Int32(String(decoding: bytes, as: UTF8.self).trimmingWhitespace), ProcessStop.signal(pid, 0)
        else { return nil }
        return pid
    }

    /// The app's state as the OS reports it (not running, background, foreground, suspended).
    static func appState(_ home: DeviceHome) -> String? {
        guard let client = try? ControlClient(home: home, socketPath: home.osControlSocketPath),
            let status = try? client.send(ControlCommands.OSStatus())
        else { return nil }
        return status.appState
    }

    /// What `runway up` starts on a device: the binary and its arguments, checked before anything starts
    /// on either device (a bad `--watch-app` must not leave the phone started).
    struct Start {
        var home: DeviceHome
        var binary: String
        var arguments: [String]
    }

    /// `runway up`'s plan for the phone or the watch — the OS unless `--no-os` or it is not installed;
    /// an app of one's own (`--phone-app`), its bundle id and its switches for it — or a usage error (exit 2).
    static func start(_ home: DeviceHome, _ parsed: ParsedArguments) throws -> Start {
        let os = osName(home), device = home.role.rawValue
        let (given, bundleID, appArguments) = (parsed.value("\(device)-app"), parsed.value("\(device)-bundle-id"), parsed.values("\(device)-arg"))
        let binary = !parsed.has("no-os") && isInstalled(home) ? os : daemonName(home)
        if binary != os, given != nil || bundleID != nil {
            throw ControlError.invalid("--\(device)-\(given != nil ? "app" : "bundle-id") needs \(os) (it is what launches an app): drop --no-os")
        }
        if let bundleID, let problem = AppContainer.problem(bundleID: bundleID) { throw ControlError.invalid("--\(device)-bundle-id: \(problem)") }
        let app = try given.map { path in
            let absolute = Filesystem.absolutePath(path)
            guard Filesystem.kind(of: absolute) == .regular, access(absolute, X_OK) == 0 else {
                throw ControlError.invalid("--\(device)-app \(path): not an executable file")
            }
            return absolute
        }
        // The OS hands each argument to the app it launches; a daemon of its own takes them itself.
        let arguments =
            binary == os
            ? (app.map { ["--app", $0] } ?? []) + (bundleID.map { ["--bundle-id", $0] } ?? []) + appArguments.map { "--app-arg=\($0)" }
            : appArguments
        return Start(home: home, binary: binary, arguments: arguments)
    }

    /// `runway up`'s phone or watch: already running (its OS or its daemon), or started as `start` says.
    /// Returns the JSON result and the line to print.
    static func up(_ start: Start) throws -> (JSONValue, String) {
        let (home, binary, arguments) = (start.home, start.binary, start.arguments)
        let os = osName(home), device = home.role.rawValue
        let pid: Int32
        switch try Launcher.up(binary, home: home, arguments: arguments, running: { holder(home) }) {
        case let .alreadyRunning(running, pid):
            return (
                .object(["state": .string("already running"), "binary": .string(running), "pid": pid.map { .integer(Int64($0)) } ?? .null]),
                "\(device): already running (\(running)\(pid.map { ", pid \($0)" } ?? ""), \(home.path))"
            )
        case let .started(started): pid = started
        }
        let note =
            binary == os
            ? "; the app is launched when the \(home.role == .phone ? "watch" : "phone") has something for it, or by runway \(device) app open"
            : ""
        return (
            .object(["state": .string("started"), "binary": .string(binary), "pid": .integer(Int64(pid))]),
            "\(device): started \(binary) (pid \(pid)), log \(home.path)/daemon.log\(note)"
        )
    }

    /// What serves the device's home now, by its locks — its OS (`HOME/os.lock`), else its daemon (the
    /// home's own lock) — answering or not (a frozen daemon holds its lock too).
    static func holder(_ home: DeviceHome) -> (binary: String, pid: Int32?)? {
        if case let .some(pid) = FileLock.holder(of: home.path + "/os.lock") { return (osName(home), pid) }
        if case let .some(pid) = FileLock.holder(ofDirectory: home.path, pidFile: home.lockPath) { return (daemonName(home), pid) }
        return nil
    }

    /// `runway down`'s phone or watch: its OS (which stops the app it launched) or its daemon.
    static func down(_ home: DeviceHome) -> (JSONValue, String) {
        let device = home.role.rawValue
        let (pid, binary): (Int32?, String) =
            if let os = runningPID(home, os: true) { (os, osName(home)) } else { (runningPID(home, os: false), daemonName(home)) }
        guard let pid else { return (.object(["state": .string("not running")]), "\(device): not running") }
        let how = Launcher.stop(pid)
        return (
            .object(["state": .string("stopped"), "binary": .string(binary), "pid": .integer(Int64(pid)), "signal": .string(how)]),
            "\(device): stopped \(binary) (pid \(pid), \(how))"
        )
    }
}
