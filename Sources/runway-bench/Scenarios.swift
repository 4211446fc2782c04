import Connectivity
import Control
import Foundation
import JSONText
import PairTesting
import RunWayApp
import PropertyLists
import Storage

/// The figures `scripts/bench` reports, each measured on real processes in fresh homes.
struct Scenarios {
    let count: Int
    let runs: Int
    /// Where the latency rows' homes go: the measured pair's and the draining pair's (`--latency-dir`,
    /// `--load-dir`), so that each can be put on a file system of its own.
    var latencyDirectory = "/tmp"
    var loadDirectory = "/tmp"

    func client(_ home: String, _ role: DeviceRole) throws -> ControlClient {
        try ControlClient(home: DeviceHome(path: home, role: role))
    }

    /// Records `count` runs on the watch through its control socket, in slices (one outbox
    /// transaction each) so the reply stays small; their ids join the pair's history (`check`).
    func record(_ pair: SimulatedPair, _ count: Int) throws {
        let watch = try client(pair.watchHome, .watch)
        var left = count
        while left > 0 {
            let slice = min(left, 20_000)
            pair.noteRecorded(try watch.send(ControlCommands.Record { $0.count = slice }).ids)
            left -= slice
        }
    }

    /// Once a pair's outbox is empty, the invariant checker on it: every id stored once, in order, the
    /// stores intact. A latency run moves flights too.
    func checkDrained(_ pair: SimulatedPair, _ name: String) throws {
        try pair.waitUntilDrained()
        let violations = try pair.check().violations
        guard violations.isEmpty else { throw HarnessError("the checker found, on the \(name) pair: \(violations.prefix(5).joined(separator: "; "))") }
    }

    func outstanding(_ watch: ControlClient) throws -> Int {
        Int(try watch.send(ControlCommands.Status()).outstandingUserInfoTransfers)
    }

    /// The mean encoded size of a generated flight's userInfo: the baseline moves records of this size.
    func payloadBytes() -> Int {
        var generator = FlightGenerator(seed: 1)
        let flights = generator.flights(count: 1000, distanceKm: nil, now: 1.8e9)
        return flights.reduce(0) { $0 + PropertyListCodec.encode($1.userInfo).count } / flights.count
    }

    // MARK: - Drain

    struct DrainResult {
        var seconds: Double
        var phonePeakKB: Int
        var watchPeakKB: Int
    }

    /// A backlog of `backlog` recorded with the phone down, then the phone started: seconds from its
    /// process start until the watch's outbox is empty.
    func drain(backlog: Int, keep: ((SimulatedPair) throws -> Void)? = nil) throws -> DrainResult {
        let pair = try SimulatedPair(tag: "bench")
        defer { pair.cleanUp() }
        try pair.startWatch()
        try record(pair, backlog)
        let watch = try client(pair.watchHome, .watch)
        let start = now()
        try pair.startPhone()
        while try outstanding(watch) > 0 { usleep(2000) }
        let seconds = now() - start
        let result = DrainResult(
            seconds: seconds, phonePeakKB: peakRSSKilobytes(pair.phone!.pid) ?? -1,
            watchPeakKB: peakRSSKilobytes(pair.watch!.pid) ?? -1)
        try keep?(pair)
        return result
    }

    // MARK: - A long recording

    /// `runway watch record --count N` through the real CLI (chunks of 10,000, each one outbox transaction),
    /// with the phone down: the runs per second, and the watch's peak RSS (`VmHWM`) at the end, and at
    /// the end of the first chunk — memory should not grow with N.
    func recordMemory(count: Int) throws -> (runsPerSecond: Double, watchPeakKB: Int, afterFirstChunkKB: Int) {
        let pair = try SimulatedPair(tag: "benchrec")
        defer { pair.cleanUp() }
        try pair.startWatch()
        let first = try runTool(["watch", "record", "--count", "10000", "--home", pair.watchHome])
        guard first.status == 0 else { throw HarnessError("runway watch record failed: \(first.stderr)") }
        let afterFirst = peakRSSKilobytes(pair.watch!.pid) ?? -1
        let start = now()
        let result = try runTool(["watch", "record", "--count", String(count), "--home", pair.watchHome])
        let seconds = now() - start
        guard result.status == 0 else { throw HarnessError("runway watch record --count \(count) failed: \(result.stderr)") }
        return (Double(count) / seconds, peakRSSKilobytes(pair.watch!.pid) ?? -1, afterFirst)
    }

    func baseline(size: Int) throws -> Double {
        let scratch = makeScratchDirectory("base")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let result = try runTool(["--count", String(count), "--size", String(size), "--dir", scratch], binary: "bench-baseline")
        guard result.status == 0, let rate = result.stdout.split(separator: " ").first(where: { $0.hasPrefix("rate=") })
        else { throw HarnessError("bench-baseline failed: \(result.stderr)") }
        return Double(rate.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
    }

    // MARK: - Latency

    /// From `record --count 1` returning to the flight being stored on the phone (its `flightSaved`
    /// event reaching an attached UI client), `samples` times, the phone running.
    func latency(samples: Int) throws -> Sample {
        let pair = try SimulatedPair(tag: "lat", in: latencyDirectory)
        defer { pair.cleanUp() }
        progress("latency: the measured pair's homes in \(pair.root)")
        let probe = try LatencyProbe(self, pair)
        var sample = Sample()
        for _ in 0..<samples { sample.add(try probe.measure()) }
        try checkDrained(pair, "measured")
        return sample
    }

    /// The same single-flight latency on one pair while another pair on the host drains `backlog`
    /// (recorded with its phone down, then its phone started): samples are taken from the busy phone's
    /// start until its watch's outbox is empty, one after another. Returns them and the drain's seconds.
    func latencyUnderLoad(backlog: Int) throws -> (sample: Sample, drainSeconds: Double) {
        let busy = try SimulatedPair(tag: "load", in: loadDirectory)
        defer { busy.cleanUp() }
        progress("latency: the draining pair's homes in \(busy.root)")
        try busy.startWatch()
        try record(busy, backlog)
        let busyWatch = try client(busy.watchHome, .watch)
        let pair = try SimulatedPair(tag: "lat", in: latencyDirectory)
        defer { pair.cleanUp() }
        progress("latency: the measured pair's homes in \(pair.root)")
        let probe = try LatencyProbe(self, pair)
        var sample = Sample()
        let start = now()
        try busy.startPhone()
        while try outstanding(busyWatch) > 0 { sample.add(try probe.measure()) }
        let seconds = now() - start
        try checkDrained(busy, "draining")
        try checkDrained(pair, "measured")
        return (sample, seconds)
    }

    /// A running pair with a UI client attached to its phone: one flight recorded, the milliseconds
    /// until its `flightSaved` event arrives. Ten flights are measured and dropped first (warm-up).
    struct LatencyProbe {
        let pair: SimulatedPair
        let watch: ControlClient
        let ui: ControlClient

        init(_ scenarios: Scenarios, _ pair: SimulatedPair) throws {
            self.pair = pair
            try pair.startWatch()
            try pair.startPhone()
            watch = try scenarios.client(pair.watchHome, .watch)
            ui = try scenarios.client(pair.phoneHome, .phone)
            _ = try ui.send(ControlCommands.Attach())
            for _ in 0..<10 { _ = try measure() }
        }

        func measure() throws -> Double {
            let ids = try watch.send(ControlCommands.Record()).ids
            let returned = now()
            pair.noteRecorded(ids)
            guard let id = ids.first else { throw HarnessError("record returned no id") }
            while let event = try ui.nextEvent() {
                if event["flight"]?["id"]?.stringValue == id { break }
            }
            return (now() - returned) * 1000
        }
    }

    // MARK: - Cold start

    struct ColdStart {
        var clean = Sample(), killed = Sample(), check = Sample(), appCheck = Sample(), firstAck = Sample()
    }

    /// Process start to `ready` with `stored` flights in the phone's store: after a clean stop (SIGTERM:
    /// the store is sealed, so the full check is skipped) and after a SIGKILL (no seal: the full
    /// `quick_check` of the WatchConnectivity service's store is owed, and runs in the background once the
    /// phone is ready — `check` is how long it took there, from the phone's `store.checked` line). That
    /// store holds the queues; the flights are in the app's own store, which nobody checks at start-up
    /// (the app's, as on iOS): `appCheck` is what a `quick_check` of it takes, on a read-only connection
    /// of its own while the phone runs, as the background check reads. With `firstAck`, also SIGKILL in
    /// the middle of a drain → relaunch → the watch's next acknowledgement.
    func coldStart(stored: Int, firstAck measureFirstAck: Bool) throws -> ColdStart {
        var result = ColdStart()
        let pair = try SimulatedPair(tag: "cold")
        defer { pair.cleanUp() }
        try pair.startWatch()
        try pair.startPhone()
        let watch = try client(pair.watchHome, .watch)
        var left = stored
        while left > 0 {
            let slice = min(left, 50_000)
            try record(pair, slice)
            while try outstanding(watch) > 0 { usleep(5000) }
            left -= slice
        }
        for _ in 0..<runs {
            pair.phone!.stop()
            let start = now()
            try pair.startPhone()
            result.clean.add((now() - start) * 1000)
            if !logTail(pair.phoneLog).contains("event=startup.store-trusted") {
                // A build without the seal (RUNWAY_BIN_DIR pointing at an older one) checks every time.
                progress("note: the phone ran the full check after a clean stop")
            }
        }
        for _ in 0..<runs {
            let checksBefore = checkLines(pair.phoneLog).count
            pair.killPhone()
            let start = now()
            try pair.startPhone()
            result.killed.add((now() - start) * 1000)
            // The owed check, in the background (a build that checks before `ready` logs no such line).
            let deadline = now() + 120
            while checkLines(pair.phoneLog).count <= checksBefore && now() < deadline { usleep(5000) }
            if let line = checkLines(pair.phoneLog).dropFirst(checksBefore).first,
                let ms = line.split(separator: " ").first(where: { $0.hasPrefix("ms=") }).flatMap({ Double($0.dropFirst(3)) })
            {
                result.check.add(ms)
            }
        }
        for _ in 0..<runs {
            let start = now()
            let database = try Database(path: pair.phoneAppStore, readOnly: true)
            guard try database.check() == nil else { throw HarnessError("the app's store failed quick_check") }
            database.close()
            result.appCheck.add((now() - start) * 1000)
        }
        guard measureFirstAck else { return result }
        // SIGKILL mid-transfer, relaunch, first acknowledgement seen by the watch.
        for _ in 0..<runs {
            try record(pair, 3000)
            while try outstanding(watch) > 2000 { usleep(500) }
            pair.killPhone()
            // A drain quicker than this loop's polling may have finished before the kill: then no
            // acknowledgement is owed after the relaunch, and there is nothing to measure.
            guard try outstanding(watch) > 0 else {
                try pair.startPhone()
                continue
            }
            let acked = try watch.send(ControlCommands.Status()).outbox.lastAcknowledgedTransfer
            let start = now()
            try pair.startPhone()
            while try watch.send(ControlCommands.Status()).outbox.lastAcknowledgedTransfer <= acked {
                usleep(200)
            }
            result.firstAck.add((now() - start) * 1000)
            while try outstanding(watch) > 0 { usleep(5000) }
        }
        return result
    }

    /// The phone's `store.checked` lines: each a full check that passed, with its `ms`.
    func checkLines(_ path: String) -> [Substring] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("event=store.checked ") }
    }

    func logTail(_ path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return String(text.suffix(4000))
    }

    // MARK: - Scale

    /// `runway phone logbook --json` with `stored` flights in the logbook.
    func logbook(stored: Int) throws -> Sample {
        var sample = Sample()
        _ = try drain(backlog: stored) { pair in
            for _ in 0..<runs {
                // Only the command's own run: its output goes to /dev/null, not through the harness.
                let process = Process()
                process.executableURL = URL(fileURLWithPath: Binaries.path("runway"))
                process.arguments = ["phone", "logbook", "--home", pair.phoneHome, "--json"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let start = now()
                try process.run()
                process.waitUntilExit()
                let seconds = now() - start
                guard process.terminationStatus == 0 else { throw HarnessError("logbook failed") }
                sample.add(seconds * 1000)
            }
        }
        return sample
    }
}
