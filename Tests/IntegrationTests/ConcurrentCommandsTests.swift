import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Commands that write shared state, run at once as two users' shells would: the pair registry
/// (`runway pair`, `unpair`) and a pair's daemons (`runway up`). Through the real CLI, many processes
/// started together, over several rounds.
@Suite(.serialized) struct ConcurrentCommandsTests {
    func names(_ state: String) throws -> Set<String> {
        let result = try runTool(["list", "--json"], environment: ["RUNWAY_STATE_DIR": state])
        #expect(result.status == 0, "\(result.stderr)")
        return Set((try JSONValue(parsing: result.stdout).arrayValue ?? []).compactMap { $0["name"]?.stringValue })
    }

    /// Starts one `runway` per argument list at once, against the registry in `state`; waits for all.
    func together(_ calls: [[String]], state: String) throws -> [CommandResult] {
        let tools = try calls.map { try RunningTool($0, environment: ["RUNWAY_STATE_DIR": state]) }
        return tools.map { $0.wait() }
    }

    /// 8 or 2 `runway pair` at once, each of its own two homes: every call exit 0 and every pair
    /// remembered, round after round (names asked for, and names given: `default`, `pair2`, …, each once).
    /// Then 8 `runway unpair` at once: all forgotten, none left behind. Before the registry had a lock,
    /// each call read the registry, added its pair and wrote it back over the others': every call said 0
    /// and one pair was remembered (10 rounds of 10).
    @Test func pairsMadeAndForgottenAtOnceAreAllKept() throws {
        let scratch = makeScratchDirectory("cpair")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let state = scratch + "/state"
        var expected: Set<String> = []
        for round in 0..<6 {
            let count = round % 2 == 0 ? 8 : 2
            let named = round < 5
            let calls = (0..<count).map { index in
                ["pair", "--phone", "\(scratch)/p\(round)-\(index)", "--watch", "\(scratch)/w\(round)-\(index)", "--json"]
                    + (named ? ["--name", "r\(round)n\(index)"] : [])
            }
            let results = try together(calls, state: state)
            for result in results { #expect(result.status == 0, "\(result.stderr)") }
            let given = results.compactMap { try? JSONValue(parsing: $0.stdout)["name"]?.stringValue }
            #expect(Set(given).count == count, "each pair under a name of its own: \(given)")
            expected.formUnion(given)
            #expect(try names(state) == expected, "round \(round): \(count) pairs at once")
        }
        let forgotten = (0..<8).map { "r0n\($0)" }
        let results = try together(forgotten.map { ["unpair", $0] }, state: state)
        for result in results { #expect(result.status == 0, "\(result.stderr)") }
        #expect(try names(state) == expected.subtracting(forgotten))
    }

    /// 4 `runway up` of one pair at once, 8 rounds, `runway down` between: every call exit 0; for each
    /// device exactly one says it started the daemon, and all four report that daemon's pid, which runs
    /// and answers. Before, every `up` truncated and read the same HOME/daemon.out: one took another's
    /// `ready` (or missed its own), said "started" for a daemon that had exited, and on its time-out
    /// SIGKILLed the daemon that had won the home — in 5 of 19 rounds no phone-os was left running.
    @Test func upsOfOnePairAtOnceStartExactlyOneOfEach() throws {
        try withPair(tag: "cup") { pair in
            let state = pair.root + "/state"
            let paired = try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--name", "duo"], environment: ["RUNWAY_STATE_DIR": state])
            #expect(paired.status == 0, "\(paired.stderr)")
            defer { _ = try? runTool(["down", "duo"], environment: ["RUNWAY_STATE_DIR": state]) }
            for round in 0..<8 {
                let results = try together(Array(repeating: ["up", "duo", "--json"], count: 4), state: state)
                for result in results { #expect(result.status == 0, "round \(round): \(result.stderr)") }
                let replies = results.compactMap { try? JSONValue(parsing: $0.stdout) }
                #expect(replies.count == 4)
                for device in ["phone", "watch"] {
                    let states = replies.map { $0[device]?["state"]?.stringValue ?? "?" }
                    #expect(states.filter { $0 == "started" }.count == 1, "round \(round), \(device): \(states)")
                    #expect(states.filter { $0 == "already running" }.count == 3, "round \(round), \(device): \(states)")
                    let pids = Set(replies.compactMap { $0[device]?["pid"]?.intValue })
                    #expect(pids.count == 1, "round \(round), \(device): every up names the one daemon: \(pids)")
                    if let pid = pids.first { #expect(kill(pid_t(pid), 0) == 0, "round \(round), \(device): it runs") }
                }
                #expect(try runTool(["phone", "os", "status", "--home", pair.phoneHome]).status == 0, "round \(round): phone-os answers")
                #expect(try runTool(["watch", "status", "--home", pair.watchHome]).status == 0, "round \(round): the watch answers")
                let down = try runTool(["down", "duo", "--json"], environment: ["RUNWAY_STATE_DIR": state])
                #expect(down.status == 0, "\(down.stderr)")
            }
        }
    }

    /// A daemon that cannot start (a regular file where its control socket goes) while another process
    /// writes to the same HOME/daemon.log the whole time: `up` reports the daemon's own reason, one line,
    /// exit 1 — never another process's last log line, which is what it quoted before.
    @Test func upReportsItsOwnDaemonsFailureNotAnotherProcesssLine() throws {
        try withPair(tag: "uperr") { pair in
            let state = pair.root + "/state"
            #expect(
                try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--name", "duo"], environment: ["RUNWAY_STATE_DIR": state]).status
                    == 0)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: pair.phoneHome + "/control.sock"))
            let noise = LogNoise(path: pair.phoneHome + "/daemon.log")
            let result = try runTool(["up", "duo", "--no-os"], environment: ["RUNWAY_STATE_DIR": state])
            noise.stop()
            #expect(noise.lines > 0, "the other process wrote meanwhile")
            #expect(result.status == 1)
            #expect(result.stderr.contains("is a regular file, not a socket"), "\(result.stderr)")
            #expect(!result.stderr.contains("someone-else"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: pair.phoneHome + "/up-notify.sock"), "nothing left behind")
        }
    }
}

/// Another process writing to a log the whole time: a line every half millisecond, on a thread.
final class LogNoise: @unchecked Sendable {
    private let lock = NSLock()
    private var stopping = false
    private var finished = false
    private var written = 0
    private let path: String

    init(path: String) {
        self.path = path
        if !FileManager.default.fileExists(atPath: path) { #expect(FileManager.default.createFile(atPath: path, contents: nil)) }
        Thread.detachNewThread { [self] in run() }
    }

    private func run() {
        if let handle = FileHandle(forWritingAtPath: path) {
            while !lock.withLock({ stopping }) {
                handle.seekToEndOfFile()
                handle.write(Data("ts=2026-01-01T00:00:00Z level=info component=someone-else event=noise\n".utf8))
                lock.withLock { written += 1 }
                usleep(500)
            }
            try? handle.close()
        }
        lock.withLock { finished = true }
    }

    var lines: Int { lock.withLock { written } }

    func stop() {
        lock.withLock { stopping = true }
        while !lock.withLock({ finished }) { usleep(1000) }
    }
}
