import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Issue 49, item 7: numbers keep their kind and read as on iOS, through the real binaries. A payload's
/// `5000.0` stays a real through every hop — the command line's JSON, the control socket, the property
/// list on the link, the store, `--json` again — and an app reads what arrives with Apple's casts
/// (`as? Double`, `as? Int`, `as? Bool` on `NSNumber`s) as it would on iOS. Before: the JSON writer wrote
/// `5000`, read back as the integer 5000, handed to the app as a Swift `Int`, for which `as? Double` is nil —
/// the run was dropped; and an `NSNumber(value: 5000)` another app sent arrived as an `Int` too.
@Suite struct NumberKindsHostedTests {
    static let payload = #"{"kind":"note","distance":5000.0,"laps":12,"indoor":false,"pace":5.25,"splits":[1,2.5,3.0]}"#

    /// RunWay's phone keeps what is not a flight (`runway phone received`): sent from the watch's command
    /// line while the phone is down (SIGKILLed), it comes out of `received --json` as it went in —
    /// `5000.0`, `12`, `false` — and so does a context; the invariant checker over the pair.
    @Test func aRealStaysARealThroughTheCommandLineTheSocketTheLinkAndBack() throws {
        try withRunningPair(tag: "numkind", phoneFirst: true) { pair in
            pair.killPhone()
            let sent = try runTool(["watch", "transfer-userinfo", "--json-file", "-", "--home", pair.watchHome], stdin: Self.payload)
            #expect(sent.status == 0, "\(sent.stderr)")
            #expect(try runTool(["watch", "context", "set", "--json-file", "-", "--home", pair.watchHome], stdin: Self.payload).status == 0)
            try pair.startPhone()
            try pair.waitUntilDrained(timeout: 60)
            let expected = try JSONValue(parsing: Array(Self.payload.utf8))
            #expect(expected["distance"] == .number(5000.0) && expected["laps"] == .integer(12))
            let received = try runTool(["phone", "received", "--json", "--home", pair.phoneHome])
            #expect(received.stdout.contains(#""distance":5000.0"#), "written as a real: \(received.stdout)")
            #expect(received.stdout.contains(#""laps":12,"#) || received.stdout.contains(#""laps":12}"#), "an integer as an integer: \(received.stdout)")
            #expect(try JSONValue(parsing: Array(received.stdout.utf8)) == .array([expected]))
            try pair.waitUntil("the phone has the context", timeout: 30) {
                let got = try runTool(["phone", "context", "get", "--json", "--home", pair.phoneHome])
                return try JSONValue(parsing: Array(got.stdout.utf8))["receivedApplicationContext"] == expected
            }
            let report = try pair.check()
            #expect(report.isClean, "\(report.violations)")
        }
    }

    /// What the phone app (`probe-app`) saved and read: received ids, and `kept ID DISTANCE LAPS INDOOR
    /// PACE` / `dropped ID` lines.
    static func numbers(_ home: String) -> [String] {
        let text = (try? String(contentsOfFile: home + "/apps/probe-app/Documents/numbers.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    func killApp(_ pair: SimulatedPair) throws {
        if let pid = try pair.phoneOSCall(["os", "status"])["appPid"]?.intValue { kill(pid_t(pid), SIGKILL) }
    }

    /// Runs sent from the watch's command line (`distance` an integral real, `laps` an integer, `indoor` a
    /// Boolean) to a phone app that reads them as a run tracker does (`guard let distance =
    /// userInfo["distance"] as? Double, let laps = … as? Int, let indoor = … as? Bool`), SIGKILLed as they
    /// come: every run arrives (the delivery check over the ids) and every one is read, none dropped.
    @Test func anAppReadsTheWatchsRunsWithApplesCastsThroughKills() throws {
        try withPair(tag: "numcast") { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "400"])
            try pair.startWatch()
            var ids: [String] = []
            for index in 1...24 {
                let id = "run-\(index)"
                let payload = #"{"id":"\#(id)","kind":"probe","distance":\#(index * 1000).0,"laps":\#(index),"indoor":\#(index % 2 == 0),"pace":5.25}"#
                let sent = try runTool(["watch", "transfer-userinfo", "--json-file", "-", "--home", pair.watchHome], stdin: payload)
                #expect(sent.status == 0, "\(sent.stderr)")
                ids.append(id)
                if index % 6 == 3 { try? killApp(pair) }
            }
            try pair.waitUntilDrained()
            let delivered = DeliveryReport.check(sent: ids, received: YourOwnAppTests.received(home: pair.phoneHome))
            #expect(delivered.isClean, "\(delivered)")
            let lines = Self.numbers(pair.phoneHome)
            #expect(!lines.contains { $0.hasPrefix("dropped ") }, "a cast failed: \(lines.filter { $0.hasPrefix("dropped ") })")
            let unread = (1...24).map { "kept run-\($0) \(Double($0 * 1000)) \($0) \($0 % 2 == 0) 5.25" }.filter { !lines.contains($0) }
            #expect(unread.isEmpty, "\(unread.count) runs not read as sent, e.g. \(unread.prefix(2)), in \(lines.prefix(4))")
        }
    }

    /// Both apps ours (`probe-app --numbers` on each): the watch's sends its runs' numbers as `NSNumber`s
    /// (`distance` an integer number of meters, `indoor` `NSNumber(value: Bool)`); the phone's, SIGKILLed as
    /// they come, reads each with `as? Double` (an integer is a Double on iOS), `as? Int`, `as? Bool`.
    @Test func anAppsNSNumbersAreReadByTheOtherAppAsOnADeviceThroughKills() throws {
        try withPair(tag: "numns") { pair in
            let count = 60
            pair.watchArguments = ["--app", YourOwnAppTests.probe, "--app-arg=--send", "--app-arg=\(count)", "--app-arg=--numbers"]
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "400"])
            try pair.startWatch()
            for _ in 0..<3 {
                usleep(300_000)
                try? killApp(pair)
            }
            try pair.waitUntilDrained()
            let sent = (1...count).map { "probe-\($0)" }
            let delivered = DeliveryReport.check(sent: sent, received: YourOwnAppTests.received(home: pair.phoneHome))
            #expect(delivered.isClean, "\(delivered)")
            let lines = Self.numbers(pair.phoneHome)
            #expect(!lines.contains { $0.hasPrefix("dropped ") }, "a cast failed: \(lines.filter { $0.hasPrefix("dropped ") }.prefix(5))")
            let unread = (1...count).map { "kept probe-\($0) \(Double($0 * 1000)) \($0) \($0 % 2 == 0) 5.25" }.filter { !lines.contains($0) }
            #expect(unread.isEmpty, "\(unread.count) runs not read as sent, e.g. \(unread.prefix(2)), in \(lines.prefix(4))")
        }
    }
}
