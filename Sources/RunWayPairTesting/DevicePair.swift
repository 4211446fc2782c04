import Foundation
import JSONText
import PairTesting
import Posix

/// A simulated phone and watch for your own `swift test`: your apps (or RunWay's) on them, in fresh
/// homes, through the real binaries — `phone-os` hosting the phone's app (background launches on
/// pending transfers, the budget and reclaim, foreground on `openPhoneApp`), `watch-agent` running the
/// watch's — killed, relaunched, cut off and moved in time as a test says, then checked with
/// `DeliveryReport` over your own ids. See docs/your-app.md.
///
/// ```swift
/// let pair = try DevicePair(phoneApp: DevicePair.executable("WaterPhone"),
///                           watchApp: DevicePair.executable("WaterWatch"), watchArguments: ["--log", "200"])
/// defer { pair.stop() }
/// try pair.killPhoneApp()
/// try pair.waitUntilDelivered()
/// let report = DeliveryReport.check(sent: ids, received: try pair.phoneLines("Documents/entries.log"))
/// #expect(report.isClean, "\(report)")
/// ```
public final class DevicePair {
    public enum Device: String, Sendable { case phone, watch }

    /// The pair underneath (the homes, the processes, the CLI), for what this class does not wrap.
    package let pair: SimulatedPair
    public let phoneApp: String?
    public let watchApp: String?
    public var phoneHome: String { pair.phoneHome }
    public var watchHome: String { pair.watchHome }
    private let phoneOSArguments: [String]

    /// The system's own timing (docs/system-timing.md): `immediate` — transfers go at once, a refresh
    /// fires on its date — or `realistic`, a seeded model of Apple's deferrals (background transfers,
    /// files and application contexts held 1–10 s, 4–40 s with `lowPower`; a refresh "shortly after" its
    /// date and at most four an hour). The same seed gives the same schedule; the devices' logs, `events`
    /// and `status` say what was deferred and why.
    public enum System: Equatable, Sendable {
        case immediate
        case realistic(seed: UInt64, lowPower: Bool = false)

        /// The form `runway up --system` and a scenario's `"system"` take.
        public var description: String {
            switch self {
            case .immediate: "immediate"
            case let .realistic(seed, lowPower): "realistic:\(seed)" + (lowPower ? ":low-power" : "")
            }
        }
    }

    /// Starts a pair in fresh homes: phone-os hosting `phoneApp` (nil: RunWay's phone app) with its
    /// `phoneArguments`, and the watch running `watchApp` (nil: RunWay's watch app) with its
    /// `watchArguments`, under `system`'s timing. Returns once both are ready; nothing of the phone's app
    /// runs until the watch has something for it or `openPhoneApp` is called.
    public init(
        tag: String = "pair", phoneApp: String? = nil, phoneArguments: [String] = [], watchApp: String? = nil, watchArguments: [String] = [],
        backgroundBudgetMilliseconds: Int = 30_000, system: System = .immediate
    ) throws {
        try Self.locateBinaries(SimulatorBinaries.needed(phoneApp: phoneApp, watchApp: watchApp))
        self.phoneApp = phoneApp
        self.watchApp = watchApp
        pair = try SimulatedPair(tag: tag)
        pair.environment["RUNWAY_SYSTEM"] = system.description
        phoneOSArguments =
            (phoneApp.map { ["--app", $0] } ?? []) + phoneArguments.map { "--app-arg=\($0)" }
            + ["--background-budget-ms", String(backgroundBudgetMilliseconds)]
        pair.watchArguments = (watchApp.map { ["--app", $0] } ?? []) + watchArguments.map { watchApp == nil ? $0 : "--app-arg=\($0)" }
        do {
            try pair.startPhoneOS(phoneOSArguments)
            try pair.startWatch()
        } catch {
            pair.cleanUp()
            throw error
        }
    }

    /// Stops everything and removes the homes (kept with `RUNWAY_KEEP_TEST_DIRS=1`).
    public func stop() { pair.cleanUp() }

    // MARK: - Where things are

    /// An executable of your package, built next to the running tests (`swift build --build-tests`
    /// builds every product).
    public static func executable(_ name: String) -> String {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug/" + name
    }

    /// An app's container on a device (`HOME/apps/BUNDLE-ID`; the bundle id is the executable's name).
    public func container(_ device: Device) -> String {
        let home = device == .phone ? phoneHome : watchHome
        let app = device == .phone ? phoneApp : watchApp
        let bundle = app.map { String($0.split(separator: "/").last ?? "app") } ?? (device == .phone ? "com.runway.RunWay" : "com.runway.RunWay.watchkitapp")
        return home + "/apps/" + bundle
    }

    /// The lines of a text file in the phone app's container (empty if there is none yet).
    public func phoneLines(_ relativePath: String) -> [String] { lines(.phone, relativePath) }

    public func lines(_ device: Device, _ relativePath: String) -> [String] {
        guard let text = try? String(contentsOfFile: container(device) + "/" + relativePath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    // MARK: - Doing things to it

    /// Records `count` runs with RunWay's watch app; returns their ids in order.
    @discardableResult
    public func record(_ count: Int) throws -> [String] { try pair.record(count) }

    /// Sends a userInfo from a device's session as its app would (`runway … transfer-userinfo`), JSON
    /// with the typed forms for dates and data (docs/everyday-loop.md).
    public func transferUserInfo(from device: Device, json: String) throws {
        let result = try runTool([device.rawValue, "transfer-userinfo", "--json-file", "-", "--home", home(device)], stdin: json)
        guard result.status == 0 else { throw HarnessError("transfer-userinfo failed: \(result.stderr)") }
    }

    /// SIGKILLs the phone's app if it runs (phone-os launches it again when the watch has more).
    public func killPhoneApp() throws {
        if let pid = try phoneOS(["os", "status"])["appPid"]?.intValue { ProcessStop.signal(pid_t(pid), SIGKILL) }
    }

    /// SIGKILLs the watch's app, as a crash does. DevicePair runs it without watch-os, so nothing
    /// launches it again: `restartWatch()` does (its store, its queue and its received files kept).
    public func killWatchApp() throws {
        pair.killWatch()
        guard pair.watch?.waitForExit(timeout: 10) == true else { throw HarnessError("the watch's app did not exit after SIGKILL") }
    }

    /// The phone's app's state as phone-os says it: `not running`, `background`, `foreground`, `suspended`.
    public func phoneAppState() throws -> String { try phoneOS(["os", "status"])["appState"]?.stringValue ?? "unknown" }

    /// The user opens the phone's app (returns once it is ready), closes it, force-quits it; memory
    /// pressure kills it (`jetsam`).
    public func openPhoneApp() throws { _ = try phoneOS(["app", "open"]) }
    public func closePhoneApp() throws { _ = try phoneOS(["app", "close"]) }
    public func forceQuitPhoneApp() throws { _ = try phoneOS(["app", "force-quit"]) }
    public func jetsamPhoneApp() throws { _ = try phoneOS(["os", "jetsam"]) }

    /// SIGKILLs the whole phone (phone-os and its app) and starts it again.
    public func restartPhone() throws {
        pair.phoneOS?.kill()
        _ = pair.phoneOS?.waitForExit(timeout: 10)
        try pair.startPhoneOS(phoneOSArguments)
    }

    /// SIGKILLs the watch and starts it again.
    public func restartWatch() throws {
        pair.killWatch()
        _ = pair.watch?.waitForExit(timeout: 10)
        try pair.startWatch()
    }

    /// Takes the watch out of range and back (`runway watch link down|up`).
    public func setLink(up: Bool) throws { try cli(["watch", "link", up ? "up" : "down", "--home", watchHome]) }

    /// Moves the phone's device clock on (`1d`, `90m`, `8d`): notifications due fire.
    public func advancePhoneClock(_ duration: String) throws { try cli(["clock", "advance", duration, "--home", phoneHome]) }

    /// Waits until the watch's session has nothing left to deliver to the phone.
    public func waitUntilDelivered(timeout: Double = 120) throws { try pair.waitUntilDrained(timeout: timeout) }

    /// Polls `condition` until it holds (a deadline, not a measure).
    public func waitUntil(_ what: String, timeout: Double = 60, _ condition: () throws -> Bool) throws {
        try pair.waitUntil(what, timeout: timeout, condition)
    }

    // MARK: - Underneath

    private func home(_ device: Device) -> String { device == .phone ? phoneHome : watchHome }

    private func phoneOS(_ arguments: [String]) throws -> JSONValue { try pair.phoneOSCall(arguments) }

    private func cli(_ arguments: [String]) throws {
        let result = try runTool(arguments)
        guard result.status == 0 else { throw HarnessError("runway \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
    }

    /// Replays a scenario file with `runway scenario run FILE [--seed S]` (`docs/scenarios.md`) on the
    /// simulator's binaries: a fresh pair of its own, each step printed, then the verdict. Returns the exit
    /// status (0 every expectation held, 1 not, 2 a malformed file) and what it printed (stdout, then
    /// stderr).
    public static func runScenario(_ file: String, seed: UInt64? = nil) throws -> (status: Int32, output: String) {
        try locateBinaries(SimulatorBinaries.all)
        let result = try runTool(["scenario", "run", file] + (seed.map { ["--seed", String($0)] } ?? []))
        return (result.status, result.stdout + result.stderr)
    }

    /// Finds the binaries a pair runs, building those missing (`SimulatorBinaries`), and hands their
    /// directory to the harness (`RUNWAY_BIN_DIR`, which `RUNWAY_BIN_DIR=DIR swift test` sets itself).
    static func locateBinaries(_ artefacts: [SimulatorBinaries.Artefact]) throws {
        setenv("RUNWAY_BIN_DIR", try SimulatorBinaries.directory(for: artefacts), 1)
    }
}
