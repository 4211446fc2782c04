// scripts/bench: how fast the pair moves and stores flights, against a baseline run in the same
// invocation, on this machine. Prints a table and writes it into docs/performance.md.
import Foundation
import PairTesting

var count = 50_000, runs = 3, drainRuns = 5, memoryBacklog = 100_000, logbookSize = 100_000, latencySamples = 200
var recordCount = 300_000, loadBacklog = 50_000, loadRuns = 3, pairCount = 20
var output: String? = "docs/performance.md"
var coldStartSizes = [50_000, 300_000]
var onlyColdStart = false, onlyDrain = false, onlyPairs = false, onlyMemory = false, onlyLatency = false, onlyIdleOS = false
var idleOSPairs = 200, handshakeCount = 0
var latencyDirectory = "/tmp", loadDirectory = "/tmp"
var arguments = CommandLine.arguments.dropFirst()
func usage() -> Never {
    print(
        """
        usage: scripts/bench [--count N] [--drain-runs R] [--runs R] [--memory-backlog N] [--logbook N]
                             [--latency-samples N] [--load N] [--load-runs R] [--load-dir DIR] [--latency-dir DIR]
                             [--record N] [--cold-start N,N...] [--pairs N] [--idle-os-pairs N]
                             [--only-cold-start | --only-drain | --only-latency | --only-memory | --only-pairs
                              | --only-idle-os | --only-handshakes N]
                             [--no-write]

        Measures, on release builds: the drain of a backlog of N flights (default 50,000) against a
        baseline program moving records of the same size over a Unix socket into SQLite (WAL, FULL,
        group commit, one ack per batch), alternately, --drain-runs R times each (default 5): best
        against best and median against median; record-to-stored latency on an idle host, and while
        another pair drains --load N (default 50,000; --load-runs R such drains, default 3, their
        flights pooled), each pair's homes in /tmp unless --latency-dir or --load-dir puts them
        elsewhere (a tmpfs: whose disk is the tail); cold start with each of the --cold-start store
        sizes (default 50000,300000), after a clean stop and after a SIGKILL; peak RSS while draining;
        the watch's peak RSS recording --record N runs (default 300,000) with runway watch record;
        logbook --json time; --pairs N pairs (default 20) started at once, 10 runs each drained at once
        and checked, PSS per idle daemon; --idle-os-pairs N pairs at rest as runway up leaves them
        (default 200: phone-os and watch-os, no app) started at once, their PSS and private dirty
        pages, and what one phone-os's private pages are. Other figures are medians of --runs R (default 3) with
        min–max. --only-cold-start, --only-drain, --only-latency (idle and under --load), --only-memory
        (peak RSS draining --memory-backlog), --only-pairs and --only-idle-os measure that alone (and
        write nothing):
        `--only-pairs --pairs 1000` is the thousand-pair run. --only-handshakes N times N handshakes in a
        row against one phone-daemon (a reconnect storm; docs/performance.md, "The handshake's proof").
        Writes the table into docs/performance.md, and a line to its history, unless --no-write.
        """)
    exit(0)
}
while let flag = arguments.popFirst() {
    func value() -> Int {
        guard let text = arguments.popFirst(), let number = Int(text), number > 0 else {
            FileHandle.standardError.write("bench: \(flag) needs a positive number\n".data(using: .utf8)!)
            exit(2)
        }
        return number
    }
    /// An existing, writable directory with a short path: the daemons' socket paths under it must fit
    /// in 107 bytes.
    func directory() -> String {
        guard let text = arguments.popFirst(), !text.isEmpty else {
            FileHandle.standardError.write("bench: \(flag) needs a directory\n".data(using: .utf8)!)
            exit(2)
        }
        let path = text.count > 1 && text.hasSuffix("/") ? String(text.dropLast()) : text
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue, access(path, W_OK) == 0 else {
            FileHandle.standardError.write("bench: \(flag) \(text): not a directory this user can write to\n".data(using: .utf8)!)
            exit(2)
        }
        guard path.utf8.count <= 40 else {
            FileHandle.standardError.write("bench: \(flag) \(text): longer than 40 bytes (the daemons' socket paths must fit in 107)\n".data(using: .utf8)!)
            exit(2)
        }
        return path
    }
    switch flag {
    case "--count": count = value()
    case "--runs": runs = value()
    case "--drain-runs": drainRuns = value()
    case "--load": loadBacklog = value()
    case "--load-runs": loadRuns = value()
    case "--pairs": pairCount = value()
    case "--only-drain": onlyDrain = true; output = nil
    case "--only-pairs": onlyPairs = true; output = nil
    case "--only-idle-os": onlyIdleOS = true; output = nil
    case "--idle-os-pairs": idleOSPairs = value()
    case "--only-memory": onlyMemory = true; output = nil
    case "--only-latency": onlyLatency = true; output = nil
    case "--memory-backlog": memoryBacklog = value()
    case "--logbook": logbookSize = value()
    case "--latency-samples": latencySamples = value()
    case "--record": recordCount = value()
    case "--no-write": output = nil
    case "--only-cold-start": onlyColdStart = true; output = nil
    case "--only-handshakes": handshakeCount = value(); output = nil
    case "--cold-start":
        guard let text = arguments.popFirst(), case let sizes = text.split(separator: ",").compactMap({ Int($0) }),
            !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 })
        else {
            FileHandle.standardError.write("bench: --cold-start needs sizes such as 50000,300000\n".data(using: .utf8)!)
            exit(2)
        }
        coldStartSizes = sizes
    case "--load-dir": loadDirectory = directory()
    case "--latency-dir": latencyDirectory = directory()
    case "--help", "-h": usage()
    default:
        FileHandle.standardError.write("bench: unknown option \(flag)\n".data(using: .utf8)!)
        exit(2)
    }
}

if handshakeCount > 0 {
    do {
        let storm = try HandshakeStorm(count: handshakeCount).run()
        func line(_ what: String, _ sample: Sample) {
            print("\(what): median \(format(sample.median, 3)) ms, p90 \(format(sample.percentile(90), 3)) ms, p99 \(format(sample.percentile(99), 3)) ms")
        }
        print("\(handshakeCount) handshakes in a row, \(storm.proved ? "with the pairing's proof" : "a phone from before the secret: no proof")")
        line(storm.proved ? "connect → welcome and the phone's proof" : "connect → welcome", storm.toWelcome)
        if storm.proved { line("the watch's half (secret read, proof checked, answer made)", storm.watchSide) }
        line("connect → the first reply on the link", storm.toReply)
        exit(0)
    } catch {
        FileHandle.standardError.write("bench: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}
if [onlyColdStart, onlyDrain, onlyLatency, onlyMemory, onlyPairs, onlyIdleOS].filter({ $0 }).count > 1 {
    FileHandle.standardError.write(
        "bench: --only-cold-start, --only-drain, --only-latency, --only-memory, --only-pairs and --only-idle-os exclude each other\n".data(using: .utf8)!)
    exit(2)
}
var scenarios = Scenarios(count: count, runs: runs)
scenarios.latencyDirectory = latencyDirectory
scenarios.loadDirectory = loadDirectory
/// The phone's and the watch's peak RSS (`VmHWM`) while a backlog of `backlog` drains.
func drainMemoryRows(_ memory: Scenarios.DrainResult, backlog: Int) -> [Row] {
    [("phone", memory.phonePeakKB), ("watch", memory.watchPeakKB)].map { side, peakKB in
        (
            "peak RSS, \(side), draining \(grouped(Double(backlog)))", "\(format(Double(peakKB) / 1024, 1)) MB", "", "≤ 50 MB",
            peakKB <= 50 * 1024 ? "met" : "missed"
        )
    }
}

do {
    var rows: [Row] = []
    var headline: [String] = []
    var coldRows: [Row] = []
    var firstAckRows: [Row] = []
    var firstKilled: (stored: Int, median: Double)?
    for stored in coldStartSizes where !onlyDrain && !onlyPairs && !onlyMemory && !onlyLatency && !onlyIdleOS {
        progress("cold start: \(stored) stored")
        let cold = try scenarios.coldStart(stored: stored, firstAck: !onlyColdStart)
        coldRows.append(
            (
                "cold start after a clean stop: process start → ready (\(grouped(Double(stored))) stored)",
                format(cold.clean.median, 1) + " ms", range(cold.clean, 1), "≤ 100 ms", cold.clean.median <= 100 ? "met" : "missed"
            ))
        // Start-up after a crash must not grow with the store: each size within 2× of the first one.
        let (target, verdict): (String, String) =
            if let first = firstKilled {
                ("≤ 2× the \(grouped(Double(first.stored))) figure", cold.killed.median <= 2 * first.median ? "met" : "missed")
            } else { ("", "") }
        if firstKilled == nil { firstKilled = (stored, cold.killed.median) }
        headline.append("cold start after SIGKILL \(format(cold.killed.median, 1)) ms at \(grouped(Double(stored)))")
        coldRows.append(
            (
                "cold start after SIGKILL: process start → ready (\(grouped(Double(stored))) stored)",
                format(cold.killed.median, 1) + " ms", range(cold.killed, 1), target, verdict
            ))
        if !cold.check.values.isEmpty {
            coldRows.append(
                (
                    "the check owed after SIGKILL, in the background once ready: the WatchConnectivity service's store (quick_check; it holds the queues, not the \(grouped(Double(stored))) flights)",
                    format(cold.check.median, 1) + " ms", range(cold.check, 1), "", ""
                ))
        }
        coldRows.append(
            (
                "quick_check of the app's store, \(grouped(Double(stored))) flights (never owed at start-up: the app's store is the app's)",
                format(cold.appCheck.median, 1) + " ms", range(cold.appCheck, 1), "", ""
            ))
        if !cold.firstAck.values.isEmpty {
            firstAckRows.append(
                (
                    "SIGKILL → relaunch → first acknowledgement (\(grouped(Double(stored))) stored)", format(cold.firstAck.median, 1) + " ms",
                    range(cold.firstAck, 1), "", ""
                ))
        }
    }
    if onlyColdStart {
        rows = coldRows
    } else if onlyDrain {
        rows = try drainRows(scenarios, runs: drainRuns, size: scenarios.payloadBytes(), headline: &headline)
    } else if onlyPairs {
        rows = try pairRows(scenarios, count: pairCount, headline: &headline)
    } else if onlyIdleOS {
        rows = try idleOSRows(count: idleOSPairs, headline: &headline)
    } else if onlyLatency {
        rows = try latencyRows(scenarios, samples: latencySamples, load: loadBacklog, loadRuns: loadRuns, headline: &headline)
    } else if onlyMemory {
        progress("memory: draining \(memoryBacklog)")
        rows = drainMemoryRows(try scenarios.drain(backlog: memoryBacklog), backlog: memoryBacklog)
    } else {
        let size = scenarios.payloadBytes()
        progress("flights are \(size) bytes encoded on average")
        let drain = try drainRows(scenarios, runs: drainRuns, size: size, headline: &headline)
        let latency = try latencyRows(scenarios, samples: latencySamples, load: loadBacklog, loadRuns: loadRuns, headline: &headline)
        progress("memory: draining \(memoryBacklog)")
        let memory = try scenarios.drain(backlog: memoryBacklog)
        progress("recording: runway watch record --count \(recordCount)")
        let recording = try scenarios.recordMemory(count: recordCount)
        progress("logbook of \(logbookSize)")
        let logbook = try scenarios.logbook(stored: logbookSize)
        let pairs = try pairRows(scenarios, count: pairCount, headline: &headline)
        let idle = try idleOSRows(count: idleOSPairs, headline: &headline)
        rows =
            drain + latency + coldRows + firstAckRows + drainMemoryRows(memory, backlog: memoryBacklog) + [
                ("runway watch record --count \(grouped(Double(recordCount))): rate", "\(grouped(recording.runsPerSecond)) runs/s", "", "", ""),
                (
                    "peak RSS, watch, recording \(grouped(Double(recordCount))) (after the first 10,000: \(format(Double(recording.afterFirstChunkKB) / 1024, 1)) MB)",
                    "\(format(Double(recording.watchPeakKB) / 1024, 1)) MB", "", "< 50 MB", recording.watchPeakKB < 50 * 1024 ? "met" : "missed"
                ),
                (
                    "logbook --json, \(grouped(Double(logbookSize))) flights", format(logbook.median, 0) + " ms", range(logbook, 0),
                    "≤ 1000 ms", logbook.median <= 1000 ? "met" : "missed"
                ),
            ] + pairs + idle
    }
    var table = "| figure | median | min–max | target | |\n|---|---|---|---|---|\n"
    for row in rows { table += "| \(row.0) | \(row.1) | \(row.2) | \(row.3) | \(row.4) |\n" }
    print(table)

    if let output {
        let machine = """
            - command: `scripts/bench\(CommandLine.arguments.dropFirst().map { " " + $0 }.joined())` (\(ProcessInfo.processInfo.environment["RUNWAY_BENCH_BUILD"] ?? "release build")), \(shell("date -u +%Y-%m-%dT%H:%MZ"))
            - machine: \(shell("nproc")) × \(shell("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")), \(shell("free -g | awk '/Mem:/ {print $2}'")) GiB, \(shell("uname -sr")), \(shell("df -hT /tmp | awk 'NR==2 {print $2}'")) /tmp
            - toolchain: \(shell("swift --version 2>&1 | head -1")); SQLite \(shell("sqlite3 --version | cut -d' ' -f1"))
            - flights: \(scenarios.payloadBytes()) bytes encoded on average (a userInfo dictionary, samples packed in one data value);
              drain and baseline alternately, \(drainRuns) runs each; other figures medians of \(runs) runs; latency over \(latencySamples) flights
            """
        let generated = "<!-- bench:begin (written by scripts/bench) -->\n\(machine)\n\n\(table)<!-- bench:end -->"
        var document = (try? String(contentsOfFile: output, encoding: .utf8)) ?? "# Performance\n\n<!-- bench:begin --><!-- bench:end -->\n"
        if let begin = document.range(of: "<!-- bench:begin"), let end = document.range(of: "<!-- bench:end -->") {
            document.replaceSubrange(begin.lowerBound..<end.upperBound, with: generated)
        } else {
            document += "\n" + generated + "\n"
        }
        let commit = shell("git rev-parse --short HEAD 2>/dev/null")
        appendHistory(&document, "\(shell("date -u +%Y-%m-%dT%H:%MZ")) `\(commit.isEmpty ? "unknown" : commit)`: " + headline.joined(separator: "; "))
        try document.write(toFile: output, atomically: true, encoding: .utf8)
        progress("wrote \(output)")
    }
} catch {
    FileHandle.standardError.write("bench: \(error)\n".data(using: .utf8)!)
    exit(1)
}
