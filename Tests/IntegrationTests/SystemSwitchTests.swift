import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Issue 50, item 3: each way to switch the realistic system on, through the real binaries — `runway up
/// --system`, `DevicePair(system:)`, a scenario's `"system"` — shows the model in force (its deferrals in
/// `status` or the log) and nothing lost (the invariant checker); a value it cannot read is one line and
/// exit 2 from `runway up` and `runway scenario run`, with nothing started. (`DevicePair.System` is typed:
/// a bad value does not compile.)
@Suite(.serialized) struct SystemSwitchTests {
    /// Values no path may take: not a number, past 2^64−1, an unknown model, an unknown option.
    static let badValues = ["realistic:abc", "realistic:18446744073709551616", "bogus", "realistic:1:fast", "realistic:-3"]

    /// `system.deferred` lines in a log, by lane.
    static func deferred(_ log: String, lane: String) -> Int {
        logText(log).split(separator: "\n").filter { $0.contains("event=system.deferred ") && $0.contains(" lane=\(lane) ") }.count
    }

    @Test func runwayUpWithSystemRealisticDefersAndLosesNothing() throws {
        try withPair(tag: "sys-up") { pair in
            let state = ["RUNWAY_STATE_DIR": pair.root + "/state"]
            #expect(try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome], environment: state).status == 0)
            defer { _ = try? runTool(["down"], environment: state) }
            let up = try runTool(["up", "--no-os", "--system", "realistic:31"], environment: state)
            #expect(up.status == 0, "\(up.stderr)")
            _ = try pair.record(3)
            try pair.expectDrainedAndClean(stored: 3)
            let timing = try pair.status("watch")["systemTiming"]
            #expect(timing?["system"] == .string("realistic:31"), "\(String(describing: timing))")
            #expect(timing?["byReason"]?["background-transfer"] == .integer(3), "each transfer deferred: \(String(describing: timing))")
            #expect(try pair.status("phone")["systemTiming"]?["system"] == .string("realistic:31"), "both devices")
            #expect(try runTool(["down"], environment: state).status == 0)
            // Without a seed one is drawn, and said.
            let drawn = try runTool(["up", "--no-os", "--system", "realistic"], environment: state)
            #expect(drawn.status == 0, "\(drawn.stderr)")
            #expect((drawn.stdout + drawn.stderr).contains("realistic:"), "the seed drawn is said: \(drawn.stdout)\(drawn.stderr)")
        }
    }

    @Test func runwayUpRefusesABadSystemInOneLineAndStartsNothing() throws {
        try withPair(tag: "sys-upbad") { pair in
            let state = ["RUNWAY_STATE_DIR": pair.root + "/state"]
            #expect(try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome], environment: state).status == 0)
            defer { _ = try? runTool(["down"], environment: state) }
            for value in Self.badValues {
                let result = try runTool(["up", "--no-os", "--system", value], environment: state)
                #expect(result.status == 2, "\(value): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(value): \(result.stderr)")
                #expect(result.stderr.contains("immediate or realistic:SEED"), "\(value): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: pair.watchHome + "/control.sock"), "nothing started")
            #expect(!FileManager.default.fileExists(atPath: pair.phoneHome + "/control.sock"), "nothing started")
        }
    }

    @Test func devicePairWithSystemRealisticDefersAndLosesNothing() throws {
        let devices = try DevicePair(tag: "sys-dp", system: .realistic(seed: 8))
        defer { devices.stop() }
        let ids = try devices.record(3)
        try devices.waitUntilDelivered()
        try devices.pair.expectDrainedAndClean(stored: 3)
        let status = try JSONValue(parsing: try runTool(["watch", "status", "--home", devices.watchHome, "--json"]).stdout)
        #expect(status["systemTiming"]?["system"] == .string("realistic:8"), "\(status.text)")
        #expect(status["systemTiming"]?["byReason"]?["background-transfer"] == .integer(3), "\(status.text)")
        #expect(Self.deferred(devices.pair.watchLog, lane: "userInfo") == ids.count)
        // phone-os says the system in force too (it defers nothing of its own).
        let os = try devices.pair.phoneOSCall(["os", "status"])
        #expect(os["systemTiming"]?["system"] == .string("realistic:8"), "\(os.text)")
    }

    /// A scenario's `"system"`: the run passes its own invariant checks (`expect`: nothing lost or twice),
    /// and the kept watch log shows the model's deferrals, seed and all.
    @Test func aScenarioWithSystemRealisticDefersAndLosesNothing() throws {
        let directory = makeScratchDirectory("sys-scn")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/realistic.json"
        try #"""
        {"name": "realistic", "system": "realistic:13", "steps": [
          {"record": 3}, {"drain": {"timeout": "2m"}},
          {"expect": {"stored": "all", "lost": 0, "duplicated": 0, "outstanding": 0, "clean": true}}]}
        """#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runTool(["scenario", "run", file, "--keep", "--json"], environment: ["TMPDIR": directory])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let kept = result.stderr.split(separator: "\n").first { $0.contains("homes kept in ") }.map {
            String($0.components(separatedBy: "homes kept in ").last ?? "")
        }
        guard let root = kept else {
            Issue.record("no homes kept: \(result.stderr)")
            return
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let log = (try? String(contentsOfFile: root + "/watch/daemon.log", encoding: .utf8)) ?? ""
        #expect(log.contains("system=realistic:13"), "the watch ran under the scenario's system")
        let timing = SystemTiming.realistic(seed: 13)
        let delays = log.split(separator: "\n").filter { $0.contains("event=system.deferred ") && $0.contains(" lane=userInfo ") }
        #expect(delays.count == 3, "each run deferred once: \(delays)")
        for seq in Int64(1)...3 {
            #expect(
                delays.contains { $0.contains(" seq=\(seq) ") && $0.contains("delayMs=\(timing.transferDeferralMilliseconds(lane: "userInfo", seq: seq)) ") },
                "the model's delay for \(seq)")
        }
    }

    @Test func aScenarioWithABadSystemIsOneLineAndRunsNothing() throws {
        let directory = makeScratchDirectory("sys-scnbad")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for value in Self.badValues.map({ "\"\($0)\"" }) + ["42"] {
            let file = directory + "/bad.json"
            try #"{"name": "bad", "system": \#(value), "steps": [{"record": 1}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
            let result = try runTool(["scenario", "run", file], environment: ["TMPDIR": directory])
            #expect(result.status == 2, "\(value): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(value): \(result.stderr)")
            #expect(result.stderr.contains("\"system\""), "\(value): \(result.stderr)")
            #expect(result.stdout.isEmpty, "nothing ran: \(result.stdout)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("runway-scenario-") }
        #expect(left.isEmpty, "no homes made: \(left)")
    }
}
