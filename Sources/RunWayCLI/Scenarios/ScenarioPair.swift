import Connectivity
import Control
import PairInvariants
import Posix
import PropertyLists
import RunWayDomain
import Storage

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
                Self.parent(of: pid) == os
            else { return nil }
            ProcessStop.signal(pid, SIGKILL)  // phone-os's child: phone-os reaps it, and takes it for a crash
            return "the phone app (pid \(pid), \(status.appState))"
        case .watchApp:
            guard scenario.watchApp != nil, let os = watchPID, let status = osStatus(.watch), let pid = status.appPid.flatMap({ Int32(exactly: $0) }),
                Self.parent(of: pid) == os
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

    /// The parent pid, so that a pid is signalled only while it is still phone-os's app.
    static func parent(of pid: Int32) -> Int32? { Processes.parent(of: pid) }

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
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "." || name == ".." { continue }
                let child = path + "/" + name
                if Filesystem.kind(of: child) == .directory { removeTree(child) } else { unlink(child) }
            }
            closedir(directory)
        }
        rmdir(path)
    }

    // MARK: - What the stores hold

    /// Transfers still queued, in every lane (userInfo, complication, files), in both devices'
    /// WatchConnectivity stores — counted by the session's own code (`SessionStoreReader`) — and each
    /// application context not yet acknowledged (content like any other, issue 50), one each.
    func outstanding() throws -> Int {
        var total = 0
        for home in [phone, watch] where Filesystem.kind(of: home.storePath) == .regular {
            let database = try Database(path: home.storePath)
            defer { database.close() }
            let reader = SessionStoreReader(database: database)
            total += try reader.outstandingTransfers() + (reader.sentContextPending() ? 1 : 0)
        }
        return total
    }

    /// Transfers both devices' sessions have queued since the pair was made, in every lane (the last
    /// sequence number each lane assigned, `SessionStoreReader.queuedTransfers`): what the expectations
    /// are held over.
    func transfersQueued() throws -> Int {
        var total = 0
        for home in [phone, watch] where Filesystem.kind(of: home.storePath) == .regular {
            let database = try Database(path: home.storePath)
            defer { database.close() }
            total += try SessionStoreReader(database: database).queuedTransfers()
        }
        return total
    }

    /// The phone app's container: RunWay's, or yours — named by its bundle id, else its file's name, as
    /// phone-os names it.
    var phoneContainer: String {
        guard let app = scenario.phoneApp else { return phone.path + "/apps/" + RunWayStore.bundleIDs.phone }
        if let id = scenario.phoneBundleId { return phone.path + "/apps/" + id }
        let name = String(app.split(separator: "/").last ?? "app")
        let valid =
            name != "." && name != ".."
            && name.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2E, 0x2D, 0x5F].contains($0)
            }
        return phone.path + "/apps/" + (valid && name.utf8.count <= 155 ? name : "app")
    }
    /// RunWay's phone store (RunWay's app, or RunWay's own phone-daemon given as `phoneApp`).
    var phoneAppStore: String { RunWayStore.path(container: phoneContainer) }
    var watchAppStore: String { RunWayStore.path(container: watch.path + "/apps/" + RunWayStore.bundleIDs.watch) }

    /// The runs the phone app stored, in arrival order: RunWay's Logbook, or what your app's `phoneStore`
    /// query lists (its store opened read-only). None yet: no store, nothing stored.
    func storedFlightIDs() throws -> [String] {
        let path = scenario.phoneStore.map { phoneContainer + "/" + $0.path } ?? phoneAppStore
        guard Filesystem.kind(of: path) == .regular else { return [] }
        if let store = scenario.phoneStore, store.ids == nil { return try Self.lines(path) }
        let database = try Database(path: path, readOnly: scenario.phoneStore != nil)
        defer { database.close() }
        // An app killed while it first opened its store leaves one without its tables yet: nothing stored.
        guard let ownQuery = scenario.phoneStore?.ids else {
            let reader = RunWayStoreReader(database: database)
            return try reader.hasTables() ? try reader.flightIDs() : []
        }
        guard try Self.hasAnyTable(database) else { return [] }
        // Your app's store: the query the scenario gives.
        let query = try database.prepare(ownQuery)
        var ids: [String] = []
        while try query.step() { ids.append(query.string(at: 0)) }
        return ids
    }

    /// A text file's lines, the ids an app appended one per line; a last line without its newline is one
    /// the app was killed while writing, not yet saved, and left out.
    static func lines(_ path: String) throws -> [String] {
        let bytes = try Filesystem.readFile(path)
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        lines.removeLast()  // what follows the last newline: empty, or a line cut short
        return lines.filter { !$0.isEmpty }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The scenario's userInfo ids that RunWay's app on `device` received, in arrival order.
    func receivedIDs(on device: ScenarioStep.Device) throws -> [String] {
        let path = device == .phone ? phoneAppStore : watchAppStore
        guard Filesystem.kind(of: path) == .regular else { return [] }
        let database = try Database(path: path)
        defer { database.close() }
        return try RunWayStoreReader(database: database).receivedUserInfo(limit: Int.max).compactMap { $0.userInfo?["scenarioTransfer"]?.stringValue }
    }

    /// Whether the store has any table yet (your app's, killed while it first opened it, may have none).
    private static func hasAnyTable(_ database: Database) throws -> Bool {
        try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table'") > 0
    }

    /// Every SQLite store of both devices, for the checker's integrity check.
    var storePaths: [String] {
        // Your app's store is only read (the check opens a store for writing, and would make it WAL).
        [phone.storePath, phone.path + "/os.sqlite", phoneAppStore, watch.storePath, watch.path + "/os.sqlite", watchAppStore]
            .filter { Filesystem.kind(of: $0) == .regular }
    }
}
