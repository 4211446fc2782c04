import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 50, row 4: `sessionWatchStateDidChange(_:)` through the binaries — phone-os hosting `probe-app`,
/// which notes each call with the state it tells of (Documents/watchstate.log), RunWay's watch-agent on
/// the wrist.
///
/// Apple's `sessionWatchStateDidChange(_:)`: "Called when any of the Watch state properties change." Those
/// are `isPaired`, `isWatchAppInstalled`, `isComplicationEnabled` and `watchDirectoryURL` (WCSession's
/// "Getting the Paired Device's State"); the watch app coming to the foreground or going to the background
/// changes `isReachable`, which has its own call (`sessionReachabilityDidChange(_:)`).
///
/// On the code before issue 50: every foreground or background change of the watch app (and each version
/// the watch reported) told the phone's app its watch state changed, with nothing changed.
@Suite(.serialized) struct WatchStateCallbackTests {
    func lines(_ pair: SimulatedPair, _ name: String) -> [String] {
        let text = (try? String(contentsOfFile: pair.phoneHome + "/apps/probe-app/Documents/" + name, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    func traced(_ pair: SimulatedPair) throws -> Int {
        let events = try runTool(["phone", "events", "--home", pair.phoneHome, "--json"])
        return events.stdout.split(separator: "\n").filter { (try? JSONValue(parsing: String($0)))?["call"] == .string("sessionWatchStateDidChange") }.count
    }

    @Test func theWatchStateCallbackComesForTheWatchsStateNotForItsAppsForeground() throws {
        try withRunningPair(tag: "watchstate", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe])
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the phone reaches the watch") { try pair.status("phone")["reachable"] == .bool(true) }
            let before = lines(pair, "watchstate.log")
            let tracedBefore = try traced(pair)

            for _ in 0..<3 {
                #expect(try runTool(["watch", "app", "background", "--home", pair.watchHome]).status == 0)
                try pair.waitUntil("the phone sees the watch app in the background") { try pair.status("phone")["reachable"] == .bool(false) }
                #expect(try runTool(["watch", "app", "foreground", "--home", pair.watchHome]).status == 0)
                try pair.waitUntil("and in the foreground again") { try pair.status("phone")["reachable"] == .bool(true) }
            }
            #expect(lines(pair, "reachability.log").suffix(6) == Array(repeating: ["reachable=false", "reachable=true"], count: 3).flatMap { $0 })
            #expect(lines(pair, "watchstate.log") == before, "no watch state changed: \(lines(pair, "watchstate.log"))")
            #expect(try traced(pair) == tracedBefore, "nor does the trace show such a call")

            // The complication put on the watch face: isComplicationEnabled changed, told once.
            #expect(try runTool(["watch", "complication", "on", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("the phone's app hears it") { lines(pair, "watchstate.log").count == before.count + 1 }
            #expect(lines(pair, "watchstate.log").last == "paired=true installed=true complication=true")
            usleep(300_000)
            #expect(lines(pair, "watchstate.log").count == before.count + 1, "told once")
            #expect(try traced(pair) == tracedBefore + 1)
        }
    }
}
