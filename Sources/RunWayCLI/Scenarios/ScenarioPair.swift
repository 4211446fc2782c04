import Connectivity
import Control
import Posix

/// The pair a scenario runs on: two fresh homes in a temporary directory, paired (never registered: no
/// one else's pair is touched, no process it did not start is signalled), phone-os and watch-agent
/// started the way `runway up` starts them (`Launcher`: next to this `runway`, a session of their own,
/// logs in HOME/daemon.log, ready when they say READY=1), and what the stores hold, read from the files
/// themselves — so that a figure can be read whether or not the app that wrote it runs.
final class ScenarioPair {
    let root: String
    let phone: DeviceHome
    let watch: DeviceHome
    let scenario: Scenario
    private(set) var phoneOSPID: Int32?
    private(set) var watchPID: Int32?

    init(_ scenario: Scenario) throws {
        self.scenario = scenario
        root = try Self.makeRoot()
        phone = DeviceHome(path: root + "/phone", role: .phone)
        watch = DeviceHome(path: root + "/watch", role: .watch)
        _ = try PairCommand.pairHomes(phone, watch, new: true, replace: true)
        // Every daemon the scenario starts, and every app their OSes launch, inherits the system's timing.
        setenv(SystemTiming.variable, scenario.system.text, 1)
    }

    /// A new directory under `$TMPDIR` (if its sockets' paths stay short enough) or /tmp.
    private static func makeRoot() throws -> String {
        var base = "/tmp"
        if let tmp = getenv("TMPDIR").map({ String(cString: $0) }), tmp.hasPrefix("/"), tmp.utf8.count <= 48 { base = tmp }
        do {
            return try Filesystem.makeTemporaryDirectory(in: base, prefix: "runway-scenario-")
        } catch {
            throw ControlError("cannot make a directory for the scenario's homes in \(base): errno \(error.errno)")
        }
    }

    // MARK: - Daemons

    /// phone-os with the scenario's app, its arguments and budget.
    func startPhoneOS() throws -> Int32 {
        var arguments: [String] = []
        if let app = scenario.phoneApp { arguments += ["--app", Filesystem.absolutePath(app)] }
        arguments += scenario.phoneArgs.map { "--app-arg=\($0)" }
        if let id = scenario.phoneBundleId { arguments += ["--bundle-id", id] }
        if let budget = scenario.backgroundBudgetMs { arguments += ["--background-budget-ms", String(budget)] }
        if let timeout = scenario.launchTimeoutMs { arguments += ["--launch-timeout-ms", String(timeout)] }
        let pid = try start("phone-os", phone, arguments) { PhoneOSRegistry.holder(self.phone) }
        phoneOSPID = pid
        return pid
    }

    /// What runs the watch: watch-agent itself, always running (RunWay's watch app), or — for a `watchApp`
    /// of your own — watch-os, which launches it.
    var watchBinary: String { scenario.watchApp == nil ? "watch-agent" : "watch-os" }

    func startWatch() throws -> Int32 {
        let arguments = scenario.watchApp.map { ["--app", Filesystem.absolutePath($0)] + scenario.watchArgs.map { "--app-arg=\($0)" } } ?? scenario.watchArgs
        let pid = try start(watchBinary, watch, arguments) { PhoneOSRegistry.holder(self.watch) }
        watchPID = pid
        return pid
    }

    private func start(
        _ binary: String, _ home: DeviceHome, _ arguments: [String], running: () -> (binary: String, pid: Int32?)?
    ) throws -> Int32 {
        switch try Launcher.up(binary, home: home, arguments: arguments, running: running) {
        case let .started(pid): return pid
        case let .alreadyRunning(holder, pid):
            throw ControlError("\(home.path) is still held by \(holder)\(pid.map { " (pid \($0))" } ?? ""): it is not done stopping")
        }
    }

    /// SIGKILL to what `target` names, reaped. Returns what was killed, or nil if it was not running.
    func kill(_ target: ScenarioStep.Target) -> String? {
        switch target {
        case .watch:
            guard let pid = watchPID else { return nil }
            watchPID = nil
            reap(pid, SIGKILL)
            waitUntilFree(watch)  // watch-os's app, if it had one running, dies with it
            return "\(watchBinary) (pid \(pid))"
        case .phoneOS:
            guard let pid = phoneOSPID else { return nil }
            phoneOSPID = nil
            reap(pid, SIGKILL)
            waitUntilFree(phone)
            return "phone-os (pid \(pid)) and its app"
        case .phoneApp:
            guard let os = phoneOSPID, let status = osStatus(), let pid = status.appPid.flatMap({ Int32(exactly: $0) }),
                Processes.parent(of: pid) == os
            else { return nil }
            ProcessStop.signal(pid, SIGKILL)  // phone-os's child: phone-os reaps it, and takes it for a crash
            return "the phone app (pid \(pid), \(status.appState))"
        case .watchApp:
            guard scenario.watchApp != nil, let os = watchPID, let status = osStatus(.watch), let pid = status.appPid.flatMap({ Int32(exactly: $0) }),
                Processes.parent(of: pid) == os
            else { return nil }
            ProcessStop.signal(pid, SIGKILL)  // watch-os's child, as the phone app is phone-os's
            return "the watch app (pid \(pid), \(status.appState))"
        }
    }

    /// Waits (up to 10 s) until nothing holds `home`: an OS's app dies with it (it never outlives it), a
    /// moment later, and until then holds the home — a relaunch would find it taken.
    private func waitUntilFree(_ home: DeviceHome) {
        let deadline = monotonicNow() + 10
        while PhoneOSRegistry.holder(home) != nil && monotonicNow() < deadline { usleep(5_000) }
    }

    /// Stops what this scenario started and still runs: SIGTERM (phone-os stops its app), then waits.
    func stopAll() {
        for pid in [watchPID, phoneOSPID].compactMap({ $0 }) { reap(pid, SIGTERM) }
        watchPID = nil
        phoneOSPID = nil
    }

    private func reap(_ pid: Int32, _ signal: Int32) {
        if signal == SIGKILL {
            ProcessStop.signal(pid, SIGKILL)
            _ = ProcessStop.reap(pid, block: true)
        } else {
            _ = Launcher.stop(pid)
        }
    }

    /// The device's OS's control socket — phone-os's, or watch-os's for a `watchApp` of your own: the
    /// app's lifecycle (`app`, `os-jetsam`, `os-status`).
    func osClient(_ device: ScenarioStep.Device = .phone) throws -> ControlClient {
        let home = device == .phone ? phone : watch
        return try ControlClient(home: home, socketPath: home.osControlSocketPath)
    }

    func osStatus(_ device: ScenarioStep.Device = .phone) -> OSStatusReply? {
        try? osClient(device).send(ControlCommands.OSStatus())
    }

    /// Removes the homes (after the daemons are stopped).
    func removeHomes() { Self.removeTree(root) }

    private static func removeTree(_ path: String) {
        for name in (try? Filesystem.names(in: path)) ?? [] {
            let child = path + "/" + name
            if Filesystem.kind(of: child) == .directory { removeTree(child) } else { unlink(child) }
        }
        rmdir(path)
    }
}
