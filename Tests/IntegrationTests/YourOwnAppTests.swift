import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// An app that is not RunWay's on the simulated devices (`probe-app`: the public WatchConnectivity
/// only, saving each userInfo's id before its callback returns), through the real binaries: hosted by
/// phone-os with background launches, reclaims and SIGKILLs; as the watch's app (`watch-agent --app`);
/// and the ways an app can fail to start, which the OS reports and backs off from, never a launch loop.
@Suite struct YourOwnAppTests {
    static var probe: String { Binaries.path("probe-app") }

    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.phoneOSCall(["os", "status"]) }

    /// What the probe saved, in arrival order (repeats included), in its container on `home`.
    static func received(home: String) -> [String] {
        let path = home + "/apps/probe-app/Documents/received.log"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// SIGKILLs the running app (phone-os sees it die and launches it again when the watch has more).
    func killApp(_ pair: SimulatedPair) throws {
        if let pid = try osStatus(pair)["appPid"]?.intValue { kill(pid_t(pid), SIGKILL) }
    }

    /// The issue's "done when", in our own suite: a phone app of the developer's receives RunWay's
    /// watch's runs through background launches, reclaims and SIGKILLs of the app, none lost, in order.
    @Test func aPhoneAppOfYourOwnReceivesTheWatchsRunsThroughLaunchesReclaimsAndKills() throws {
        let (report, status) = try receiveThroughKills(appArguments: [])
        #expect(report.isClean, "\(report)")
        #expect(report.sent == 400)
        #expect(status["launchCount"]?.intValue ?? 0 >= 2, "launched in the background again after kills and reclaims")
        #expect(status["reclaims"]?.intValue ?? 0 >= 1)
        print("your own app under phone-os: \(report); launches \(status["launchCount"]?.intValue ?? -1), reclaims \(status["reclaims"]?.intValue ?? -1)")
    }

    /// The same run against an app that holds what it receives in memory: the check names the loss.
    @Test func theCheckCatchesAnAppThatKeepsWhatItReceivesInMemory() throws {
        let (report, _) = try receiveThroughKills(appArguments: ["--app-arg=--save-in-memory"])
        #expect(!report.isClean)
        #expect(report.lost.count == 400, "\(report)")
    }

    func receiveThroughKills(appArguments: [String]) throws -> (DeliveryReport, JSONValue) {
        try withPair(tag: "own-app") { pair in
            try pair.startPhoneOS(["--app", Self.probe, "--background-budget-ms", "400"] + appArguments)
            try pair.startWatch()
            for round in 0..<20 {
                try pair.record(20)
                if round % 4 == 1 { try? killApp(pair) }
                usleep(100_000)
            }
            try pair.waitUntilDrained()
            // The last background launch ends by its budget: read the OS's figures once it has.
            try pair.waitUntil("the app is reclaimed") { try osStatus(pair)["appState"]?.stringValue == "not running" }
            let status = try osStatus(pair)
            let report = DeliveryReport.check(sent: pair.recorded, received: Self.received(home: pair.phoneHome))
            return (report, status)
        }
    }

    /// Both apps the developer's: the watch's (`watch-agent --app`) sends, the phone's receives.
    @Test func bothAppsYourOwnTheWatchsSendsArriveInOrder() throws {
        try withPair(tag: "own-both") { pair in
            pair.watchArguments = ["--app", Self.probe, "--app-arg=--send", "--app-arg=300"]
            try pair.startPhoneOS(["--app", Self.probe, "--background-budget-ms", "300"])
            try pair.startWatch()
            try pair.waitUntilDrained()
            let sent = (1...300).map { "probe-\($0)" }
            let report = DeliveryReport.check(sent: sent, received: Self.received(home: pair.phoneHome))
            #expect(report.isClean, "\(report)")
            #expect(FileManager.default.fileExists(atPath: pair.watchHome + "/apps/probe-app/Documents/sent.done"), "the watch's app ran in its container")
            // The session's own commands answer for any app.
            #expect(try pair.status("watch")["activationState"]?.stringValue == "activated")
        }
    }

    /// Each way an app can fail to start: phone-os reports it in `os status` and the log, and backs off —
    /// a handful of launches in seconds, never a loop; the watch's transfers stay queued, none lost. (An
    /// app that never activates its session is not one of them since issue 49: it launches, and takes
    /// nothing — `SessionFreeAppTests.anAppThatNeverActivatesIsReadyAndTakesNothing`.)
    @Test(arguments: ["--crash-at-launch", "--exit-at-once"])
    func anAppThatCannotStartIsReportedAndBackedOff(_ misbehaviour: String) throws {
        try withPair(tag: "own-bad") { pair in
            try pair.startPhoneOS(["--app", Self.probe, "--app-arg=\(misbehaviour)", "--launch-timeout-ms", "500"])
            try pair.startWatch()
            let ids = try pair.record(3)
            try pair.waitUntil("two failed launches", timeout: 30) { try osStatus(pair)["failuresInARow"]?.intValue ?? 0 >= 2 }
            sleep(3)
            let status = try osStatus(pair)
            #expect(status["lastFailure"]?.stringValue != nil)
            #expect(status["launchCount"]?.intValue ?? 99 <= 6, "backed off, not a launch loop: \(status["launchCount"] ?? .null)")
            #expect(try pair.outstandingTransfers() == 3, "nothing acknowledged by an app that never took it")
            #expect(Self.received(home: pair.phoneHome).isEmpty)
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.contains("event=os.app-failed"))
            _ = ids
        }
    }

    /// An `--app` that is missing or not executable: one line, exit 2, at start.
    @Test(arguments: ["missing", "not-executable", "directory"])
    func aBadAppIsExitTwoAtStart(_ kind: String) throws {
        try withPair(tag: "own-arg") { pair in
            let path: String
            switch kind {
            case "missing": path = pair.root + "/no-such-app"
            case "not-executable":
                path = pair.root + "/plain"
                #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
            default: path = pair.root
            }
            let os = try runTool(["--home", pair.phoneHome, "--app", path], binary: "phone-os")
            #expect(os.status == 2 && os.stderr.contains("not an executable"), "\(os.stderr)")
            #expect(os.stderr.split(separator: "\n").count <= 2)
            let watch = try runTool(["--home", pair.watchHome, "--app", path], binary: "watch-agent")
            #expect(watch.status == 2 && watch.stderr.contains("not an executable"), "\(watch.stderr)")
            let mixed = try runTool(["--home", pair.watchHome, "--app", Self.probe, "--gpws", "legacy"], binary: "watch-agent")
            #expect(mixed.status == 2 && mixed.stderr.contains("RunWay's watch app's switch"), "\(mixed.stderr)")
            let saved = try runTool(["--home", pair.phoneHome, "--app", Self.probe, "--save-path", "ui-drain"], binary: "phone-os")
            #expect(saved.status == 2, "\(saved.stderr)")
        }
    }

    /// The checker itself, on made-up histories: each kind of violation, and what at-least-once allows.
    @Test func theDeliveryCheckNamesEachViolation() {
        let sent = ["a", "b", "c", "d"]
        #expect(DeliveryReport.check(sent: sent, received: sent).isClean)
        #expect(DeliveryReport.check(sent: sent, received: ["a", "b", "b", "c", "d"]).isClean, "at least once")
        #expect(!DeliveryReport.check(sent: sent, received: ["a", "b", "b", "c", "d"], exactlyOnce: true).isClean)
        #expect(DeliveryReport.check(sent: sent, received: ["a", "c", "d"]).lost == ["b"])
        #expect(DeliveryReport.check(sent: sent, received: ["a", "c", "b", "d"]).outOfOrder?.earlier == "b")
        #expect(DeliveryReport.check(sent: sent, received: ["a", "b", "c", "a", "d"]).outOfOrder == nil, "a resend is a repeat, not a reorder")
        #expect(DeliveryReport.check(sent: sent, received: sent + ["x"]).unexpected == ["x"])
    }
}

/// `UIApplication`'s state under phone-os, through an app of one's own: RunWay 1.3's bug written the
/// way an iOS developer writes it (save only once on screen) loses what background launches took; the
/// same app opened by the user (`didBecomeActiveNotification`) saves what it held.
@Suite struct ApplicationStateTests {
    func received(_ pair: SimulatedPair) -> [String] { YourOwnAppTests.received(home: pair.phoneHome) }

    @Test func savingOnlyOnScreenLosesWhatBackgroundLaunchesTook() throws {
        try withPair(tag: "own-screen") { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--save-on-screen", "--background-budget-ms", "300"])
            try pair.startWatch()
            try pair.record(50)
            try pair.waitUntilDrained()
            try pair.waitUntil("the app is reclaimed") { try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue == "not running" }
            _ = try pair.phoneOSCall(["app", "open"])
            let report = DeliveryReport.check(sent: pair.recorded, received: received(pair))
            #expect(report.lost.count == 50, "every run acknowledged in the background was held in memory and died with it: \(report)")
        }
    }

    @Test func openingTheAppBringsItsHeldEntriesToDisk() throws {
        try withPair(tag: "own-open") { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--save-on-screen", "--background-budget-ms", "60000"])
            try pair.startWatch()
            try pair.record(20)
            try pair.waitUntilDrained()
            #expect(received(pair).isEmpty, "launched in the background: nothing saved yet")
            _ = try pair.phoneOSCall(["app", "open"])  // the same process comes to the foreground
            try pair.waitUntil("the held entries are saved") { received(pair).count == 20 }
            #expect(DeliveryReport.check(sent: pair.recorded, received: received(pair)).isClean)
            try pair.record(5)
            try pair.waitUntilDrained()
            try pair.waitUntil("saved at once while on screen") { received(pair).count == 25 }
        }
    }
}
