import Foundation
import Glibc
import JSONText
import PairTesting
import Storage
import Testing

/// The watch's simulated watchOS (`watch-os`) launching the watch app on demand: in the background for
/// what the phone sends it (with its `WKWatchConnectivityRefreshBackgroundTask`), never for the phone's
/// message, in the foreground on `runway watch app open` and `runway watch record`; the phone sees the
/// watch reachable only while the app is in the foreground; and nothing lost through kills of watch-os
/// and of the app. Through the real binaries: watch-os, watch-agent, phone-daemon and the CLI.
@Suite(.serialized) struct WatchOSTests {
    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.watchOSCall(["os", "status"]) }
    func int(_ value: JSONValue, _ key: String) -> Int { value[key]?.intValue ?? -1 }
    func launches(_ pair: SimulatedPair, _ reason: String) throws -> Int { try osStatus(pair)["launches"]?[reason]?.intValue ?? 0 }

    /// The phone app's start-up context launches the watch app once; waits until that launch is over.
    func waitUntilAppIsDown(_ pair: SimulatedPair) throws {
        try pair.waitUntil("the phone's queue for the watch is empty") { try pair.status("phone")["outstandingUserInfoTransfers"]?.intValue == 0 }
        try pair.waitUntil("the watch app is not running") { try osStatus(pair)["appState"]?.stringValue == "not running" }
    }

    @Test func aPhoneTransferLaunchesTheWatchAppInTheBackgroundWithItsTask() throws {
        try withRunningPair(tag: "wos-wake", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "700"])
            try waitUntilAppIsDown(pair)
            let before = try osStatus(pair)
            let woken = try launches(pair, "phone-content")

            let sent = try runTool(["phone", "transfer-userinfo", "--home", pair.phoneHome, "--json-file", try pair.jsonFile(#"{"wake": 1}"#)])
            #expect(sent.status == 0, "\(sent.stderr)")
            try pair.waitUntil("the watch app is launched for it") { try launches(pair, "phone-content") == woken + 1 }
            try pair.waitUntil("the watch app took it") { try pair.status("phone")["outstandingUserInfoTransfers"]?.intValue == 0 }
            try pair.waitUntil("the app completed its background task") {
                int(try osStatus(pair), "backgroundTasksCompleted") > int(before, "backgroundTasksCompleted")
            }
            #expect(try launches(pair, "user") == 0, "nobody opened it")
            #expect(try pair.status("phone")["reachable"] == .bool(false), "a watch app in the background is not reachable to the phone")
            let log = (try? String(contentsOfFile: pair.watchLog, encoding: .utf8)) ?? ""
            #expect(
                log.contains("mode=background reason=\"the phone sent the watch app content (userInfo)\"")
                    || log.contains("mode=background reason=\"the phone has 1 transfer(s) pending for the watch app\""))
            #expect(log.contains("event=app.background-task kind=watchConnectivity"))
            // The budget reclaims it, and nothing launches it again.
            try pair.waitUntil("the app is reclaimed") { try osStatus(pair)["appState"]?.stringValue == "not running" }
            let reclaimed = try osStatus(pair)
            usleep(1_500_000)
            #expect(int(try osStatus(pair), "launchCount") == int(reclaimed, "launchCount"), "no launch with nothing pending")
        }
    }

    @Test func aPhoneMessageNeverWakesTheWatchAppAndReachabilityFollowsItsForeground() throws {
        try withRunningPair(tag: "wos-msg", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "300"])
            try waitUntilAppIsDown(pair)
            let launchCount = int(try osStatus(pair), "launchCount")
            let message = try pair.jsonFile(#"{"ping": 3}"#)

            // Not running: the phone's session refuses at once, 7007, and the watch app is not launched.
            #expect(try pair.status("phone")["reachable"] == .bool(false))
            let refused = try runTool(["phone", "message", "--home", pair.phoneHome, "--json-file", message])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("7007 notReachable"), "\(refused.stderr)")
            usleep(500_000)
            #expect(int(try osStatus(pair), "launchCount") == launchCount, "a message from the phone launches nothing")

            // Opened: reachable, the message reaches the watch app and its reply comes back.
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("the phone sees the watch reachable") { try pair.status("phone")["reachable"] == .bool(true) }
            let answered = try runTool(["phone", "message", "--home", pair.phoneHome, "--json-file", message, "--json"])
            #expect(answered.status == 0, "\(answered.stderr)")
            #expect(try JSONValue(parsing: answered.stdout)["repliedBy"] == .string("watch"))

            // Closed (in the background, still running): not reachable again, 7007 again.
            _ = try pair.watchOSCall(["app", "close"])
            try pair.waitUntil("the phone sees the watch unreachable") { try pair.status("phone")["reachable"] == .bool(false) }
            let again = try runTool(["phone", "message", "--home", pair.phoneHome, "--json-file", message])
            #expect(again.status == 1)
            #expect(again.stderr.contains("7007 notReachable"), "\(again.stderr)")
        }
    }

    /// SIGKILLs of watch-os (the app dies with it: its tether) and of the watch app (`runway watch os
    /// jetsam`) while the watch records and the phone sends: every run reaches the phone once, in order,
    /// and every transfer of the phone's reaches the watch app.
    @Test func killsOfWatchOSAndOfTheAppWhileBothSideSendLoseNothing() throws {
        try withRunningPair(tag: "wos-kills", watch: nil) { pair in
            let arguments = ["--background-budget-ms", "400"]
            try pair.startWatchOS(arguments)
            var phoneSent = 0
            var tetherChecked = 0
            for round in 0..<14 {
                let recording = try pair.startRecording(20)
                let sent = try runTool([
                    "phone", "transfer-userinfo", "--home", pair.phoneHome, "--json-file", try pair.jsonFile("{\"round\": \(round)}"),
                ])
                if sent.status == 0 { phoneSent += 1 }
                usleep(UInt32.random(in: 0...120_000))
                if round % 2 == 0 {
                    let app = (try? osStatus(pair))?["appPid"]?.intValue
                    pair.killWatchOS()
                    _ = pair.watchOS?.waitForExit(timeout: 10)
                    if let app {
                        // The app never outlives its OS.
                        try pair.waitUntil("the watch app dies with watch-os", timeout: 10) { access("/proc/\(app)", F_OK) != 0 }
                        tetherChecked += 1
                    }
                    try pair.startWatchOS(arguments)
                } else {
                    _ = try runTool(["watch", "os", "jetsam", "--home", pair.watchHome])
                }
                _ = try pair.finish(recording)
            }
            #expect(tetherChecked > 0, "watch-os was killed while its app ran at least once")
            #expect(phoneSent == 14)
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntilDrained(timeout: 300)
            try pair.waitUntil("the phone's transfers reached the watch app", timeout: 120) {
                try pair.status("phone")["outstandingUserInfoTransfers"]?.intValue == 0
            }
            let report = try pair.check()
            #expect(report.isClean, "\(report.violations.joined(separator: "\n"))")
            #expect(report.stored > 0)
            // Each of the phone's transfers is in the watch app's store (once per transfer number).
            let watchStore = try Database(path: pair.watchAppStore, readOnly: true)
            defer { watchStore.close() }
            #expect(try watchStore.scalarInt("SELECT count(DISTINCT transfer_seq) FROM received_userinfo") == Int64(phoneSent))
        }
    }

    @Test func badCommandLinesAndConflictsAreOneLine() throws {
        try withPair(tag: "wos-bad") { pair in
            for arguments in [
                ["--background-budget-ms", "0"], ["--background-budget-ms", "soon"], ["--launch-timeout-ms", "0"], ["--app", pair.root + "/none"],
                ["--bundle-id", "a/b"],
            ] {
                let result = try runTool(["--home", pair.watchHome] + arguments, binary: "watch-os")
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix("watch-os: "), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: pair.watchHome + "/os.sock"), "nothing bound")
            }
            try pair.startWatchOS()
            let second = try runTool(["--home", pair.watchHome], binary: "watch-os")
            #expect(second.status == 1)
            #expect(second.stderr.contains("is already run by watch-os"), "\(second.stderr)")
            let agent = try runTool(["--home", pair.watchHome], binary: "watch-agent")
            #expect(agent.status == 1)
            #expect(agent.stderr.contains("is run by watch-os"), "\(agent.stderr)")
        }
    }
}

/// Reachability as Apple defines it, with both OSes simulated: the watch sees the phone reachable while
/// it is in range, its app running or not (a message wakes it), and not once nobody answers; the phone
/// sees the watch only while the watch app is in the foreground.
@Suite(.serialized) struct BothOSesReachabilityTests {
    func watchReachable(_ pair: SimulatedPair) throws -> Bool? { try pair.status("watch")["reachable"]?.boolValue }

    @Test func theWatchSeesThePhoneInRangeWithItsAppNotRunningAndAMessageWakesIt() throws {
        try withPair(tag: "reach-both") { pair in
            try pair.startPhoneOS()
            try pair.startWatchOS()
            _ = try pair.watchOSCall(["app", "open"])
            // The phone app is not running: phone-os declines the watch's hello, and that is the phone in range.
            try pair.waitUntil("the watch sees the phone reachable") { try watchReachable(pair) == true }
            #expect(try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue == "not running")
            #expect(try pair.status("watch")["linked"] == .bool(false))

            // A message wakes the phone app, and is answered.
            let path = pair.root + "/ping.json"
            try #"{"ping": 1}"#.write(toFile: path, atomically: true, encoding: .utf8)
            let reply = try runTool(["watch", "message", "--home", pair.watchHome, "--json-file", path, "--json"])
            #expect(reply.status == 0, "\(reply.stderr)")
            #expect(try JSONValue(parsing: reply.stdout)["repliedBy"] == .string("phone"))
            #expect(try pair.phoneOSCall(["os", "status"])["launches"]?["message"]?.intValue == 1)
            // The phone sees the watch app in the foreground.
            try pair.waitUntil("the phone sees the watch reachable") { try pair.status("phone")["reachable"] == .bool(true) }

            // Out of range (the link's conditions), and back.
            #expect(try runTool(["link", "set", "--range", "out", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("out of range: not reachable") { try watchReachable(pair) == false }
            #expect(try runTool(["link", "set", "--range", "near", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("in range again") { try watchReachable(pair) == true }

            // The watch app in the background: reachable to neither (watchOS: only the foreground app).
            _ = try pair.watchOSCall(["app", "close"])
            try pair.waitUntil("the phone no longer reaches the watch") {
                (try? pair.status("phone")["reachable"]) != .bool(true)
            }
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("reachable again") { try watchReachable(pair) == true }

            // The phone gone (nobody listens on its link socket): not reachable.
            #expect(pair.phoneOS?.stop() == 0)
            try pair.waitUntil("the phone gone: not reachable") { try watchReachable(pair) == false }
        }
    }
}

/// A workout keeps the watch app running with a high priority in the background: watch-os runs no budget
/// for it, and the phone sees it reachable; once the run ends, the budget reclaims it and the phone no
/// longer reaches it.
@Suite(.serialized) struct WatchWorkoutLifeTests {
    @Test func aRunningWorkoutKeepsTheWatchAppAliveAndReachableInTheBackground() throws {
        try withRunningPair(tag: "wos-workout", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "300"])
            try pair.watchRun(["start"])  // the user starts a run: the app opens
            try pair.feed([[60, 200, 360, 150], [120, 400, 360, 150]])
            _ = try pair.watchOSCall(["app", "close"])
            usleep(1_500_000)  // five budgets
            let status = try pair.watchOSCall(["os", "status"])
            #expect(status["appState"]?.stringValue == "background", "a workout keeps it alive: \(status.text)")
            #expect(status["reclaims"]?.intValue == 0)
            try pair.waitUntil("the phone sees the watch reachable during the workout") { try pair.status("phone")["reachable"] == .bool(true) }
            let path = pair.root + "/ping.json"
            try #"{"ping": 2}"#.write(toFile: path, atomically: true, encoding: .utf8)
            let reply = try runTool(["phone", "message", "--home", pair.phoneHome, "--json-file", path, "--json"])
            #expect(reply.status == 0, "\(reply.stderr)")

            // The run ends: the budget runs again and reclaims the app; the phone no longer reaches it.
            try pair.stopWatchRun()
            try pair.waitUntil("the app is reclaimed") { try pair.watchOSCall(["os", "status"])["reclaims"]?.intValue ?? 0 >= 1 }
            try pair.waitUntil("the phone no longer reaches the watch") { try pair.status("phone")["reachable"] == .bool(false) }
            try pair.expectDrainedAndClean(stored: 1)
        }
    }
}
