import Foundation
import JSONText
import PairTesting
import Testing

/// The air between the devices through the binaries (`runway link set|show|schedule`,
/// docs/link-conditions.md): a backlog drains under loss and latency with nothing lost or doubled, and a
/// link that loses without cutting is caught by the checker; the range shows as reachability on both
/// sides; bad input changes nothing; the bandwidth is visible in a file's throughput.
@Suite struct LinkConditionsTests {
    func run(_ arguments: [String]) throws -> CommandResult { try runTool(arguments) }

    func link(_ pair: SimulatedPair, _ arguments: [String]) throws -> JSONValue {
        let result = try run(["link"] + arguments + ["--home", pair.watchHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway link \(arguments.joined(separator: " ")): \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    func lastReachability(_ pair: SimulatedPair, _ device: String) throws -> Bool? {
        let home = device == "phone" ? pair.phoneHome : pair.watchHome
        let events = try run([device, "events", "--home", home, "--json"]).stdout.split(separator: "\n")
            .compactMap { try? JSONValue(parsing: Array($0.utf8)) }
        return events.last { $0["call"] == .string("sessionReachabilityDidChange") }?["reachable"]?.boolValue
    }

    /// 2,000 flights queued while the link was down drain under 20% loss and 50 ms ± 20 ms each way:
    /// every lost frame cuts the link, the watch reconnects and both sides resume from their cursors.
    @Test func aBacklogDrainsUnderLossAndLatency() throws {
        try withRunningPair(tag: "lossy") { pair in
            try pair.setLink(up: false)
            try pair.record(2000)
            let set = try link(pair, ["set", "--latency", "50", "--jitter", "20", "--loss", "0.2", "--seed", "27"])
            #expect(set["effective"]?["latencyMs"] == .integer(50) && set["loss"] == .number(0.2))
            let started = Date()
            try pair.setLink(up: true)
            try pair.expectDrainedAndClean(stored: 2000, timeout: 600)
            let shown = try link(pair, ["show"])
            let lost = shown["framesLost"]?.intValue ?? 0
            #expect(lost > 10, "20% loss cut the link many times: \(shown.text)")
            print(
                "2000 flights drained under 20% loss and 50 ± 20 ms in \(String(format: "%.1f", Date().timeIntervalSince(started))) s: "
                    + "\(shown["framesCarried"]?.intValue ?? 0) frames in the air, \(lost) lost (each a cut and a reconnect)")
        }
    }

    /// A link that drops lost frames without cutting the connection (a hidden test switch): the phone's
    /// receiver takes only the transfer after its cursor, so each gap closes the link and what was lost
    /// is sent again — nothing lost (issue 39: the receiver took the frame after the gap, and the lost
    /// run with it). The test below is its proof that it can fail.
    @Test func aFrameLostWithoutACutIsSentAgainNotLost() throws {
        try withRunningPair(tag: "lossrule", watch: ["--unsafe-link-loss-skips-frames"]) { pair in
            try pair.setLink(up: false)
            try pair.record(120)
            _ = try link(pair, ["set", "--loss", "0.2", "--seed", "27"])
            try pair.setLink(up: true)
            try settleThenReconnect(pair, transfers: 120)
            try pair.expectDrainedAndClean(stored: 120)
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.contains("event=link.protocol-violation"), "no gap was ever seen: the test proves nothing")
        }
    }

    /// A link that skips lost frames without a cut cannot show a loss that nothing follows: the last
    /// transfer in flight, or the acknowledgement of it, vanishes and no later frame reveals the gap, so
    /// the drain stops short (under load, which frame is last depends on timing: CI's 300-s time-outs).
    /// A real link does not skip; here the test waits until the drain has settled — everything
    /// acknowledged, or nothing acknowledged for 3 s — then clears the air and reconnects once, as a
    /// cut would, and both sides resume from their cursors.
    func settleThenReconnect(_ pair: SimulatedPair, transfers: Int) throws {
        var last = -1
        var since = Date()
        try pair.waitUntil("the lossy drain settles", timeout: 300) {
            let acknowledged = try pair.status("watch")["outbox"]?["lastAcknowledgedTransfer"]?.intValue ?? 0
            if acknowledged != last { (last, since) = (acknowledged, Date()) }
            return acknowledged >= transfers || Date().timeIntervalSince(since) > 3
        }
        _ = try link(pair, ["set", "--reset"])
        try pair.setLink(up: false)
        try pair.setLink(up: true)
        try pair.waitUntilDrained(timeout: 120)
    }

    /// The proof that the tests above can fail: a link that drops lost frames without cutting the
    /// connection (a hidden test switch), to a receiver without the sequence rule (another), loses
    /// flights, and the checker names them.
    @Test func aLinkThatLosesWithoutCuttingLosesFlightsAndTheCheckerSaysSo() throws {
        try withRunningPair(tag: "lossbug", watch: ["--unsafe-link-loss-skips-frames"], phone: ["--unsafe-accept-any-sequence"]) { pair in
            try pair.setLink(up: false)
            try pair.record(120)
            _ = try link(pair, ["set", "--loss", "0.2", "--seed", "27"])
            try pair.setLink(up: true)
            try settleThenReconnect(pair, transfers: 120)
            let report = try pair.check()
            #expect(!report.isClean && report.lost.count > 0, "\(report.summary)")
            #expect(report.duplicated.isEmpty)
        }
    }

    /// `link set --reset` applies to what is already in the air (issue 39: after `--bandwidth 1` what was
    /// queued still crawled at 1 kbit/s, 197 runs waiting 30 s after the reset): it arrives at once.
    @Test func aResetAppliesToWhatIsAlreadyInTheAir() throws {
        try withRunningPair(tag: "resetair") { pair in
            _ = try link(pair, ["set", "--bandwidth", "1"])
            try pair.record(50)
            try pair.waitUntil("runs are in the air") { (try link(pair, ["show"])["bytesInAir"]?.intValue ?? 0) > 0 }
            _ = try link(pair, ["set", "--reset"])
            // At 1 kbit/s the 50 runs (~90 KB) would take over ten minutes.
            try pair.waitUntilDrained(timeout: 20)
            try pair.expectDrainedAndClean(stored: 50)
        }
    }

    /// A slow link holds what the session's high-water mark lets into the air (1 MiB out, plus the one
    /// batch that crossed it), not the backlog: 2,000 flights queued, 400 kbit/s.
    @Test func aSlowLinkHoldsABoundedAmountInTheAir() throws {
        try withRunningPair(tag: "bounded") { pair in
            try pair.setLink(up: false)
            try pair.record(2000)
            _ = try link(pair, ["set", "--bandwidth", "400", "--latency", "20"])
            try pair.setLink(up: true)
            try pair.waitUntil("flights arrive through the slow link", timeout: 120) { try pair.storedCount() >= 20 }
            let shown = try link(pair, ["show"])
            let most = try #require(shown["mostBytesInAir"]?.intValue)
            print("2000 flights queued, 400 kbit/s: at most \(most) bytes in the air at once, \(shown["bytesInAir"]?.intValue ?? -1) now")
            #expect(most > 0 && most <= Self.airBound, "\(shown.text)")
            _ = try link(pair, ["set", "--reset"])
            try pair.expectDrainedAndClean(stored: 2000)
        }
    }

    /// The session's high-water mark (1 MiB), one pump batch past it (256 flights; a recorded flight is
    /// under 4 KiB, about 1.8 KiB on average), and the phone's acknowledgements on their way in. Without
    /// the air counted as pending output the pump fills the window instead: 3,679,429 bytes in the air.
    static let airBound = (1 << 20) + 256 * 4096 + 65_536

    /// Out of range, both sides see the other unreachable (status and the delegate's events); in range
    /// again, reachable; the Wi-Fi relay connects, slower.
    @Test func theRangeIsReachabilityOnBothSides() throws {
        try withRunningPair(tag: "range") { pair in
            try pair.waitUntil("both reachable") { try pair.status("watch")["reachable"] == .bool(true) && pair.status("phone")["reachable"] == .bool(true) }
            let out = try link(pair, ["set", "--range", "out"])
            #expect(out["range"] == .string("out"))
            try pair.waitUntil("both see the other out of range") {
                try pair.status("watch")["reachable"] == .bool(false) && pair.status("phone")["reachable"] == .bool(false)
            }
            #expect(try lastReachability(pair, "watch") == false && lastReachability(pair, "phone") == false)
            #expect(try pair.status("watch")["linkRange"] == .string("out"))
            let ids = try pair.record(3)
            #expect(ids.count == 3)
            _ = try link(pair, ["set", "--range", "near"])
            try pair.waitUntil("both see the other again") {
                try pair.status("watch")["reachable"] == .bool(true) && pair.status("phone")["reachable"] == .bool(true)
            }
            #expect(try lastReachability(pair, "watch") == true && lastReachability(pair, "phone") == true)
            let wifi = try link(pair, ["set", "--range", "wifi"])
            #expect(wifi["effective"]?["latencyMs"] == .integer(60) && wifi["effective"]?["bandwidthKbps"] == .integer(1000))
            try pair.record(2)
            try pair.waitUntil("connected through the relay") { try link(pair, ["show"])["connected"] == .bool(true) }
            let text = try run(["watch", "link", "show", "--home", pair.watchHome]).stdout
            #expect(text.contains("wifi (the relay)") && text.contains("latency   60 ms ± 20 ms"), "\(text)")
            try pair.expectDrainedAndClean(stored: 5)
        }
    }

    func reachabilities(_ pair: SimulatedPair, _ device: String) throws -> [Bool] {
        let home = device == "phone" ? pair.phoneHome : pair.watchHome
        return try run([device, "events", "--home", home, "--json"]).stdout.split(separator: "\n")
            .compactMap { try? JSONValue(parsing: Array($0.utf8)) }
            .filter { $0["call"] == .string("sessionReachabilityDidChange") }.compactMap { $0["reachable"]?.boolValue }
    }

    /// A schedule plays on the watch's loop: slow air, out of range, the relay with a little loss, then
    /// clear air again — and both sides' delegates hear the phone and the watch go and come back.
    @Test func aSchedulePlaysAndReachabilityFollowsItOnBothSides() throws {
        try withRunningPair(tag: "schedule") { pair in
            try pair.waitUntil("both reachable") { try pair.status("watch")["reachable"] == .bool(true) && pair.status("phone")["reachable"] == .bool(true) }
            let before = (watch: try reachabilities(pair, "watch").count, phone: try reachabilities(pair, "phone").count)
            let path = pair.root + "/schedule.json"
            try #"""
            {"seed": 5, "steps": [
              {"at": 0, "latencyMs": 20, "jitterMs": 5},
              {"at": 500, "range": "out"},
              {"at": 2500, "range": "wifi", "loss": 0.05},
              {"at": 4000, "range": "near", "reset": true}]}
            """#.write(toFile: path, atomically: true, encoding: .utf8)
            let started = try link(pair, ["schedule", path])
            #expect(started["scheduleSteps"] == .integer(4) && started["scheduleApplied"] == .integer(1) && started["seed"] == .integer(5))
            #expect(started["latencyMs"] == .integer(20) && started["scheduleNextInMs"]?.intValue != nil)
            try pair.record(3)
            try pair.waitUntil("the schedule has played", timeout: 60) { try link(pair, ["show"])["scheduleNextInMs"] == nil }
            let ended = try link(pair, ["show"])
            #expect(ended["scheduleApplied"] == .integer(4) && ended["range"] == .string("near") && ended["latencyMs"] == .integer(0))
            try pair.waitUntil("both reachable again") {
                try pair.status("watch")["reachable"] == .bool(true) && pair.status("phone")["reachable"] == .bool(true)
            }
            for device in ["watch", "phone"] {
                let seen = try reachabilities(pair, device).dropFirst(device == "watch" ? before.watch : before.phone)
                #expect(seen.first == false && seen.last == true, "\(device) heard \(Array(seen))")
            }
            let text = try run(["link", "show", "--home", pair.watchHome]).stdout
            #expect(text.contains("schedule  4 of 4 steps applied, ended"), "\(text)")
            try pair.expectDrainedAndClean(stored: 3)
        }
    }

    /// Out of range and slow conditions are kept in the watch's home: a restarted watch is under them.
    @Test func conditionsSurviveARestartOfTheWatch() throws {
        try withRunningPair(tag: "keep") { pair in
            _ = try link(pair, ["set", "--latency", "40", "--range", "out"])
            pair.killWatch()
            try pair.startWatch()
            let shown = try link(pair, ["show"])
            #expect(shown["latencyMs"] == .integer(40) && shown["range"] == .string("out") && shown["connected"] == .bool(false))
            try pair.record(2)
            #expect(try pair.status("watch")["reachable"] == .bool(false))
            _ = try link(pair, ["set", "--reset"])
            #expect(!FileManager.default.fileExists(atPath: pair.watchHome + "/link-conditions.json"), "clear air leaves no file")
            try pair.expectDrainedAndClean(stored: 2)
        }
    }

    /// Out-of-range values and malformed schedules: one line, exit 2, the link as it was.
    @Test func badConditionsAreOneLineAndChangeNothing() throws {
        try withRunningPair(tag: "badlink") { pair in
            let before = try link(pair, ["set", "--latency", "30", "--loss", "0.1"])
            let bad: [[String]] = [
                ["set", "--latency", "-5"], ["set", "--latency", "60001"], ["set", "--jitter", "x"], ["set", "--loss", "1.5"], ["set", "--loss", "-0.1"],
                ["set", "--loss", "nan"], ["set", "--range", "moon"], ["set", "--bandwidth", "-1"], ["set"], ["schedule", pair.root + "/missing.json"],
            ]
            var schedules: [String] = [
                "", "[]", #"{"steps": []}"#, #"{"steps": [{"at": 0}]}"#, #"{"steps": [{"at": -1, "latencyMs": 5}]}"#,
                #"{"steps": [{"at": 10, "loss": 0.1}, {"at": 5, "loss": 0.2}]}"#, #"{"steps": [{"at": 0, "range": "moon"}]}"#,
                #"{"steps": [{"at": 0, "latency": 5}]}"#, #"{"steps": [{"at": 0, "loss": 2}]}"#, #"{"seed": -1, "steps": [{"at": 0, "loss": 0}]}"#,
                #"{"steps": [{"at": 0, "loss": 0.5}]"#,
            ]
            schedules.append(#"{"steps": ["# + Array(repeating: #"{"at": 0, "loss": 0}"#, count: 1001).joined(separator: ",") + "]}")
            var cases = bad
            for (index, text) in schedules.enumerated() {
                let path = pair.root + "/bad-\(index).json"
                try text.write(toFile: path, atomically: true, encoding: .utf8)
                cases.append(["schedule", path])
            }
            for arguments in cases {
                let result = try run(["link"] + arguments + ["--home", pair.watchHome])
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1, "\(arguments): \(result.stderr)")
            }
            let after = try link(pair, ["show"])
            for key in ["latencyMs", "jitterMs", "loss", "bandwidthKbps", "range", "scheduleSteps"] { #expect(after[key] == before[key], "\(key)") }
            try pair.record(2)
            try pair.expectDrainedAndClean(stored: 2)
        }
    }

    /// The bandwidth shows in a file's throughput (measured and printed, not asserted): the same file
    /// sent at 800 kbit/s and without a limit.
    @Test func theBandwidthLimitsAFileTransfer() throws {
        try withRunningPair(tag: "bandwidth") { pair in
            try pair.waitUntil("the phone knows the watch app") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
            let path = pair.root + "/route.bin"
            try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
            var rates: [String] = []
            for (received, kbps) in [(1, 800), (2, 0)] {
                _ = try link(pair, ["set", "--bandwidth", String(kbps)])
                let started = Date()
                try pair.transferFile(from: "watch", path)
                try pair.waitUntil("the file arrived", timeout: 120) { try pair.status("phone")["inbox"]?["receivedFiles"] == .integer(Int64(received)) }
                let seconds = Date().timeIntervalSince(started)
                rates.append("\(kbps == 0 ? "unlimited" : "\(kbps) kbit/s"): \(String(format: "%.0f", 300_000 * 8 / 1000 / seconds)) kbit/s")
            }
            print("a 300 kB file's throughput, " + rates.joined(separator: "; "))
            let report = try pair.expectDrainedAndClean(stored: 0)
            #expect(report.files.received == 2)
        }
    }
}
