import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Posix
import Testing

/// Issue 49, item 6: an app is an app, session or not. Through the real binaries, with apps of our own in
/// the shape of Apple's mirroring sample (`workout-phone`, `workout-watch`: HealthKit, UIKit, WatchKit and
/// ClockKit, no `WCSession` anywhere), and `probe-app` activating late or never:
///
/// - an app with no session is launched (ready once its main queue runs), foregrounded, backgrounded,
///   reclaimed and SIGKILLed like any other — before, phone-os waited for a `READY=1` that only a
///   session's activation sent, and killed it at the launch time-out as a failed launch;
/// - its `Bundle.main` is its bundle (the OS's bundle id and the installed version) — before, nil, and
///   the sample's `Bundle.main.bundleIdentifier!` crashed it at launch;
/// - its `Date()` is the device clock's, moved by `runway clock` while it runs — before, the host's;
/// - HealthKit's `startWatchApp` and the mirrored workout work without a session, and ClockKit's
///   `activeComplications` shows the complication on the face — before, "no watch is paired" and none;
/// - an app that activates its session late gets what waited for it, none lost, through SIGKILLs.
///
/// Apple: "Your app doesn't need to activate a session to launch" is nowhere said in those words, but
/// `WCSession`'s page says to activate "early in your app's life cycle" *if* the app uses the session, and
/// Apple's mirroring sample ("Building a multidevice workout app") has no session at all.
@Suite(.serialized) struct SessionFreeAppTests {
    static var phoneApp: String { Binaries.path("workout-phone") }
    static var watchApp: String { Binaries.path("workout-watch") }

    static func lines(_ home: String, _ bundle: String, _ file: String = "workout.log") -> [String] { SampleAppLog.lines(home, bundle, file) }

    static func phoneLines(_ pair: SimulatedPair) -> [String] { lines(pair.phoneHome, "workout-phone") }
    static func watchLines(_ pair: SimulatedPair) -> [String] { lines(pair.watchHome, "workout-watch") }

    static func texts(_ lines: [String], _ prefix: String) -> [String] { SampleAppLog.texts(lines, prefix) }

    func phoneStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.phoneOSCall(["os", "status"]) }

    /// The device clock's now, as `runway clock show` gives it.
    func deviceNow(_ home: String) throws -> Double {
        let shown = try runTool(["clock", "show", "--json", "--home", home])
        guard shown.status == 0, let text = try JSONValue(parsing: Array(shown.stdout.utf8))["now"]?.stringValue,
            case let .success(now) = TimeText.parseInstant(text)
        else { throw HarnessError("clock show: \(shown.stdout) \(shown.stderr)") }
        return now
    }

    /// The app's `date T STATE` lines: (T, STATE).
    static func dates(_ lines: [String]) -> [(Double, String)] {
        texts(lines, "date").compactMap { text in
            let parts = text.split(separator: " ")
            guard parts.count == 2, let time = Double(parts[0]) else { return nil }
            return (time, String(parts[1]))
        }
    }

    // MARK: - Launched without a session

    @Test func anAppWithNoSessionIsLaunchedForegroundedBackgroundedReclaimedAndKilled() throws {
        try withPair(tag: "nosess") { pair in
            try pair.startPhoneOS(["--app", Self.phoneApp, "--background-budget-ms", "500", "--launch-timeout-ms", "5000"])
            // `app open` answers once the app is ready: launched, its main queue running.
            _ = try pair.phoneOSCall(["app", "open"])
            var status = try phoneStatus(pair)
            #expect(status["appState"]?.stringValue == "foreground", "\(status.text)")
            #expect(status["readyReports"]?.intValue == 1)
            let launched = Self.texts(Self.phoneLines(pair), "launched")
            // Bundle.main: the OS's bundle id (the executable's name by default), the installed version, the name.
            #expect(launched == ["workout-phone 1.0 workout-phone active"], "\(Self.phoneLines(pair))")
            _ = try pair.phoneOSCall(["app", "close"])
            try pair.waitUntil("the app heard it went to the background") { Self.dates(Self.phoneLines(pair)).contains { $0.1 == "background" } }
            try pair.waitUntil("reclaimed at the end of its budget") { try phoneStatus(pair)["appState"]?.stringValue == "not running" }
            status = try phoneStatus(pair)
            #expect(status["reclaims"]?.intValue == 1)
            #expect(status["failedLaunches"]?.intValue == 0, "\(status.text)")
            // Opened again, then SIGKILLed: the OS sees it die; the user's next open launches it again.
            _ = try pair.phoneOSCall(["app", "open"])
            let pid = try #require(try phoneStatus(pair)["appPid"]?.intValue)
            kill(pid_t(pid), SIGKILL)
            try pair.waitUntil("the OS saw it die") { try phoneStatus(pair)["appState"]?.stringValue == "not running" }
            _ = try pair.phoneOSCall(["app", "open"])
            status = try phoneStatus(pair)
            #expect(status["appState"]?.stringValue == "foreground")
            #expect(status["readyReports"]?.intValue == 3)
            #expect(Self.texts(Self.phoneLines(pair), "launched").count == 3)
            #expect(status["lastFailure"]?.stringValue?.contains("ready") != true, "never a launch that did not become ready: \(status.text)")
        }
    }

    /// `probe-app --never-activate` (HealthKit in it, no session): launched in the background for the
    /// watch's runs, it is ready — no failed launch, no backoff — and takes none of them: they stay queued
    /// on the watch (its system holds the link for HealthKit, the app's traffic is not taken).
    @Test func anAppThatNeverActivatesIsReadyAndTakesNothing() throws {
        try withPair(tag: "noact") { pair in
            try pair.startPhoneOS([
                "--app", YourOwnAppTests.probe, "--app-arg=--never-activate", "--background-budget-ms", "300", "--launch-timeout-ms", "1000",
            ])
            try pair.startWatch()
            _ = try pair.record(3)
            try pair.waitUntil("launched and ready in the background") { try phoneStatus(pair)["readyReports"]?.intValue ?? 0 >= 1 }
            try pair.waitUntil("its launch is over") { try phoneStatus(pair)["reclaims"]?.intValue ?? 0 >= 1 }
            let status = try phoneStatus(pair)
            #expect(status["failedLaunches"]?.intValue == 0, "ready, never a failure: \(status.text)")
            #expect(try pair.outstandingTransfers() == 3, "nothing taken by an app that never activated")
            #expect(YourOwnAppTests.received(home: pair.phoneHome).isEmpty)
            #expect(try pair.status("watch")["outstandingUserInfoTransfers"]?.intValue == 3, "kept by the watch, none lost")
        }
    }

    /// `probe-app --activate-after-ms=800`: its system activated the session at launch (HealthKit is in
    /// it) and held the watch's runs for it; it activates later and joins — it hears activation, the link
    /// starts again, and every run arrives once, in order, through SIGKILLs of the app.
    @Test func anAppThatActivatesLateGetsWhatWaitedThroughKills() throws {
        try withPair(tag: "lateact") { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--activate-after-ms=800", "--background-budget-ms", "3000"])
            try pair.startWatch()
            for round in 0..<6 {
                _ = try pair.record(20)
                if round % 2 == 1, let pid = try phoneStatus(pair)["appPid"]?.intValue { kill(pid_t(pid), SIGKILL) }
                usleep(300_000)
            }
            try pair.waitUntilDrained()
            let report = DeliveryReport.check(sent: pair.recorded, received: YourOwnAppTests.received(home: pair.phoneHome))
            #expect(report.isClean, "\(report)")
            #expect(report.sent == 120)
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.contains("event=session.app-joined"), "the app joined the session its system ran")
        }
    }

    // MARK: - The device's clock in the app

    /// The app's `Date()` is the device clock: at launch, after `runway clock advance 2m` while it runs
    /// (read when it goes to the background), frozen (`clock set … --frozen`), and in the process launched
    /// after a SIGKILL.
    @Test func theAppsDateFollowsTheDeviceClockWhileItRuns() throws {
        try withPair(tag: "appdate") { pair in
            try pair.startPhoneOS(["--app", Self.phoneApp, "--background-budget-ms", "600000"])
            _ = try pair.phoneOSCall(["app", "open"])
            let atLaunch = try #require(Self.dates(Self.phoneLines(pair)).first)
            #expect(abs(atLaunch.0 - Date().timeIntervalSince1970) < 30, "no offset yet: \(atLaunch)")
            let advanced = try runTool(["clock", "advance", "2m", "--home", pair.phoneHome])
            #expect(advanced.status == 0, "\(advanced.stderr)")
            _ = try pair.phoneOSCall(["app", "close"])
            try pair.waitUntil("the app noted its time in the background") { Self.dates(Self.phoneLines(pair)).contains { $0.1 == "background" } }
            let background = try #require(Self.dates(Self.phoneLines(pair)).last { $0.1 == "background" })
            let device = try deviceNow(pair.phoneHome)
            #expect(abs(background.0 - device) < 30, "the app's Date() is the device's: \(background.0) vs \(device)")
            #expect(background.0 - Date().timeIntervalSince1970 > 90, "two minutes ahead of the host: \(background.0)")
            // Frozen: the app reads the very instant.
            let frozen = try runTool(["clock", "set", "2030-01-01T00:00:00Z", "--frozen", "--home", pair.phoneHome])
            #expect(frozen.status == 0, "\(frozen.stderr)")
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the app noted its time on screen again") { Self.dates(Self.phoneLines(pair)).filter { $0.1 == "active" }.count == 2 }
            #expect(Self.dates(Self.phoneLines(pair)).last { $0.1 == "active" }?.0 == 1_893_456_000)
            // SIGKILLed and launched again: the new process's Date() is the device's from its first line.
            let pid = try #require(try phoneStatus(pair)["appPid"]?.intValue)
            kill(pid_t(pid), SIGKILL)
            try pair.waitUntil("the OS saw it die") { try phoneStatus(pair)["appState"]?.stringValue == "not running" }
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the new launch noted its time") { Self.dates(Self.phoneLines(pair)).filter { $0.1 == "launch" }.count == 2 }
            #expect(Self.dates(Self.phoneLines(pair)).last { $0.1 == "launch" }?.0 == 1_893_456_000, "\(Self.phoneLines(pair))")
        }
    }

    /// The issue's own case, on the watch: after `runway clock advance 2m`, a refresh the app schedules
    /// with `Date(timeIntervalSinceNow: 60)` is a minute ahead of the device's now, not already past (the
    /// host's now + 60 s is a minute behind the device: it fell due at once).
    @Test func aRefreshScheduledAMinuteAheadAfterAClockAdvanceIsAMinuteAhead() throws {
        try withRunningPair(tag: "refresh-date", watch: nil) { pair in
            try pair.startWatchOS(["--app", WatchKitTests.wrist, "--app-arg=--schedule-refresh", "--app-arg=60", "--background-budget-ms", "60000"])
            let advanced = try runTool(["clock", "advance", "2m", "--home", pair.watchHome])
            #expect(advanced.status == 0, "\(advanced.stderr)")
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("the refresh is scheduled") { try pair.watchOSCall(["os", "status"])["backgroundRefreshAt"]?.stringValue != nil }
            let at = try #require(try pair.watchOSCall(["os", "status"])["backgroundRefreshAt"]?.stringValue)
            guard case let .success(refreshAt) = TimeText.parseInstant(at) else { throw HarnessError("not a time: \(at)") }
            let ahead = refreshAt - (try deviceNow(pair.watchHome))
            #expect(ahead > 30 && ahead <= 61, "a minute ahead of the device's now, not \(ahead) s")
            usleep(500_000)
            #expect(try pair.watchOSCall(["os", "status"])["backgroundRefreshesFired"]?.intValue == 0, "not fallen due at once")
        }
    }

    // MARK: - ClockKit alone

    /// A watch app that uses ClockKit alone — `workout-watch` opened by the user with no workout to run:
    /// no `WCSession`, no HealthKit call — is ready at launch (no failed launch), and ClockKit's
    /// `activeComplications` shows the complication the face has: one while it is on the face, none once
    /// it is taken off, read again after a SIGKILL and a new launch. (Apple's `activeComplications`: "the
    /// complications that are currently active on the watch face".)
    @Test func aWatchAppWithOnlyAComplicationIsReadyAndSeesTheFace() throws {
        try withPair(tag: "clk-only") { pair in
            try pair.startWatchOS(["--app", Self.watchApp, "--background-budget-ms", "500", "--launch-timeout-ms", "5000"])
            let on = try runTool(["watch", "complication", "on", "--home", pair.watchHome])
            #expect(on.status == 0, "\(on.stderr)")
            _ = try pair.watchOSCall(["app", "open"])
            // Noted at launch and at each activation (on the main queue, once the app is ready: waited for).
            try pair.waitUntil("the app read the face") { !Self.texts(Self.watchLines(pair), "complications").isEmpty }
            let first = Self.texts(Self.watchLines(pair), "complications")
            #expect(!first.isEmpty && first.allSatisfy { $0 == "1" }, "\(Self.watchLines(pair))")
            #expect(Self.texts(Self.watchLines(pair), "started").isEmpty, "no workout: ClockKit alone")
            let off = try runTool(["watch", "complication", "off", "--home", pair.watchHome])
            #expect(off.status == 0, "\(off.stderr)")
            let pid = try #require(try pair.watchOSCall(["os", "status"])["appPid"]?.intValue)
            kill(pid_t(pid), SIGKILL)
            try pair.waitUntil("the watch's OS saw it die") { try pair.watchOSCall(["os", "status"])["appState"]?.stringValue == "not running" }
            _ = try pair.watchOSCall(["app", "open"])
            /// What the second launch noted.
            func secondLaunch() -> [String] {
                let lines = Self.watchLines(pair)
                guard let start = lines.indices.filter({ lines[$0].hasPrefix("launched ") }).dropFirst().first else { return [] }
                return Self.texts(Array(lines[start...]), "complications")
            }
            try pair.waitUntil("the new launch read the face") { !secondLaunch().isEmpty }
            let second = secondLaunch()
            #expect(!second.isEmpty && second.allSatisfy { $0 == "0" }, "taken off the face: \(Self.watchLines(pair))")
            let status = try pair.watchOSCall(["os", "status"])
            #expect(status["readyReports"]?.intValue == 2, "\(status.text)")
            #expect(status["lastFailure"]?.stringValue?.contains("ready") != true, "never a launch that did not become ready: \(status.text)")
        }
    }

    // MARK: - Apple's mirroring sample's shape: HealthKit only

    func startSample(_ pair: SimulatedPair, metrics: Int) throws {
        try pair.startSampleApps(phone: Self.phoneApp, watch: Self.watchApp, phoneArgument: "--end-after=\(metrics)", watchArgument: "--metrics=\(metrics)") {
            // The complication is on the face (the watch's own setting, answered with the app asleep).
            let face = try runTool(["watch", "complication", "on", "--home", pair.watchHome])
            #expect(face.status == 0, "\(face.stderr)")
        }
    }

    /// The phone's Start starts the watch app's workout (`startWatchApp(toHandle:)`, no "no watch is
    /// paired"); the watch's session is mirrored to the phone; its metrics arrive once and in order; the
    /// phone's End stops it, the watch ends it and saves the workout once; the watch app saw its
    /// complication on the face (ClockKit, no session). The Health invariant over both stores.
    @Test func theMirroringSamplesAppsRunWithNoSession() throws {
        try withPair(tag: "hk-nosess") { pair in
            let metrics = 10
            try startSample(pair, metrics: metrics)
            try pair.waitUntil("the watch saved the workout and the phone's mirror ended", timeout: 60) {
                Self.texts(Self.watchLines(pair), "saved").count == 1 && Self.phoneLines(pair).contains("disconnected")
            }
            let phone = Self.phoneLines(pair)
            let watch = Self.watchLines(pair)
            #expect(Self.texts(phone, "start").last == "ok", "\(phone)")
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(!log.contains("no watch is paired"), "the pairing is known to HealthKit without a session")
            // A mirrored session (type 1), made when the watch started mirroring — the sample does so just
            // before it starts the activity — that follows the primary: running, then ended.
            #expect(Self.texts(phone, "mirrored").first?.hasPrefix("1 ") == true, "\(phone)")
            #expect(Self.texts(phone, "state").contains("2") && Self.texts(phone, "state").last == "3", "\(phone)")
            #expect(Self.texts(watch, "launched").first == "workout-watch 1.0", "\(watch)")
            #expect(Self.texts(watch, "complications").first == "1", "ClockKit sees the complication on the face: \(watch)")
            #expect(Self.texts(watch, "started").first == "37 3", "running, outdoor: \(watch)")
            #expect(watch.contains("mirroring ok"))
            #expect(Self.texts(watch, "state") == ["2", "6", "3"], "running, stopped by the phone, ended: \(watch)")
            let sent = (1...metrics).map { "m-\($0)" }
            let report = DeliveryReport.check(sent: sent, received: Self.texts(phone, "data"), exactlyOnce: true)
            #expect(report.isClean, "watch → phone: \(report)")
            #expect(Set(Self.texts(watch, "sent")) == Set(sent.map { "\($0) ok" }), "\(watch)")
            let uuid = try #require(Self.texts(watch, "saved").first)
            let health = HealthReport.check(runs: [uuid.uppercased()], phoneStore: pair.phoneHome + "/os.sqlite", watchStore: pair.watchHome + "/os.sqlite")
            #expect(health.isClean, "\(health.violations)")
            #expect(health.watchWorkouts == 1 && health.phoneWorkouts == 0)
            #expect(try phoneStatus(pair)["failedLaunches"]?.intValue == 0)
        }
    }

    /// The same, with the phone app SIGKILLed while the metrics come: phone-os launches it again for the
    /// mirror (the watch's `hello` says one waits), its handler takes the mirror again, and every metric
    /// reaches it — at least once, in order — and the workout is saved once.
    @Test func theSamplesPhoneAppKilledMidWorkoutGetsTheMirrorBackAndEveryMetric() throws {
        try withPair(tag: "hk-nosess-kill") { pair in
            let metrics = 40
            try startSample(pair, metrics: metrics)
            try pair.waitUntil("the phone has m-5", timeout: 30) { Self.texts(Self.phoneLines(pair), "data").contains("m-5") }
            let pid = try #require(try phoneStatus(pair)["appPid"]?.intValue)
            kill(pid_t(pid), SIGKILL)
            try pair.waitUntil("the watch saved the workout and the phone's mirror ended", timeout: 90) {
                Self.texts(Self.watchLines(pair), "saved").count == 1 && Self.phoneLines(pair).contains("disconnected")
            }
            let phone = Self.phoneLines(pair)
            #expect(Self.texts(phone, "mirrored").count >= 2, "the mirror handed again after the kill: \(phone)")
            let sent = (1...metrics).map { "m-\($0)" }
            let report = DeliveryReport.check(sent: sent, received: Self.texts(phone, "data"))
            #expect(report.isClean, "watch → phone through a kill: \(report)")
            let uuid = try #require(Self.texts(Self.watchLines(pair), "saved").first)
            let health = HealthReport.check(runs: [uuid.uppercased()], phoneStore: pair.phoneHome + "/os.sqlite", watchStore: pair.watchHome + "/os.sqlite")
            #expect(health.isClean, "\(health.violations)")
            #expect(health.watchWorkouts == 1)
        }
    }
}
