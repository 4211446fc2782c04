import Control
import Foundation
import Posix
import PairTesting

/// Many pairs on one host (`--pairs N`): what a CI farm running a simulator per job can plan on.
struct ManyPairs {
    let scenarios: Scenarios
    let count: Int
    /// Runs each pair records (link down), then drains when every link comes back up at once.
    let runsPerPair = 10

    struct Result {
        var readySeconds: Double
        var drainSeconds: Double
        var stopSeconds: Double
        var phonePSS = Sample()
        var watchPSS = Sample()
        var totalPSSKilobytes = 0
        var checkedFlights = 0
    }

    /// Pairs `count` fresh homes (not timed), starts every phone-daemon and watch-agent at once and
    /// waits for each one's `ready` (timed); takes every link down, records `runsPerPair` on each watch,
    /// brings every link up and times until every outbox is empty; checks every pair with the invariant
    /// checker (each id stored once, in order, stores intact); reads each idle daemon's PSS (4.5 s after
    /// the last request: an idle daemon gives its cached pages back); stops them
    /// all with SIGTERM (timed: each must exit 0).
    func run() throws -> Result {
        raiseDescriptorLimit(to: 8 * count + 256)
        noteInotifyLimit(wanted: 3 * count)
        progress("pairs: pairing \(count) fresh homes")
        let pairs = try (0..<count).map { _ in try SimulatedPair(tag: "many") }
        defer { for pair in pairs { pair.cleanUp() } }
        var daemons: [ChildProcess] = []
        defer { for daemon in daemons { daemon.kill() } }
        progress("pairs: starting \(2 * count) daemons at once")
        let started = now()
        for pair in pairs {
            daemons.append(try start("watch-agent", pair.watchHome, pair.watchLog))
            daemons.append(try start("phone-daemon", pair.phoneHome, pair.phoneLog))
        }
        progress("pairs: all \(2 * count) started in \(format(now() - started, 2)) s, waiting for each to be ready")
        for daemon in daemons { try daemon.waitForLine("ready", timeout: 600) }
        let ready = now() - started

        progress("pairs: recording \(runsPerPair) runs on each watch with its link down")
        let watches = try pairs.map { try scenarios.client($0.watchHome, .watch) }
        for (pair, watch) in zip(pairs, watches) {
            try setLink(watch, up: false)
            let reply = try watch.send(
                ControlCommands.Record { $0.count = runsPerPair })
            pair.noteRecorded(reply.ids)
        }
        progress("pairs: every link up, draining")
        let drainStart = now()
        for watch in watches { try setLink(watch, up: true) }
        var waiting = Array(watches.indices)
        while !waiting.isEmpty {
            waiting = try waiting.filter { try scenarios.outstanding(watches[$0]) > 0 }
            if !waiting.isEmpty { usleep(5000) }
        }
        let drain = now() - drainStart

        progress("pairs: checking every pair")
        var violations: [String] = []
        for (index, pair) in pairs.enumerated() {
            violations += try pair.check().violations.map { "pair \(index): \($0)" }
        }
        guard violations.isEmpty else { throw HarnessError("the checker found: \(violations.prefix(5).joined(separator: "; "))") }

        // Idle: the last acknowledgements and checkpoints settle, and each daemon has been quiet long enough
        // to give back its stores' cached pages (`WhenIdle` in `DaemonRuntime`: two of its two-second ticks at most).
        progress("pairs: letting them go idle")
        usleep(4_500_000)
        var result = Result(readySeconds: ready, drainSeconds: drain, stopSeconds: 0)
        result.checkedFlights = pairs.count * runsPerPair
        for (index, daemon) in daemons.enumerated() {
            guard let pss = proportionalSetSizeKilobytes(daemon.pid) else { continue }
            if index % 2 == 0 { result.watchPSS.add(Double(pss)) } else { result.phonePSS.add(Double(pss)) }
            result.totalPSSKilobytes += pss
        }
        progress("pairs: stopping them all")
        let stopStart = now()
        for daemon in daemons { daemon.signal(SIGTERM) }
        let failed = daemons.filter { $0.wait() != 0 }
        result.stopSeconds = now() - stopStart
        guard failed.isEmpty else { throw HarnessError("\(failed.count) daemons did not exit 0 on SIGTERM") }
        return result
    }

    func start(_ binary: String, _ home: String, _ log: String) throws -> ChildProcess {
        try ChildProcess(
            binary, ["--home", home], stdout: .pipe, stderr: .file(log, append: true),
            environment: DaemonProcess.environment(SimulatedPair.neutralLanguageEnvironment), removing: ["RUNWAY_CRASH_AT"])
    }

    func setLink(_ watch: ControlClient, up: Bool) throws {
        _ = try watch.send(ControlCommands.Link { $0.state = up ? "up" : "down" })
    }
}

/// A process's proportional set size: its private pages plus its share of the pages it shares (the
/// binary's text, libraries), in kB — what N of them add up to.
func proportionalSetSizeKilobytes(_ pid: Int32) -> Int? { Processes.memory(of: pid)?.proportional }

/// Each daemon watches its home with an inotify instance, and a watch its phone's home while the phone
/// is away; past the user's limit (`fs.inotify.max_user_instances`, 128 by default, shared with every
/// other process of the user) a daemon audits its home once a second instead and a watch finds its
/// phone by its reconnect backoff. The run still holds; this says so, with the knob (a system setting,
/// not the bench's to change).
func noteInotifyLimit(wanted: Int) {
    guard let limit = Processes.directoryWatcherLimit(), limit < wanted else { return }
    progress(
        "note: fs.inotify.max_user_instances is \(limit), \(wanted) wanted: most daemons will audit their homes once a second and watches reconnect by backoff (sysctl fs.inotify.max_user_instances=\(wanted) to avoid it)"
    )
}

/// Raises the soft limit on open descriptors towards `wanted` (at most the hard limit): each daemon
/// started holds its stdout pipe here, each watch a control connection.
func raiseDescriptorLimit(to wanted: Int) {
    do {
        let limit = try Processes.raiseOpenFileLimit(to: wanted)
        if limit < wanted { progress("note: the open-file limit is \(limit); \(wanted) wanted") }
    } catch {
        progress("note: could not raise the open-file limit: errno \(error.errno)")
    }
}
