import Foundation

/// What a chaos run does (the flags of `scripts/chaos`).
package struct ChaosOptions: Sendable {
    package var iterations = 50
    package var seed: UInt64
    /// Runs the phone with `--save-path ui-drain` (RunWay 1.3's bug): the run must report the loss.
    package var legacy = false
    /// The watch's `--link-rate`: slow enough that kills land while transfers are on the wire.
    package var linkRate = 200
    /// Draws random link conditions too (`--link-conditions`); the drain at the end is in clear air.
    package var linkConditions = false
    /// The watch is run by watch-os (`--watch-os`), which launches the watch app on demand: a watch kill is
    /// watch-os's (the app dies with it), or the app is jetsammed or closed; the link goes out of range and
    /// back (`runway link set --range`), which watch-os answers while the app is down.
    package var watchOS = false
    /// watch-os's background budget (`--background-budget-ms`): short, so that reclaims and launches are many.
    package var backgroundBudgetMilliseconds = 500
    /// The most flights one recording call asks for (`--largest-burst`): large ones make backlogs past the
    /// sender's 8,192 kept rows and calls of several 10,000-run chunks, each committed on its own.
    package var largestBurst = ChaosSchedule.Tuning().largestBurst
    /// How long the final drain may take before the run fails (a deadline, not a measurement).
    package var drainTimeout: Double = 300

    package init(seed: UInt64) { self.seed = seed }
}

/// The chaos run: both daemons in fresh homes, flights recorded in bursts while the phone and the watch
/// are SIGKILLed and relaunched and the link goes down and up; then the backlog drains and the
/// invariant checker judges the history of what was recorded against what the phone stored.
package final class ChaosRunner {
    private let options: ChaosOptions
    private let say: (String) -> Void
    private let pair: SimulatedPair
    private var pending: SimulatedPair.PendingRecording?
    private var kills = 0
    private var refusedCalls = 0

    private init(options: ChaosOptions, pair: SimulatedPair, say: @escaping (String) -> Void) {
        self.options = options
        self.pair = pair
        self.say = say
    }

    /// Runs the whole thing; returns the exit status (0 all invariants hold, 1 a violation or a failure).
    package static func run(_ options: ChaosOptions, say: @escaping (String) -> Void) -> Int32 {
        say(
            "seed \(options.seed) (replay this schedule: scripts/chaos --seed \(options.seed) --iterations \(options.iterations)\(options.legacy ? " --legacy" : "")\(options.linkConditions ? " --link-conditions" : "")\(options.watchOS ? " --watch-os" : "")\(options.largestBurst != ChaosSchedule.Tuning().largestBurst ? " --largest-burst \(options.largestBurst)" : ""))"
        )
        let pair: SimulatedPair
        do {
            pair = try SimulatedPair(tag: "chaos")
        } catch {
            say("chaos: could not pair two fresh homes: \(error)")
            return 1
        }
        let runner = ChaosRunner(options: options, pair: pair, say: say)
        let status: Int32
        do {
            status = try runner.execute()
        } catch {
            say("chaos: \(error)")
            say("logs kept in \(pair.root) (phone.log, watch.log)")
            pair.stopAll()
            return 1
        }
        pair.stopAll()
        // A legacy run is meant to fail: only an unexpected failure keeps its homes for a post-mortem.
        if status == 0 || options.legacy { pair.cleanUp() } else { say("logs and stores kept in \(pair.root)") }
        return status
    }

    // MARK: - The run

    private func execute() throws -> Int32 {
        var tuning = ChaosSchedule.Tuning()
        tuning.largestBurst = options.largestBurst
        let schedule = ChaosSchedule.make(
            seed: options.seed, iterations: options.iterations, linkConditions: options.linkConditions, watchOS: options.watchOS, tuning: tuning)
        pair.watchArguments = ["--link-rate", String(options.linkRate)]
        if options.legacy { pair.phoneArguments = ["--save-path", "ui-drain"] }
        try startWatch()
        try pair.startPhone()
        say(
            "phone \(options.legacy ? "--save-path ui-drain (legacy)" : "saves on receipt"), watch --link-rate \(options.linkRate)"
                + (options.watchOS ? " under watch-os (budget \(options.backgroundBudgetMilliseconds) ms)" : "") + ", \(options.iterations) iterations")

        let width = String(options.iterations).count
        for (index, steps) in schedule.enumerated() {
            for step in steps { try perform(step) }
            let number = String(index + 1)
            let label = String(repeating: " ", count: width - number.count) + number
            say(
                "[\(label)/\(options.iterations)] " + steps.map(\.description).joined(separator: ", ")
                    + " | \(kills) kills, \(pair.recorded.count) recorded")
        }
        return try finish()
    }

    private func perform(_ step: ChaosAction) throws {
        try requireAlive()
        switch step {
        case .record(let count):
            try collectRecording()
            pending = try pair.startRecording(count)
        case .pause(let milliseconds):
            usleep(UInt32(milliseconds) * 1000)
        case .killPhone:
            pair.killPhone()
            kills += 1
        case .relaunchPhone:
            try pair.startPhone()
        case .killWatch:
            if options.watchOS { pair.killWatchOS() } else { pair.killWatch() }
            kills += 1
        case .relaunchWatch:
            try startWatch()
        case .linkDown:
            try setLink(up: false)
        case .linkUp:
            try setLink(up: true)
        case .linkConditions(let arguments):
            try pair.setLinkConditions(arguments)
        case .jetsamWatchApp:
            // Nothing to kill when the app is not running: one line, exit 1, and the run goes on.
            if try runTool(["watch", "os", "jetsam", "--home", pair.watchHome]).status == 0 { kills += 1 }
        case .closeWatchApp:
            _ = try runTool(["watch", "app", "close", "--home", pair.watchHome])
        }
    }

    /// The watch: watch-agent, or watch-os launching it (`--watch-os`, the app's flags as its `--app-arg`s).
    private func startWatch() throws {
        guard options.watchOS else { return try pair.startWatch() }
        try pair.startWatchOS(
            ["--background-budget-ms", String(options.backgroundBudgetMilliseconds)] + pair.watchArguments.map { "--app-arg=" + $0 })
    }

    /// `runway link down|up`, or under watch-os the range (`link set --range out|near`), which watch-os
    /// answers while the app is not running (the older switch needs the app).
    private func setLink(up: Bool) throws {
        if options.watchOS { try pair.setLinkConditions(["--range", up ? "near" : "out"]) } else { try pair.setLink(up: up) }
    }

    /// A daemon that the schedule did not kill must still be running: dying by itself is a bug.
    private func requireAlive() throws {
        for daemon in [pair.phone, pair.watch, pair.watchOS].compactMap({ $0 }) where !daemon.isRunning && !daemon.wasKilled {
            throw HarnessError(
                "\(daemon.name) died by itself (\(daemon.terminationSignal.map { "signal \($0)" } ?? "exited")); its log ends:\n\(daemon.logTail())")
        }
    }

    /// Waits for the recording call in flight, if any, and files it in the history.
    private func collectRecording() throws {
        guard let call = pending else { return }
        pending = nil
        switch try pair.finish(call) {
        case .succeeded: break
        case .refused: refusedCalls += 1
        case .indeterminate(let why): say("  a recording of \(call.count) got no answer (\(why)): it may have committed")
        }
    }

    // MARK: - Drain and check

    private func finish() throws -> Int32 {
        try collectRecording()
        try requireAlive()
        try setLink(up: true)
        if options.linkConditions { try pair.setLinkConditions(["--reset"]) }
        let outstanding = try pair.outstandingTransfers()
        say("draining: link up\(options.linkConditions ? ", clear air" : ""), \(outstanding) transfers outstanding on the watch")
        try pair.waitUntilDrained(timeout: options.drainTimeout)
        if options.legacy {
            // As a user opening the app at last: the home screen saves what the last phone held.
            try pair.openHomeScreen()
            say("legacy: the home screen was opened once, at the end")
        }
        let report = try pair.check()
        if refusedCalls > 0 { say("\(refusedCalls) recording call(s) refused while the watch was down: nothing recorded, nothing expected") }
        if let note = report.indeterminateSummary { say(note) }
        for line in report.violations { say(line) }
        say("\(options.iterations) iterations, \(kills) kills, " + report.summary)
        return report.isClean ? 0 : 1
    }
}
