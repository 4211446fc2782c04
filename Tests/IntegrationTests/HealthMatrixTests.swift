import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 51, item 1: a finished run is in exactly one Health store, whatever dies or is removed. The
/// matrix, generated: for a phone-led and a watch-led run, at each step, every sequence of the five events
/// — phone-os dies (the phone app with it), the phone app dies, watch-os dies (the watch app with it), the
/// watch app dies, the watch app is removed — each at most once, in every order; then the user brings the
/// devices back (the OSes restarted, the link in range, the app installed again, both apps opened) and
/// finishes the run if it still runs; then the invariant checker counts each finished run's Health saves
/// across both devices' `os.sqlite` (`HealthReport`): exactly one, in the store the table says.
///
/// One pair per row (a step of a run), under phone-os and watch-os, reused cell after cell with a new run
/// each: a cell starts from a pair at rest (every process up, the link in range, the apps open) and ends
/// there, so what the pair carries from one cell to the next is only what a user's pair would — the
/// earlier runs, each checked again at every cell (a late second save of an earlier run is caught).
/// The table in docs/runs.md is this one (`HealthMatrixDocTests`).
enum HealthMatrix {
    enum Event: String, CaseIterable, Sendable {
        case phoneOS = "phone-os", phoneApp = "phone app", watchOS = "watch-os", watchApp = "watch app", removed = "watch app removed"
    }

    enum Step: String, CaseIterable, Sendable {
        // A phone-led run.
        case unreached = "started, the watch out of range (never reached)"
        case running = "running, mirroring confirmed"
        case stopPending = "stopped on the phone, the stop not yet on the watch"
        case savedUnheard = "saved by the watch, which died before telling the phone"
        case settled = "saved and settled"
        // A watch-led run.
        case watchRunning = "running on the watch"
        case watchStopped = "stopped and saved on the watch, its flight not yet on the phone"
        case watchSettled = "saved on the watch, its flight delivered"

        var phoneLed: Bool { ![.watchRunning, .watchStopped, .watchSettled].contains(self) }

        /// Every sequence (`allSequences`), at every step: also where no event should change who saves (the
        /// run is saved already, or never reached the watch), since a second save is what would show it did.
        var sequences: [[Event]] { HealthMatrix.allSequences }

        /// Which store holds the run once the cell is over: the watch's session recorded it, unless the
        /// watch app was removed before the watch saved it (then the phone took the save back); a
        /// watch-led run whose app was removed mid-run never finished, and is in neither.
        func expected(_ events: [Event]) -> String {
            let removed = events.contains(.removed)
            switch self {
            case .unreached: return "phone"
            case .running, .stopPending: return removed ? "phone" : "watch"
            case .savedUnheard, .settled: return "watch"
            case .watchRunning: return removed ? "none" : "watch"
            case .watchStopped, .watchSettled: return "watch"
            }
        }
    }

    /// Every sequence of the five events, each at most once, in every order — of one to five events — in
    /// which each event finds something to do: phone-os's death takes the phone app with it, watch-os's the
    /// watch app, and a removed app is not running (so "phone-os → phone app" is the cell "phone-os", and is
    /// not run twice). Shortest first; 118 with "nothing".
    static let allSequences: [[Event]] = {
        var all: [[Event]] = [[]]
        var level: [[Event]] = [[]]
        while !level.isEmpty {
            level = level.flatMap { events in Event.allCases.filter { !events.contains($0) }.map { events + [$0] } }.filter(eachEventActs)
            all += level
        }
        return all
    }()

    /// Whether every event of the sequence finds something to do, as `MatrixPair.apply` does them (a
    /// removal restarts a dead watch-os first).
    static func eachEventActs(_ events: [Event]) -> Bool {
        var phoneOSDown = false
        var watchOSDown = false
        var removed = false
        for event in events {
            switch event {
            case .phoneOS: phoneOSDown = true
            case .phoneApp: if phoneOSDown { return false }
            case .watchOS: watchOSDown = true
            case .watchApp: if watchOSDown || removed { return false }
            case .removed:
                watchOSDown = false
                removed = true
            }
        }
        return true
    }

    static func label(_ events: [Event]) -> String { events.isEmpty ? "nothing" : events.map(\.rawValue).joined(separator: " → ") }

    static var cellCount: Int { Step.allCases.map(\.sequences.count).reduce(0, +) }

    /// The table docs/runs.md shows: a row per sequence of events, a column per step, each cell the store
    /// that holds the finished run (`—`: that sequence is not run at that step, said why in the text).
    static var table: String {
        let steps = Step.allCases
        var lines = [
            "| events, in order | " + steps.map { "\($0.phoneLed ? "phone-led" : "watch-led"): \($0.rawValue)" }.joined(separator: " | ") + " |",
            "|" + String(repeating: "---|", count: steps.count + 1),
        ]
        for events in allSequences {
            let cells = steps.map { step in step.sequences.contains(events) ? step.expected(events) : "—" }
            lines.append("| \(label(events)) | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}

extension HealthMatrix.Step: CustomTestStringConvertible {
    var testDescription: String { "\(phoneLed ? "phone-led" : "watch-led"), \(rawValue)" }
}

/// The matrix through the real binaries: one test case per step (a row), its cells one after another on
/// one pair. Each cell names itself in a failure (`step / events`). Measured: `HealthMatrix.cellCount`
/// cells; the figure with its command is in docs/runs.md.
@Suite struct HealthMatrixTests {
    @Test(arguments: HealthMatrix.Step.allCases)
    func exactlyOneHealthStoreHoldsEachFinishedRun(step: HealthMatrix.Step) throws {
        // A developer's filter (docs/runs.md): RUNWAY_HEALTH_MATRIX_ROWS=running,stopPending runs those rows only.
        if let only = ProcessInfo.processInfo.environment["RUNWAY_HEALTH_MATRIX_ROWS"], !only.split(separator: ",").contains(Substring("\(step)")) {
            print("health matrix: \(step.testDescription): left out (RUNWAY_HEALTH_MATRIX_ROWS)")
            return
        }
        // Another: RUNWAY_HEALTH_MATRIX_EVENTS=2 runs the cells of at most two events (the whole matrix takes
        // minutes: docs/runs.md).
        var most = Int.max
        if let text = ProcessInfo.processInfo.environment["RUNWAY_HEALTH_MATRIX_EVENTS"] {
            most = try #require(Int(text).flatMap { $0 >= 0 ? $0 : nil }, "RUNWAY_HEALTH_MATRIX_EVENTS is a count of events, not \(text)")
        }
        let cells = step.sequences.filter { $0.count <= most }
        let started = Date()
        let matrix = try MatrixPair(step: step)
        defer { matrix.pair.cleanUp() }
        try matrix.boot()
        for events in cells {
            do {
                let outcome = try matrix.cell(events)
                #expect(outcome.report.isClean, "\(outcome.label): \(outcome.report.violations.joined(separator: "; "))")
                #expect(outcome.holder == step.expected(events), "\(outcome.label): the run is in \(outcome.holder), expected \(step.expected(events))")
                #expect(outcome.finished == (step.expected(events) != "none"), "\(outcome.label): finished \(outcome.finished)")
            } catch {
                Issue.record("\(step.testDescription) / \(HealthMatrix.label(events)): \(error)\n\(matrix.state())")
                // The pair as the cell left it is no baseline for the next: the row stops here.
                return
            }
        }
        // The flights too: every phone-led run in the logbook once, every delivered watch run once.
        try matrix.pair.expectDrainedAndClean(timeout: 60, "\(step.testDescription)")
        print("health matrix: \(step.testDescription): \(cells.count) cells in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }

    /// The matrix can fail: with `phone-daemon --health volatile` (the phone before issue 51: who saves kept
    /// in memory, never taken back) the cells where the watch app is removed after the watch took the save
    /// lose the run — the checker names it saved nowhere. (The double save of a restarted phone needs the
    /// phone to stop before the watch app is back, which the matrix's user does not do: shown by
    /// `HealthOwnershipTests.theWatchAppKilledThenThePhoneRestartedSavesTheRunOnce("volatile")`.)
    @Test func theMatrixCatchesThePhoneThatNeverTakesTheSaveBack() throws {
        for step in [HealthMatrix.Step.running, .stopPending] {
            let matrix = try MatrixPair(step: step, phoneArguments: ["--app-arg=--health", "--app-arg=volatile"])
            defer { matrix.pair.cleanUp() }
            try matrix.boot()
            for events: [HealthMatrix.Event] in [[], [.removed], [.watchApp, .removed]] {
                let outcome = try matrix.cell(events)
                let expected = events.contains(.removed) ? "none" : "watch"
                #expect(outcome.holder == expected, "\(outcome.label): the run is in \(outcome.holder), expected \(expected) with the volatile phone")
                #expect(outcome.report.isClean == !events.contains(.removed), "\(outcome.label): \(outcome.report.violations)")
                if events.contains(.removed) { #expect(outcome.report.missing.contains(outcome.id)) }
            }
            // The flights are the phone's to save whatever the rule: each in the logbook once.
            try matrix.pair.waitUntilDrained()
            let flights = try matrix.pair.check()
            #expect(flights.lost.isEmpty && flights.duplicated.isEmpty && flights.unexpected.isEmpty, "\(flights.summary)")
        }
    }
}

/// A pair under phone-os and watch-os for one row of the matrix.
final class MatrixPair {
    let step: HealthMatrix.Step
    let pair: SimulatedPair
    /// `savedUnheard`: the watch app SIGKILLs itself right after its Health save, once per arming.
    var crashMarker: String { pair.root + "/crash-once" }
    var phoneOSDown = false
    var watchOSDown = false
    var removed = false
    var linkOut = false

    /// The phone app's switches (phone-os's `--app-arg`s).
    let phoneArguments: [String]

    init(step: HealthMatrix.Step, phoneArguments: [String] = []) throws {
        self.step = step
        self.phoneArguments = phoneArguments
        pair = try SimulatedPair(tag: "hm")
    }

    // MARK: - The pair at rest

    func startPhoneOS() throws {
        try pair.startPhoneOS(["--app-arg=--mirroring-confirm-timeout-ms", "--app-arg=2000"] + phoneArguments)
        phoneOSDown = false
    }

    func startWatchOS() throws {
        var environment: [String: String] = [:]
        if step == .savedUnheard { environment = ["RUNWAY_CRASH_AT": "health.after-save", "RUNWAY_CRASH_ONCE": crashMarker] }
        try pair.startWatchOS([], environment: environment)
        watchOSDown = false
    }

    func boot() throws {
        // Disarmed until the step arms it.
        _ = FileManager.default.createFile(atPath: crashMarker, contents: nil)
        try startWatchOS()
        try startPhoneOS()
        _ = try pair.phoneOSCall(["app", "open"])
        try pair.waitUntil("the phone is linked to the watch", timeout: 60) { try pair.status("phone")["linked"] == .bool(true) }
    }

    /// Every process up, the link in range, the watch app installed, both apps open.
    func toRest() throws {
        if watchOSDown { try startWatchOS() }
        if phoneOSDown { try startPhoneOS() }
        if removed {
            _ = try pair.watchOSCall(["app", "install"])
            removed = false
        }
        if linkOut {
            try pair.setLinkConditions(["--range", "near"])
            linkOut = false
        }
        _ = try pair.phoneOSCall(["app", "open"])
        _ = try pair.watchOSCall(["app", "open"])
        try pair.waitUntil("the phone is linked to the watch", timeout: 30) { try pair.status("phone")["linked"] == .bool(true) }
    }

    // MARK: - A cell

    /// What a cell left: the checker's report over every run of the row so far, where this run is, whether
    /// it finished.
    struct Outcome {
        var id: String
        var label: String
        var report: HealthReport
        var holder: String
        var finished: Bool
    }

    func cell(_ events: [HealthMatrix.Event]) throws -> Outcome {
        try toRest()
        let id = try startRun()
        var finished = try reachStep(id)
        for event in events { try apply(event) }
        try toRest()
        if !finished { finished = try finishRun(id) }
        if step == .watchStopped, events.contains(.removed) {
            // The deleted app's queue went with it (as on watchOS): its flight never reaches the phone.
            pair.noteCancelled([id])
        }
        try settle(id, finished: finished)
        let report = HealthReport.check(runs: pair.finishedRuns, phoneStore: pair.phoneHome + "/os.sqlite", watchStore: pair.watchHome + "/os.sqlite")
        let saves = report.saves[id] ?? HealthSaves()
        let holder = saves.total == 0 ? "none" : saves.phone == 0 ? "watch" : saves.watch == 0 ? "phone" : "both"
        let label = "\(step.testDescription) / \(HealthMatrix.label(events))"
        return Outcome(id: id, label: label, report: report, holder: holder, finished: finished)
    }

    /// A new run, started and fed one batch (0.4 km): its id.
    func startRun() throws -> String {
        if step.phoneLed {
            if step == .unreached {
                try pair.setLinkConditions(["--range", "out"])
                linkOut = true
                try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            }
            let id = try #require(try pair.phoneRun(["start"])["runId"]?.stringValue)
            if step == .unreached {
                try pair.waitUntil("the phone gives up waiting for the watch", timeout: 15) { try pair.mirroringState() == "unconfirmed" }
            } else {
                try pair.waitUntil("the watch mirrors the run", timeout: 15) { try pair.mirroringState() == "confirmed" }
            }
            try pair.phoneRun(["sample", "--json-file", try pair.writeSamples(MirroredStopTests.samples)])
            return id
        }
        let id = try #require(try pair.watchRun(["start"])["runId"]?.stringValue)
        try pair.feed(MirroredStopTests.samples)
        return id
    }

    /// Brings the run to the row's step; whether it is finished (stopped) there.
    func reachStep(_ id: String) throws -> Bool {
        switch step {
        case .running, .watchRunning:
            return false
        case .unreached, .settled:
            try stopOnPhone(id)
            if step == .settled { try settle(id, finished: true) }
            return true
        case .stopPending:
            try pair.setLinkConditions(["--range", "out"])
            linkOut = true
            try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            try stopOnPhone(id)
            return true
        case .savedUnheard:
            try FileManager.default.removeItem(atPath: crashMarker)
            try stopOnPhone(id)
            try pair.waitUntil("the watch app died right after its Health save", timeout: 15) { FileManager.default.fileExists(atPath: crashMarker) }
            return true
        case .watchStopped:
            try pair.setLinkConditions(["--range", "out"])
            linkOut = true
            try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            fallthrough
        case .watchSettled:
            #expect(try pair.stopWatchRun()["id"] == .string(id))
            pair.noteFinishedRun(id)
            if step == .watchSettled { try settle(id, finished: true) }
            return true
        }
    }

    func stopOnPhone(_ id: String) throws {
        #expect(try pair.stopPhoneRun()["saved"] == .string("saved"))
        pair.noteFinishedRun(id)
    }

    // MARK: - The events

    func apply(_ event: HealthMatrix.Event) throws {
        switch event {
        case .phoneOS:
            guard !phoneOSDown else { return }
            pair.killPhoneOS()
            phoneOSDown = true
        case .phoneApp:
            guard !phoneOSDown, let pid = try pair.phoneOSCall(["os", "status"])["appPid"]?.intValue else { return }
            kill(pid_t(pid), SIGKILL)
            try pair.waitUntil("phone-os reaps its app") { try pair.phoneOSCall(["os", "status"])["appPid"]?.intValue != pid }
        case .watchOS:
            guard !watchOSDown else { return }
            pair.killWatchOS()
            watchOSDown = true
        case .watchApp:
            // Not running (it died at the step, or was never launched): nothing to kill.
            guard !watchOSDown, let pid = try pair.watchOSStatus()["appPid"]?.intValue else { return }
            kill(pid_t(pid), SIGKILL)
            try pair.waitUntil("watch-os reaps its app") { try pair.watchOSStatus()["appPid"]?.intValue != pid }
        case .removed:
            // The user deletes the app on a watch that is up (one restarted first if it died).
            if watchOSDown { try startWatchOS() }
            guard !removed else { return }
            _ = try pair.watchOSCall(["app", "uninstall"])
            removed = true
        }
    }

    // MARK: - The end of a cell

    /// The user finishes the run if it still runs: on the phone (phone-led), or on the watch (watch-led,
    /// unless its app was removed and the run with it). Whether the run is finished.
    func finishRun(_ id: String) throws -> Bool {
        if step.phoneLed {
            try pair.waitUntil("the phone finds its run again") { try pair.phoneRun(["status"])["runId"] == .string(id) }
            try stopOnPhone(id)
            return true
        }
        let status = try pair.watchRun(["status"])
        guard status["runId"] == .string(id) else { return false }
        #expect(try pair.stopWatchRun()["id"] == .string(id))
        pair.noteFinishedRun(id)
        return true
    }

    /// Waits until neither device can save the run any more by itself: no run in progress on either, the
    /// phone with no Health decision pending, and a finished run in a store.
    func settle(_ id: String, finished: Bool) throws {
        // The phone before issue 51 keeps nothing to settle: both devices idle is all there is to wait for.
        let volatile = phoneArguments.contains("--app-arg=volatile")
        try pair.waitUntil("the run's Health save is settled", timeout: 30) {
            if volatile {
                return try pair.phoneRun(["status"])["state"] == .string("idle") && pair.watchRun(["status"])["state"] == .string("idle")
            }
            guard try pair.status("phone")["healthDecisionsPending"] == .integer(0) else { return false }
            guard try pair.phoneRun(["status"])["state"] == .string("idle"), try pair.watchRun(["status"])["state"] == .string("idle") else { return false }
            guard finished else { return true }
            return try pair.healthCounts(id) != (0, 0)
        }
    }

    /// The pair's state, for a failure's message.
    func state() -> String {
        let phone = (try? pair.status("phone")).map { "phone: pending \($0["healthDecisionsPending"] ?? .null), linked \($0["linked"] ?? .null)" } ?? "phone: ?"
        let watch = (try? pair.watchRun(["status"])).map { "watch run: \($0["state"] ?? .null) \($0["runId"] ?? .null)" } ?? "watch run: ?"
        let tail = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8))?.split(separator: "\n").suffix(8).joined(separator: "\n") ?? ""
        return "\(phone); \(watch); homes \(pair.root)\n\(tail)"
    }
}

/// docs/runs.md shows the matrix as the test runs it: the table between its markers is
/// `HealthMatrix.table`, regenerated from the test's own definitions.
@Suite struct HealthMatrixDocTests {
    @Test func runsMdShowsTheMatrixTheTestRuns() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/runs.md").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(text.range(of: "<!-- health-matrix -->\n"))
        let end = try #require(text.range(of: "<!-- /health-matrix -->"))
        let shown = end.lowerBound > start.upperBound ? String(text[start.upperBound..<end.lowerBound].dropLast()) : ""
        #expect(shown == HealthMatrix.table, "docs/runs.md's matrix differs from the test's; it should read:\n\(HealthMatrix.table)")
        #expect(text.contains("\(HealthMatrix.cellCount) cells"), "docs/runs.md should say the matrix has \(HealthMatrix.cellCount) cells")
    }

    /// Every ordering of every subset of the five events (326) is a cell of the matrix once the events that
    /// find nothing to do are dropped (a kill of what is dead, of a removed app), and no cell is run twice.
    @Test func theMatrixHasEveryOrderOfEveryCombinationOfEvents() {
        func orderings(_ chosen: [HealthMatrix.Event]) -> [[HealthMatrix.Event]] {
            [chosen] + HealthMatrix.Event.allCases.filter { !chosen.contains($0) }.flatMap { orderings(chosen + [$0]) }
        }
        let all = orderings([])
        #expect(all.count == 326)
        let cells = HealthMatrix.allSequences
        #expect(Set(cells.map(HealthMatrix.label)).count == cells.count, "a cell run twice")
        for events in all {
            let acting = events.reduce(into: [HealthMatrix.Event]()) { kept, event in
                if HealthMatrix.eachEventActs(kept + [event]) { kept.append(event) }
            }
            #expect(cells.contains(acting), "\(HealthMatrix.label(events)) is no cell of the matrix")
        }
        #expect(cells.count == 118)
    }
}
