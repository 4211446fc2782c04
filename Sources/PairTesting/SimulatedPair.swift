import Control
import Foundation
import JSONText
import RunWayDomain
import Storage

/// A paired phone and watch in fresh homes, driven through the real binaries and the real CLI: the
/// fixture of the integration tests, the demo and the chaos script.
package final class SimulatedPair {
    package let root: String
    package var phoneHome: String { root + "/phone" }
    package var watchHome: String { root + "/watch" }
    package private(set) var phone: DaemonProcess?
    package private(set) var watch: DaemonProcess?
    /// The phone's simulated iOS, when the phone is run by it (`startPhoneOS`).
    package private(set) var phoneOS: DaemonProcess?
    /// The watch's simulated watchOS, when the watch is run by it (`startWatchOS`).
    package private(set) var watchOS: DaemonProcess?
    /// Extra flags for each start (`--save-path ui-drain`, `--link-rate 500`).
    package var phoneArguments: [String] = []
    package var watchArguments: [String] = []
    /// Every call that recorded (or may have recorded) flights, in the order they were made.
    package private(set) var history: [Recording] = []
    /// Flights deleted through `delete(_:)`: they must not come back.
    package private(set) var deleted: Set<String> = []
    /// Every file sent through `transferFile` (or noted with `noteSent`): each must arrive once, byte-identical.
    package private(set) var sentFiles: [SentFile] = []
    /// Runs that finished (stopped on the device that led them): the checker then expects each saved to
    /// exactly one device's Health store, once (`HealthReport`).
    package private(set) var finishedRuns: [String] = []
    /// Every flight id whose recording returned success, in recording order.
    package var recorded: [String] {
        history.flatMap { recording -> [String] in
            if case .succeeded(let ids) = recording { return ids }
            return []
        }
    }
    package private(set) var phoneStarts = 0

    /// A newly paired phone and watch in a fresh directory in `base` (`$TMPDIR` if short enough, else
    /// `/tmp`: a short path, the daemons' socket paths must fit in 107 bytes).
    package init(tag: String = "pair", in base: String = TestDirectories.base) throws {
        root = makeScratchDirectory(tag, in: base)
        let result = try runTool(["pair", "--phone", root + "/phone", "--watch", root + "/watch"])
        guard result.status == 0 else { throw HarnessError("runway pair failed: \(result.stderr)") }
    }

    package var phoneLog: String { root + "/phone.log" }
    package var watchLog: String { root + "/watch.log" }

    // MARK: - Daemons

    /// The daemons' language variables unless a test sets them: all empty, so the apps speak their
    /// development region (ko) whatever the locale of the machine running the tests.
    package static let neutralLanguageEnvironment = ["LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": ""]

    package func startWatch(environment: [String: String] = [:]) throws {
        watch = try DaemonProcess(
            "watch-agent", ["--home", watchHome] + watchArguments, logPath: watchLog,
            environment: Self.neutralLanguageEnvironment.merging(environment) { $1 })
    }

    package func startPhone(environment: [String: String] = [:], extraArguments: [String] = []) throws {
        phoneStarts += 1
        phone = try DaemonProcess(
            "phone-daemon", ["--home", phoneHome] + phoneArguments + extraArguments,
            logPath: phoneLog, environment: Self.neutralLanguageEnvironment.merging(environment) { $1 })
    }

    /// Starts `phone-os` on the phone's home: it launches the app itself (logs go to the phone's log).
    package func startPhoneOS(_ arguments: [String] = []) throws {
        phoneOS = try DaemonProcess("phone-os", ["--home", phoneHome] + arguments, logPath: phoneLog)
    }

    package func killPhoneOS(_ signal: Int32 = SIGKILL) { phoneOS?.kill(signal) }

    /// `runway phone os status --json` (or `app ACTION` when given).
    package func phoneOSCall(_ arguments: [String]) throws -> JSONValue {
        let result = try runTool(["phone"] + arguments + ["--home", phoneHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway phone \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    /// Starts `watch-os` on the watch's home: it launches the watch app itself (logs go to the watch's log).
    /// `environment` reaches every app it launches too (a crash point with `RUNWAY_CRASH_ONCE`).
    package func startWatchOS(_ arguments: [String] = [], environment: [String: String] = [:]) throws {
        watchOS = try DaemonProcess(
            "watch-os", ["--home", watchHome] + arguments, logPath: watchLog,
            environment: Self.neutralLanguageEnvironment.merging(environment) { $1 })
    }

    /// `runway watch ARGUMENTS --json` (`os status`, `app open`, …), its JSON; throws unless it exits 0.
    package func watchOSCall(_ arguments: [String]) throws -> JSONValue {
        let result = try runTool(["watch"] + arguments + ["--home", watchHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway watch \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    package func killWatchOS(_ signal: Int32 = SIGKILL) { watchOS?.kill(signal) }

    package func killPhone(_ signal: Int32 = SIGKILL) { phone?.kill(signal) }
    package func killWatch(_ signal: Int32 = SIGKILL) { watch?.kill(signal) }

    package func stopAll() {
        watchOS?.stop()
        phoneOS?.stop()
        phone?.stop()
        watch?.stop()
    }

    /// Kills both daemons and removes the homes (kept with `RUNWAY_KEEP_TEST_DIRS=1`, to debug, and their
    /// path said on stderr).
    package func cleanUp() {
        phoneOS?.stop()  // SIGTERM: it stops the app it launched
        watchOS?.stop()
        phone?.kill()
        watch?.kill()
        TestDirectories.finish(root, "the pair's homes: phone/, watch/ and their logs")
    }

    // MARK: - Through the CLI

    /// Records `count` runs on the watch; remembers the ids only if the command succeeded, and throws
    /// if it did not.
    @discardableResult
    package func record(_ count: Int, distanceKm: Double? = nil) throws -> [String] {
        let recording = try startRecording(count, distanceKm: distanceKm)
        switch try finish(recording) {
        case .succeeded(let ids): return ids
        case .refused(let why), .indeterminate(let why):
            throw HarnessError("runway watch record failed: \(why)")
        }
    }

    /// How one recording call ended.
    package enum RecordOutcome: Sendable, Equatable {
        case succeeded([String])
        /// Refused before it reached the watch (nobody listening): nothing was recorded.
        case refused(String)
        /// Failed after it reached the watch: it may have committed (see `Recording.indeterminate`).
        case indeterminate(String)
    }

    /// A `runway watch record` started and not yet waited for.
    package struct PendingRecording {
        package let count: Int
        let tool: RunningTool
    }

    /// Starts `runway watch record` without waiting, so that daemons can be killed meanwhile.
    package func startRecording(_ count: Int, distanceKm: Double? = nil) throws -> PendingRecording {
        var arguments = ["watch", "record", "--home", watchHome, "--count", String(count), "--json"]
        if let distanceKm { arguments += ["--distance", String(distanceKm)] }
        return PendingRecording(count: count, tool: try RunningTool(arguments))
    }

    /// Waits for a recording call and adds it to the history as what it turned out to be. Make one call
    /// at a time: the history's order is the recording order.
    package func finish(_ pending: PendingRecording) throws -> RecordOutcome {
        let result = pending.tool.wait()
        if result.status == 0 {
            let ids = try JSONValue(parsing: result.stdout).arrayValue?.compactMap(\.stringValue) ?? []
            guard ids.count == pending.count else { throw HarnessError("recorded \(ids.count) ids, expected \(pending.count)") }
            history.append(.succeeded(ids))
            return .succeeded(ids)
        }
        let why = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        if let signal = result.signal { throw HarnessError("runway watch record was killed by signal \(signal): \(why)") }
        guard result.status == 1 else { throw HarnessError("runway watch record exited with status \(result.status): \(why)") }
        let (entries, outcome) = Self.failedRecording(count: pending.count, stdout: result.stdout, why: why)
        history.append(contentsOf: entries)
        return outcome
    }

    /// How many runs `runway watch record` puts in one request: more are recorded a chunk at a time,
    /// each chunk committed on its own.
    package static let recordChunk = ControlCommands.Record.chunk

    /// What a failed `runway watch record --json` of `count` runs adds to the history. A call of more
    /// than `recordChunk` is several requests, each committed on its own; one that fails part-way prints
    /// the ids of the chunks already committed (a closed JSON array) before its error. Those are
    /// recorded; of the rest, only the chunk in flight may have committed (whole) — unless the client
    /// could not connect for it ("is not running"): then the request never left.
    package static func failedRecording(count: Int, stdout: String, why: String) -> (history: [Recording], outcome: RecordOutcome) {
        let committed = (try? JSONValue(parsing: stdout))?.arrayValue?.compactMap(\.stringValue) ?? []
        var history: [Recording] = committed.isEmpty ? [] : [.succeeded(committed)]
        if why.contains("is not running") { return (history, .refused(why)) }
        let left = count - committed.count
        if left > 0 { history.append(.indeterminate(count: min(recordChunk, left))) }
        return (history, .indeterminate(why))
    }

    /// Adds flights recorded some other way than `record` (a live run's `runway watch run stop`), which
    /// returned success with these ids, to the history the checker holds the phone to.
    /// A run finished: the checker expects it in exactly one device's Health store, once.
    package func noteFinishedRun(_ id: String) {
        finishedRuns.append(id.uppercased())
    }

    package func noteRecorded(_ ids: [String]) {
        history.append(.succeeded(ids))
    }

    /// Flights recorded on another watch paired with this phone (`runway pair` adds watches), by its
    /// home, each watch's in recording order: the checker holds the phone to them too.
    package private(set) var otherWatches: [String: [String]] = [:]

    package func noteRecorded(_ ids: [String], onWatch home: String) {
        otherWatches[home, default: []] += ids
    }

    /// Flights whose transfers `runway watch cancel` cancelled before they left: never delivered, so the
    /// checker no longer holds the phone to them.
    package func noteCancelled(_ ids: Set<String>) {
        history = history.map { recording in
            if case .succeeded(let recorded) = recording { return .succeeded(recorded.filter { !ids.contains($0) }) }
            return recording
        }
    }

    /// `runway link up|down`: brings the simulated Bluetooth link back in range, or takes it out.
    package func setLink(up: Bool) throws {
        let result = try runTool(["link", up ? "up" : "down", "--home", watchHome])
        guard result.status == 0 else { throw HarnessError("runway link \(up ? "up" : "down") failed: \(result.stderr)") }
    }

    /// `runway link set ARGS`: conditions for the air between the devices (docs/link-conditions.md).
    package func setLinkConditions(_ arguments: [String]) throws {
        let result = try runTool(["link", "set"] + arguments + ["--home", watchHome])
        guard result.status == 0 else { throw HarnessError("runway link set \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
    }

    /// Opens the phone's home screen (`runway phone ui`) until it is attached — which drains whatever
    /// the app was holding for a UI — then closes it again.
    package func openHomeScreen(timeout: Double = 30) throws {
        let ui = try RunningTool(["phone", "ui", "--home", phoneHome])
        // SIGKILL: leaving abruptly is what a closed app does.
        defer { ui.signal(SIGKILL); _ = ui.wait() }
        try waitUntil("runway phone ui is attached", timeout: timeout) {
            guard ui.isRunning else {
                let result = ui.wait()
                throw HarnessError("runway phone ui exited (\(result.status)): \(result.stderr)")
            }
            return ui.stdoutSoFar.contains("-- attached")
        }
    }

    package func status(_ device: String) throws -> JSONValue {
        let home = device == "phone" ? phoneHome : watchHome
        let result = try runTool([device, "status", "--home", home, "--json"])
        guard result.status == 0 else { throw HarnessError("runway \(device) status failed: \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    package func outstandingTransfers() throws -> Int {
        let watch = try status("watch")
        var outstanding = (watch["outstandingUserInfoTransfers"]?.intValue ?? -1) + (watch["outstandingFileTransfers"]?.intValue ?? 0)
        if sentFiles.contains(where: { $0.from == "phone" }) { outstanding += try status("phone")["outstandingFileTransfers"]?.intValue ?? 0 }
        return outstanding
    }

    // MARK: - Files

    /// `runway DEVICE transfer-file PATH`: the file's SHA-256 taken here first, the transfer remembered
    /// for the checker once the command succeeded. Returns the transfer id.
    @discardableResult
    package func transferFile(from device: String, _ path: String, metadata: String? = nil) throws -> Int {
        let sent = try Self.describe(path, from: device)
        let home = device == "phone" ? phoneHome : watchHome
        let result = try runTool([device, "transfer-file", path, "--home", home, "--json"] + (metadata.map { ["--metadata", $0] } ?? []))
        guard result.status == 0 else { throw HarnessError("runway \(device) transfer-file failed: \(result.stderr)") }
        noteSent(sent)
        return (try JSONValue(parsing: result.stdout))["transferId"]?.intValue ?? -1
    }

    /// Flights gone by the user's doing another way than `delete(_:)` (the app deleted with its data):
    /// the checker expects them gone, not stored again.
    package func noteDeleted(_ ids: Set<String>) { deleted.formUnion(ids) }

    /// A file sent some other way (a test calling the CLI itself): the checker expects it on the other side.
    package func noteSent(_ file: SentFile) { sentFiles.append(file) }

    /// What the checker expects of the file at `path` sent from `device`.
    package static func describe(_ path: String, from device: String) throws -> SentFile {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
        return SentFile(from: device, name: (path as NSString).lastPathComponent, bytes: size, sha256: try FileReport.hash(path))
    }

    /// The files each device's app kept (`runway … files --json`), with the other device as sender.
    package func keptFiles() throws -> [KeptFile] {
        var kept: [KeptFile] = []
        for (device, home) in [("phone", phoneHome), ("watch", watchHome)] {
            let result = try runTool([device, "files", "--home", home, "--json"])
            guard result.status == 0 else { throw HarnessError("runway \(device) files failed: \(result.stderr)") }
            kept += FileReport.kept(try JSONValue(parsing: result.stdout), on: device)
        }
        return kept
    }

    package func storedCount() throws -> Int {
        try status("phone")["flights"]?.intValue ?? -1
    }

    /// The phone app's own store (flights): `Library/Application Support/RunWay.sqlite` in its container.
    package var phoneAppStore: String { RunWayStore.path(container: phoneHome + "/apps/" + RunWayStore.bundleIDs.phone) }
    /// The watch app's own store.
    package var watchAppStore: String { RunWayStore.path(container: watchHome + "/apps/" + RunWayStore.bundleIDs.watch) }
    /// Every SQLite store of both devices: the WatchConnectivity service's, the OS's, the app's.
    package var storePaths: [String] {
        [phoneHome + "/store.sqlite", phoneHome + "/os.sqlite", phoneAppStore, watchHome + "/store.sqlite", watchHome + "/os.sqlite", watchAppStore]
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// The number of flights in the phone app's store file, read directly (for when the phone is down).
    package func storedCountOffline() throws -> Int {
        let database = try Database(path: phoneAppStore)
        defer { database.close() }
        return try RunWayStoreReader(database: database).flightCount()
    }

    /// The phone's logbook ids, in arrival order, through `runway phone logbook --json`.
    package func logbookIDs() throws -> [String] {
        let result = try runTool(["phone", "logbook", "--home", phoneHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway phone logbook failed: \(result.stderr)") }
        let flights = try JSONValue(parsing: result.stdout).arrayValue ?? []
        return flights.compactMap { $0["id"]?.stringValue }
    }

    /// Polls until `condition` holds, or throws after `timeout` seconds (a deadline, not a measurement).
    package func waitUntil(_ what: String, timeout: Double = 60, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw HarnessError("timed out after \(timeout) s waiting until \(what)")
    }

    /// Waits until the watch has no outstanding transfers, and neither device an application context its
    /// counterpart has not acknowledged (content like any other, issue 50: the latest context was not
    /// there 20 s after everything else, 2 runs in ~25).
    package func waitUntilDrained(timeout: Double = 120) throws {
        try waitUntil("the watch's outbox is empty and every application context is delivered", timeout: timeout) {
            try outstandingTransfers() == 0 && !(try contextPending("watch")) && !(try contextPending("phone"))
        }
    }

    /// Whether `device`'s session has sent an application context its counterpart has not acknowledged.
    package func contextPending(_ device: String) throws -> Bool { try status(device)["applicationContextPending"] == .bool(true) }

    /// Checks every invariant against what the running phone and watch report now.
    package func check() throws -> InvariantReport {
        var report = InvariantChecker.check(
            history: history, stored: try logbookIDs(), outstandingTransfers: try outstandingTransfers(),
            storePaths: storePaths, deleted: deleted, otherWatches: otherWatches.keys.sorted().map { otherWatches[$0] ?? [] })
        if !sentFiles.isEmpty { report.files = FileReport.check(sent: sentFiles, received: try keptFiles()) }
        if !finishedRuns.isEmpty {
            report.health = HealthReport.check(runs: finishedRuns, phoneStore: phoneHome + "/os.sqlite", watchStore: watchHome + "/os.sqlite")
        }
        return report
    }

    /// `runway phone delete ID --yes`; the checker then expects the flight to stay deleted.
    package func delete(_ id: String) throws {
        let result = try runTool(["phone", "delete", id, "--yes", "--home", phoneHome])
        guard result.status == 0 else { throw HarnessError("runway phone delete failed: \(result.stderr)") }
        deleted.insert(id)
    }
}
