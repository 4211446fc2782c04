import Connectivity
import Posix

/// A scenario file (`runway scenario run FILE`, `docs/scenarios.md`): a fresh pair's set-up and the
/// steps to replay on it — record, send, kill, relaunch, cut the link, move the clock, open and close
/// the app, wait, expect.
///
/// Parsed whole before anything runs, by a total parser (`parse`): any bytes give a scenario or one
/// line naming the step (its number and kind) and what is wrong with it. A count or a pause may be a
/// range (`[5, 50]`), which `--seed` resolves when the step runs.
struct Scenario: Equatable, Sendable {
    var name: String?
    var description: String?
    /// Your phone app (phone-os `--app`) and what it gets at each launch (`--app-arg`).
    var phoneApp: String?
    var phoneArgs: [String] = []
    /// Its bundle id, naming its container (phone-os `--bundle-id`; default: the app's file name).
    var phoneBundleId: String?
    /// Where your phone app keeps what it received, so that expectations can hold it to the runs recorded.
    var phoneStore: AppStoreQuery?
    /// phone-os's background budget and launch timeout, when not its defaults.
    var backgroundBudgetMs: Int?
    var launchTimeoutMs: Int?
    /// Your watch app (watch-agent `--app`), and watch-agent's other arguments.
    var watchApp: String?
    var watchArgs: [String] = []
    /// The system's timing for the scenario's pair (`SystemTiming`: immediate, or realistic with its seed).
    var system: SystemTiming = .immediate
    var steps: [ScenarioStep] = []

    /// What a file may hold: sizes and ranges, so that no file can ask for more than a pair can do.
    enum Limits {
        static let fileBytes = 1 << 20
        static let steps = 10_000
        static let record = 1...100_000
        static let send = 1...10_000
        static let milliseconds = 0...600_000
        static let timeoutSeconds = 1.0...3600.0
        static let expected = 0...100_000_000
        static let arguments = 64
        static let argumentBytes = 4096
        static let textBytes = 4096
    }
}

/// An app's own record of what it received, in arrival order: an SQLite file in its container and a query
/// that lists the ids (`{"path": "Library/Application Support/Log.sqlite", "ids": "SELECT id FROM runs
/// ORDER BY rowid"}`), or a text file of ids, one per line (`{"path": "Documents/runs.log"}`). Read-only:
/// the query cannot change the app's store.
struct AppStoreQuery: Equatable, Sendable {
    var path: String
    /// The SELECT listing the ids in arrival order; nil: the file is a text file of ids, one per line, in
    /// arrival order (an app that appends each id it saved to a log, as `Examples/WaterLog`'s do).
    var ids: String?
}

/// A whole number given exactly (`5`) or as a range the seed picks from (`[5, 50]`, both ends included).
struct ScenarioNumber: Equatable, Sendable {
    var low: Int
    var high: Int

    init(_ low: Int, _ high: Int) {
        self.low = low
        self.high = high
    }

    func pick(_ random: inout SeededGenerator) -> Int { low == high ? low : Int.random(in: low...high, using: &random) }

    var text: String { low == high ? String(low) : "[\(low), \(high)]" }
}

/// What a step's expectation compares a figure with.
enum ScenarioBound: Equatable, Sendable {
    case range(ClosedRange<Int>)
    /// As many as were recorded (stored) or sent (received) so far.
    case all

    func text() -> String {
        switch self {
        case .all: "all"
        case let .range(range): range.lowerBound == range.upperBound ? String(range.lowerBound) : "\(range.lowerBound)-\(range.upperBound)"
        }
    }
}

/// The figures an `expect` step checks, each optional (at least one given).
struct ScenarioExpectation: Equatable, Sendable {
    /// Flights in the phone's Logbook.
    var stored: ScenarioBound?
    /// userInfo dictionaries the `send` steps sent that arrived (on either side).
    var received: ScenarioBound?
    /// Recorded or sent, never arrived; arrived more than once (the invariant checker's figures).
    var lost: ScenarioBound?
    var duplicated: ScenarioBound?
    /// Transfers still queued on either side.
    var outstanding: ScenarioBound?
    /// Transfers both devices' sessions have queued since the pair was made (recorded runs, sent userInfo,
    /// and what your apps sent): what every other figure is held over. An expectation over none fails
    /// unless it says so with `transfers` (`{"transfers": 0}`): nothing recorded, nothing lost is no pass.
    var transfers: ScenarioBound?
    /// The checker's whole verdict: nothing lost, duplicated, unexplained or out of order, nothing
    /// outstanding, every store intact.
    var clean: Bool?

    static let fields = ["stored", "received", "lost", "duplicated", "outstanding", "transfers", "clean"]

    var text: String {
        let figures = [
            ("stored", stored), ("received", received), ("lost", lost), ("duplicated", duplicated), ("outstanding", outstanding), ("transfers", transfers),
        ]
        var parts = figures.compactMap { name, bound in bound.map { "\(name) \($0.text())" } }
        if let clean { parts.append(clean ? "clean" : "not clean") }
        return parts.joined(separator: ", ")
    }
}

/// One step of a scenario.
enum ScenarioStep: Equatable, Sendable {
    enum Device: String, Sendable, CaseIterable { case phone, watch }
    /// What `kill` and `relaunch` name: the app phone-os launched, phone-os itself (and so its app), the
    /// watch (watch-agent, or watch-os and its app), the app watch-os launched (a `watchApp` of your own).
    enum Target: String, Sendable, CaseIterable {
        case phoneApp = "phone-app"
        case phoneOS = "phone-os"
        case watch
        case watchApp = "watch-app"
    }

    case record(count: ScenarioNumber, distanceKm: Double?)
    case send(from: Device, count: ScenarioNumber)
    case kill(Target, afterMs: ScenarioNumber?)
    case relaunch(Target)
    case link(up: Bool)
    case clockAdvance(seconds: Double, text: String)
    /// The user, to the device's app: `open`, `close`, … (`appActions`).
    case app(Device, String)
    case jetsam(Device)
    case sleep(ScenarioNumber)
    case waitApp(Device, state: String, timeout: Double)
    case drain(timeout: Double)
    case expect(ScenarioExpectation)

    /// The key that names the step in the file.
    var kind: String {
        switch self {
        case .record: "record"
        case .send: "send"
        case .kill: "kill"
        case .relaunch: "relaunch"
        case .link: "link"
        case .clockAdvance: "clock-advance"
        case .app: "app"
        case .jetsam: "jetsam"
        case .sleep: "sleep"
        case .waitApp: "wait"
        case .drain: "drain"
        case .expect: "expect"
        }
    }

    static let kinds = ["record", "send", "kill", "relaunch", "link", "clock-advance", "app", "jetsam", "sleep", "wait", "drain", "expect"]
    static let appActions = ["open", "close", "force-quit", "suspend", "resume"]
    /// What RunWay's watch app, watch-agent itself, can be asked: it always runs, so no OS acts on it.
    static let watchAgentAppActions = ["open", "close"]
    static let appStates = ["not running", "background", "foreground", "suspended"]
}

/// Why a scenario file was refused: one line, naming the step where there is one.
struct ScenarioError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
