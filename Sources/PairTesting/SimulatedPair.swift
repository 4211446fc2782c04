import Foundation
import Glibc
import JSONText
import Storage

/// A paired phone and watch in fresh homes, driven through the real binaries and the real CLI: the
/// fixture of the integration tests, the demo and the chaos script.
public final class SimulatedPair {
    public let root: String
    public var phoneHome: String { root + "/phone" }
    public var watchHome: String { root + "/watch" }
    public private(set) var phone: DaemonProcess?
    public private(set) var watch: DaemonProcess?
    /// Extra flags for each start (`--save-path ui-drain`, `--link-rate 500`).
    public var phoneArguments: [String] = []
    public var watchArguments: [String] = []
    /// Every flight id whose recording returned success, in recording order.
    public private(set) var recorded: [String] = []
    public private(set) var phoneStarts = 0

    public init(tag: String = "pair") throws {
        root = makeScratchDirectory(tag)
        let result = try runTool(["pair", "--phone", root + "/phone", "--watch", root + "/watch"])
        guard result.status == 0 else { throw HarnessError("runway pair failed: \(result.stderr)") }
    }

    public var phoneLog: String { root + "/phone.log" }
    public var watchLog: String { root + "/watch.log" }

    // MARK: - Daemons

    public func startWatch(environment: [String: String] = [:]) throws {
        watch = try DaemonProcess("watch-agent", ["--home", watchHome] + watchArguments, logPath: watchLog, environment: environment)
    }

    public func startPhone(environment: [String: String] = [:], extraArguments: [String] = []) throws {
        phoneStarts += 1
        phone = try DaemonProcess("phone-daemon", ["--home", phoneHome] + phoneArguments + extraArguments,
                                  logPath: phoneLog, environment: environment)
    }

    public func killPhone(_ signal: Int32 = SIGKILL) { phone?.kill(signal) }
    public func killWatch(_ signal: Int32 = SIGKILL) { watch?.kill(signal) }

    public func stopAll() {
        phone?.stop()
        watch?.stop()
    }

    /// Kills both daemons and removes the homes (kept when `RUNWAY_KEEP_TEST_DIRS` is set, to debug).
    public func cleanUp() {
        phone?.kill()
        watch?.kill()
        if ProcessInfo.processInfo.environment["RUNWAY_KEEP_TEST_DIRS"] == nil {
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    // MARK: - Through the CLI

    /// Records `count` runs on the watch; remembers the ids only if the command succeeded.
    @discardableResult
    public func record(_ count: Int, distanceKm: Double? = nil) throws -> [String] {
        var arguments = ["watch", "record", "--home", watchHome, "--count", String(count), "--json"]
        if let distanceKm { arguments += ["--distance", String(distanceKm)] }
        let result = try runTool(arguments)
        guard result.status == 0 else { throw HarnessError("runway watch record failed (\(result.status)): \(result.stderr)") }
        let ids = try JSONValue(parsing: result.stdout).arrayValue?.compactMap(\.stringValue) ?? []
        guard ids.count == count else { throw HarnessError("recorded \(ids.count) ids, expected \(count)") }
        recorded += ids
        return ids
    }

    public func status(_ device: String) throws -> JSONValue {
        let home = device == "phone" ? phoneHome : watchHome
        let result = try runTool([device, "status", "--home", home, "--json"])
        guard result.status == 0 else { throw HarnessError("runway \(device) status failed: \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    public func outstandingTransfers() throws -> Int {
        try status("watch")["outstandingUserInfoTransfers"]?.intValue ?? -1
    }

    public func storedCount() throws -> Int {
        try status("phone")["flights"]?.intValue ?? -1
    }

    /// The number of flights in the phone's store file, read directly (for when the phone is down).
    public func storedCountOffline() throws -> Int {
        let database = try Database(path: phoneHome + "/store.sqlite")
        defer { database.close() }
        return Int(try database.scalarInt("SELECT count(*) FROM flights"))
    }

    /// The phone's logbook ids, in arrival order, through `runway phone logbook --json`.
    public func logbookIDs() throws -> [String] {
        let result = try runTool(["phone", "logbook", "--home", phoneHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway phone logbook failed: \(result.stderr)") }
        let flights = try JSONValue(parsing: result.stdout).arrayValue ?? []
        return flights.compactMap { $0["id"]?.stringValue }
    }

    /// Polls until `condition` holds, or throws after `timeout` seconds (a deadline, not a measurement).
    public func waitUntil(_ what: String, timeout: Double = 60, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw HarnessError("timed out after \(timeout) s waiting until \(what)")
    }

    /// Waits until the watch has no outstanding transfers.
    public func waitUntilDrained(timeout: Double = 120) throws {
        try waitUntil("the watch's outbox is empty", timeout: timeout) { try outstandingTransfers() == 0 }
    }

    /// Checks every invariant against what the running phone and watch report now.
    public func check() throws -> InvariantReport {
        InvariantChecker.check(
            recorded: recorded, stored: try logbookIDs(), outstandingTransfers: try outstandingTransfers(),
            storePaths: [phoneHome + "/store.sqlite", watchHome + "/store.sqlite"])
    }
}
