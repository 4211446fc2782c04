import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Issue 41: a watch app written as for watchOS (`wrist-app`: WatchKit's extension delegate and tasks,
/// WatchConnectivity, ClockKit, WidgetKit) under watch-os, through the real binaries: launched in the
/// background for the phone's complication data (or woken from its suspension for it, with a new task), it
/// reloads its complication and completes its task, and watch-os then suspends it (issue 50); an app that never completes its task is reclaimed at the budget and its
/// task counted expired; a refresh it scheduled fires on `runway clock advance` with the app not running;
/// the lifecycle calls arrive in watchOS's order on open and close.
@Suite(.serialized) struct WatchKitTests {
    static var wrist: String { Binaries.path("wrist-app") }
    static let bundle = "wrist-app"

    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.watchOSCall(["os", "status"]) }
    func int(_ value: JSONValue?, _ key: String) -> Int { value?[key]?.intValue ?? 0 }
    func appState(_ pair: SimulatedPair) throws -> String { try osStatus(pair)["appState"]?.stringValue ?? "?" }

    static func lines(_ pair: SimulatedPair, _ name: String) -> [String] {
        let path = pair.watchHome + "/apps/\(bundle)/Documents/" + name
        return ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The lifecycle calls of the last launch.
    static func lastLaunch(_ pair: SimulatedPair) -> [String] {
        let all = lines(pair, "lifecycle.log")
        let start = all.lastIndex { $0.hasPrefix("launch ") } ?? -1
        return Array(all[(start + 1)...])
    }

    /// The RunWay phone's start-up context launches the watch app once; waits until that launch is over:
    /// the app suspended by watch-os, its tasks complete (watchOS: "The system suspends apps that"
    /// completed their background tasks; issue 50), or reclaimed at its budget.
    func waitUntilAppIsDown(_ pair: SimulatedPair) throws {
        try pair.waitUntil("the phone's queue for the watch is empty") { try pair.status("phone")["outstandingUserInfoTransfers"]?.intValue == 0 }
        try pair.waitUntil("the watch app's launch is over") { try launchIsOver(pair) }
    }

    /// Not running, or suspended by watch-os (its work done).
    func launchIsOver(_ pair: SimulatedPair) throws -> Bool {
        let status = try osStatus(pair)
        return status["appState"]?.stringValue == "not running"
            || (status["appState"]?.stringValue == "suspended" && status["suspendedBySystem"] == .bool(true))
    }

    func sendComplication(_ pair: SimulatedPair, id: String) throws {
        let path = pair.root + "/complication-\(id).json"
        try #"{"id": "\#(id)", "cups": 3}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let sent = try runTool(["phone", "transfer-complication", "--home", pair.phoneHome, "--json-file", path])
        #expect(sent.status == 0, "\(sent.stderr)")
    }

    @Test func complicationDataLaunchesTheAppWhichReloadsAndCompletesItsTask() throws {
        try withRunningPair(tag: "wk-reload", watch: nil) { pair in
            // A budget far longer than the test: what ends each launch is the app completing its task.
            try pair.startWatchOS(["--app", Self.wrist, "--background-budget-ms", "120000"])
            try waitUntilAppIsDown(pair)
            let launched = try osStatus(pair)
            #expect(int(launched, "backgroundTasksHanded") >= 1, "the start-up context's launch handed a task")
            #expect(int(launched, "backgroundTasksCompleted") == int(launched, "backgroundTasksHanded"))
            #expect(try runTool(["watch", "complication", "on", "--home", pair.watchHome]).status == 0)
            // Sent before the phone hears the complication is on, c1 would go as a userInfo (no budget while
            // it is off), and c2, c3 in the complication lane ahead of it: out of order by Apple's rule.
            try pair.waitUntil("the phone sees the complication on") { try pair.status("phone")["complicationEnabled"] == .bool(true) }
            // The watch face's change may have woken a suspended app: its work done, it is suspended again.
            try pair.waitUntil("the watch app's launch is over again") { try launchIsOver(pair) }
            let before = try osStatus(pair)

            let sent = ["c1", "c2", "c3"]
            for id in sent { try sendComplication(pair, id: id) }
            try pair.waitUntil("the phone's complications are delivered") {
                try pair.status("phone")["outstandingComplicationTransfers"]?.intValue ?? 0 == 0 && Set(Self.lines(pair, "received.log")).isSuperset(of: sent)
            }
            try pair.waitUntil("the app completed its task and watch-os suspended it") {
                try launchIsOver(pair) && int(try osStatus(pair), "backgroundTasksOpen") == 0
            }
            let after = try osStatus(pair)
            // watchOS "can wake suspended apps in the background" (WKApplicationState.background): the
            // suspended app is woken for the content, not launched again, and handed a task for it.
            #expect(int(after["wakes"], "transfer") > int(before["wakes"], "transfer"), "woken from its suspension for it: \(after.text)")
            #expect(int(after["launches"], "phone-content") == int(before["launches"], "phone-content"))
            #expect(int(after["launches"], "user") == 0, "nobody opened it")
            #expect(int(after, "backgroundTasksHanded") > int(before, "backgroundTasksHanded"))
            #expect(int(after, "backgroundTasksCompleted") == int(after, "backgroundTasksHanded"))
            #expect(int(after, "backgroundTasksExpired") == 0)
            #expect(int(after["reloadsRequested"], "clockkit.reloadTimeline") >= 1, "\(after["reloadsRequested"] ?? .null)")
            #expect(int(after["reloadsRequested"], "widgetkit.all") >= 1)
            let report = DeliveryReport.check(sent: sent, received: Self.lines(pair, "received.log").filter { $0 != "context" })
            #expect(report.isClean, "\(report)")
            #expect(Self.lines(pair, "lifecycle.log").contains("handle watchConnectivity"))
            let log = (try? String(contentsOfFile: pair.watchLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=os.suspended") && log.contains("reason=\"its background tasks are complete\""))
            #expect(log.contains("event=os.complication-reload kind=clockkit.reloadTimeline"))
        }
    }

    @Test func aTaskNeverCompletedIsReclaimedAtTheBudgetAndCountedExpired() throws {
        try withRunningPair(tag: "wk-expire", watch: nil) { pair in
            try pair.startWatchOS(["--app", Self.wrist, "--app-arg=--never-complete", "--background-budget-ms", "800"])
            try waitUntilAppIsDown(pair)
            let status = try osStatus(pair)
            #expect(int(status, "backgroundTasksHanded") >= 1)
            #expect(int(status, "backgroundTasksCompleted") == 0)
            #expect(int(status, "backgroundTasksExpired") == int(status, "backgroundTasksHanded"), "\(status)")
            #expect(int(status, "reclaims") >= 1)
            #expect(Self.lines(pair, "received.log").contains("context"), "the content itself was received")
            let log = (try? String(contentsOfFile: pair.watchLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=os.tasks-expired"))
            #expect(log.contains("reason=\"background budget of 800 ms used up, no UI\""))
        }
    }

    @Test func aScheduledRefreshFiresOnClockAdvanceWithTheAppNotRunning() throws {
        try withRunningPair(tag: "wk-refresh", watch: nil) { pair in
            try pair.startWatchOS(["--app", Self.wrist, "--app-arg=--schedule-refresh", "--app-arg=3600", "--background-budget-ms", "300"])
            try waitUntilAppIsDown(pair)
            // Opened, the app schedules a refresh an hour from now; closed, it is reclaimed.
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("the refresh is scheduled") { try osStatus(pair)["backgroundRefreshAt"]?.stringValue != nil }
            _ = try pair.watchOSCall(["app", "close"])
            try pair.waitUntil("the app is reclaimed") { try appState(pair) == "not running" }
            usleep(500_000)
            #expect(Self.lines(pair, "refresh.log").isEmpty, "not before its time")
            #expect(int(try osStatus(pair)["launches"], "background-refresh") == 0)

            let advanced = try runTool(["clock", "advance", "2h", "--home", pair.watchHome])
            #expect(advanced.status == 0, "\(advanced.stderr)")
            try pair.waitUntil("the refresh launched the app and it ran its task") { Self.lines(pair, "refresh.log").count == 1 }
            try pair.waitUntil("the launch is over") { try appState(pair) == "not running" }
            let status = try osStatus(pair)
            #expect(int(status["launches"], "background-refresh") == 1)
            #expect(int(status, "backgroundRefreshesFired") == 1)
            #expect(status["backgroundRefreshAt"] == nil || status["backgroundRefreshAt"] == .null)
            #expect(int(status["haptics"], "notification") == 1, "WKInterfaceDevice.play recorded")
            #expect(Array(Self.lastLaunch(pair).prefix(2)) == ["didFinishLaunching watchOS", "handle refresh"], "\(Self.lastLaunch(pair))")
        }
    }

    @Test(arguments: ["--extension-delegate", "--application-delegate"])
    func lifecycleCallsArriveInWatchOSOrderOnOpenAndClose(_ delegate: String) throws {
        try withRunningPair(tag: "wk-life", watch: nil) { pair in
            try pair.startWatchOS(["--app", Self.wrist, "--app-arg=\(delegate)", "--background-budget-ms", "60000"])
            try waitUntilAppIsDown(pair)
            #expect(Array(Self.lastLaunch(pair).prefix(2)) == ["didFinishLaunching watchOS", "handle watchConnectivity"], "\(Self.lastLaunch(pair))")

            _ = try pair.watchOSCall(["app", "open"])
            func lifecycle() -> [String] { Self.lastLaunch(pair).filter { !$0.hasPrefix("handle ") } }
            try pair.waitUntil("launched in the foreground") { lifecycle().contains("didBecomeActive") }
            _ = try pair.watchOSCall(["app", "close"])
            try pair.waitUntil("closed") { lifecycle().contains("didEnterBackground") }
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("opened again") { lifecycle().filter { $0 == "didBecomeActive" }.count == 2 }
            // Launched by the open, or a background launch for the phone's content the open caught on its
            // way (it also hands its task): then it came to the foreground as an app in the background does.
            let calls = lifecycle()
            #expect(calls.first == "didFinishLaunching watchOS", "\(calls)")
            let opening = Array(calls.dropFirst().dropLast(4))
            #expect(opening == ["didBecomeActive"] || opening == ["willEnterForeground", "didBecomeActive"], "\(calls)")
            #expect(Array(calls.suffix(4)) == ["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"], "\(calls)")
            #expect(try osStatus(pair)["appState"]?.stringValue == "foreground")

            // Complication data while it runs: the reload is in the app's trace (`runway watch events`).
            #expect(try runTool(["watch", "complication", "on", "--home", pair.watchHome]).status == 0)
            try sendComplication(pair, id: "live-1")
            try pair.waitUntil("the running app received it") { Self.lines(pair, "received.log").contains("live-1") }
            try pair.waitUntil("the reload is in the watch's events") {
                let events = try runTool(["watch", "events", "--home", pair.watchHome, "--json"])
                let calls = events.stdout.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }.map {
                    ($0["call"]?.stringValue ?? "", $0["kind"]?.stringValue ?? "")
                }
                return calls.contains { $0 == ("complicationReload", "clockkit.reloadTimeline") }
                    && calls.contains { $0 == ("complicationReload", "widgetkit.all") }
            }
        }
    }
}
