import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 50, rows 3 and 8: an application context is content like any other — through the binaries.
///
/// Apple's `hasContentPending`: "true if the session has received data in the background but has not yet
/// delivered that data to the session's delegate. The following methods send data in the background:
/// `updateApplicationContext(_:)`, `transferUserInfo(_:)`, …". `WKWatchConnectivityRefreshBackgroundTask`:
/// keep the task until `hasContentPending` is false ("Using background tasks": the system delivers the
/// data once the session is activated; completing the task earlier lets the system suspend the app first).
@Suite(.serialized) struct ContextPendingTests {
    static var wrist: String { Binaries.path("wrist-app") }

    static func content(_ pair: SimulatedPair) -> [String] {
        let text = (try? String(contentsOfFile: pair.watchHome + "/apps/wrist-app/Documents/content.log", encoding: .utf8)) ?? ""
        let all = text.split(separator: "\n").map(String.init)
        let start = all.lastIndex { $0.hasPrefix("launch ") } ?? -1
        return Array(all[(start + 1)...])
    }

    func write(_ pair: SimulatedPair, _ json: String) throws -> String {
        let path = pair.root + "/context-\(UInt32.random(in: 0...UInt32.max)).json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Row 3: a watch app watch-os launches for the phone's context reads `hasContentPending` true at
    /// activation, before the context has arrived (the link is slow: 300 ms each way), and completes its
    /// WatchConnectivity task only once the context is in. On the code before issue 50 it read false, completed
    /// its task at once, and watch-os ended the launch before the context arrived.
    @Test func aWatchAppLaunchedForAContextReadsContentPendingAndKeepsItsTaskUntilTheContextIsIn() throws {
        try withRunningPair(tag: "ctx-watch", watch: nil) { pair in
            try pair.startWatchOS(["--app", Self.wrist, "--background-budget-ms", "1500"])
            // RunWay's phone says a context at start-up: that launch over (and purged), the test's begins.
            try pair.waitUntil("the start-up launch is over") {
                try pair.status("phone")["applicationContextPending"] != .bool(true)
                    && pair.watchOSCall(["os", "status"])["appState"]?.stringValue == "not running"
            }
            let slow = try runTool(["link", "set", "--latency", "300", "--home", pair.watchHome])
            #expect(slow.status == 0, "\(slow.stderr)")
            let set = try runTool(["phone", "context", "set", "--home", pair.phoneHome, "--json-file", try write(pair, #"{"cups": 7}"#)])
            #expect(set.status == 0, "\(set.stderr)")
            try pair.waitUntil("the launch for the context took it and completed its task") {
                Self.content(pair).contains("context") && Self.content(pair).contains("completed watchConnectivity")
            }
            let launch = Self.content(pair)
            #expect(launch.first == "activated pending=true", "the context counts as content pending at activation: \(launch)")
            let arrived = launch.firstIndex(of: "context") ?? Int.max
            let completed = launch.firstIndex(of: "completed watchConnectivity") ?? -1
            #expect(arrived < completed, "the task is kept until the context is in: \(launch)")
            try pair.waitUntil("the phone hears the context was delivered") { try pair.status("phone")["applicationContextPending"] == .bool(false) }
        }
    }

    /// Row 8: the watch's context while the phone app is not running — phone-os launches the app for it
    /// (the watch's hello says a context waits), and `waitUntilDrained` (DevicePair's `waitUntilDelivered`)
    /// returns only once the phone's app has it. On the code before issue 50: no launch (nothing pending, by
    /// the hello), and the wait returned at once with the context still on the watch.
    @Test func aPendingContextLaunchesThePhoneAppAndTheDrainWaitsForIt() throws {
        try withRunningPair(tag: "ctx-phone", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "60000"])
            try pair.waitUntil("phone-os has declined the idle watch") { try pair.phoneOSCall(["os", "status"])["declinedLaunches"]?.intValue ?? 0 >= 1 }
            #expect(try pair.phoneOSCall(["os", "status"])["launchCount"]?.intValue == 0)
            let set = try runTool(["watch", "context", "set", "--home", pair.watchHome, "--json-file", try write(pair, #"{"lap": 3}"#)])
            #expect(set.status == 0, "\(set.stderr)")
            try pair.waitUntilDrained()
            let received = (try? String(contentsOfFile: pair.phoneHome + "/apps/probe-app/Documents/contexts.log", encoding: .utf8)) ?? ""
            #expect(received == "lap=3\n", "delivered when the drain returned: \(received)")
            let status = try pair.phoneOSCall(["os", "status"])
            #expect(status["launches"]?["watch-context"]?.intValue == 1, "\(status.text)")
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(log.contains("reason=\"watch connected with an application context pending\""))
        }
    }

    /// The phone's own context while its app is down: the phone's app set a context while the watch was
    /// away and was then killed (as phone-os's budget reclaims an app between its send and the watch's
    /// acknowledgement). Apple: the system sends what `updateApplicationContext` was handed, the app
    /// running or not; here the service runs in the app's process, so phone-os launches the app for it
    /// once the watch is in range (`context-for-watch`), the watch gets the context, and the drain returns.
    /// On the code before, phone-os declined every `hello` ("the watch has nothing pending") and the
    /// context stayed pending for ever: `PhoneOSProgressTests`' 1 ms budget timed out so on a loaded runner.
    @Test func thePhonesOwnPendingContextLaunchesItsAppWhenTheWatchIsBack() throws {
        try withRunningPair(tag: "ctx-own", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "60000"])
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the app is linked to the watch") { (try? pair.status("phone"))?["linked"] == .bool(true) }
            pair.killWatch()
            try pair.waitUntil("the app sees the watch gone") { (try? pair.status("phone"))?["linked"] == .bool(false) }
            let set = try runTool(["phone", "context", "set", "--home", pair.phoneHome, "--json-file", try write(pair, #"{"tempo": 5}"#)])
            #expect(set.status == 0, "\(set.stderr)")
            #expect(try pair.contextPending("phone"), "the watch is away: the context waits")
            let kill = try runTool(["phone", "app", "kill", "--home", pair.phoneHome])
            #expect(kill.status == 0, "\(kill.stderr)")
            try pair.waitUntil("the app is gone") { try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue == "not running" }
            #expect(try pair.contextPending("phone"), "phone-os reads the pending context from the phone's store")
            try pair.startWatch()
            try pair.waitUntilDrained(timeout: 60)
            let status = try pair.phoneOSCall(["os", "status"])
            #expect(status["launches"]?["context-for-watch"]?.intValue == 1, "\(status.text)")
            let got = try runTool(["watch", "context", "get", "--home", pair.watchHome, "--json"])
            #expect(got.stdout.contains("tempo"), "the watch has the context: \(got.stdout) \(got.stderr)")
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(log.contains("reason=\"the phone has an application context pending for the watch, in range\""))
        }
    }
}
