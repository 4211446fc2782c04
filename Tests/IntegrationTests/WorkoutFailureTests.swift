import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

extension SimulatedPair {
    /// `runway watch os status --json`.
    func watchOSStatus() throws -> JSONValue { try watchOSCall(["os", "status"]) }

    /// SIGKILLs the watch app watch-os launched (the app's crash, as the user never sees it coming).
    func killWatchApp() throws {
        let pid = try #require(try watchOSStatus()["appPid"]?.intValue, "the watch app is not running")
        kill(pid_t(pid), SIGKILL)
        try waitUntil("watch-os reaps the killed app") { try watchOSStatus()["appPid"]?.intValue != pid }
    }

    /// Under watch-os: the phone app's start-up context launches the watch app once (the link handed from
    /// watch-os to the app and back); waits until that launch is over and the phone is linked again, so
    /// that what follows does not race the hand-over.
    func waitUntilWatchOSSettles() throws {
        try waitUntil("the phone's queue for the watch is empty", timeout: 30) { try status("phone")["outstandingUserInfoTransfers"]?.intValue == 0 }
        try waitUntil("watch-os launched the app for the phone's context and it is down again", timeout: 60) {
            let os = try watchOSStatus()
            return (os["launchCount"]?.intValue ?? 0) >= 1 && os["appState"]?.stringValue == "not running"
        }
        try waitUntil("the phone is linked to the watch", timeout: 30) { try status("phone")["linked"] == .bool(true) }
    }

    /// A phone-led run, started and confirmed, with one batch of samples (0.4 km): its id.
    func confirmedPhoneLedRun() throws -> String {
        try waitUntil("the phone is linked to the watch", timeout: 30) { try status("phone")["linked"] == .bool(true) }
        let id = try #require(try phoneRun(["start"])["runId"]?.stringValue)
        try waitUntil("the watch mirrors the run", timeout: 15) { try mirroringState() == "confirmed" }
        try phoneRun(["sample", "--json-file", try writeSamples(MirroredStopTests.samples)])
        return id
    }

    /// The samples as a `--json-file` in the pair's directory.
    func writeSamples(_ samples: [[Double]], name: String = "samples") throws -> String {
        let path = root + "/" + name + ".json"
        try JSONValue.array(samples.map { .array($0.map(JSONValue.number)) }).text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// Issue 51's failure 4 reproduced through the real binaries (the watch under watch-os, as a user runs
/// it), with the invariant checker counting the run's Health saves across both devices' stores.
@Suite(.serialized) struct WorkoutFailureTests {
    /// watch-os started (with `arguments`), RunWay's watch app opened, a run started and fed, the app
    /// closed, then SIGKILLed mid-run: the run's id, and watch-os's launches before the kill.
    func killTheAppMidRun(_ pair: SimulatedPair, watchOS arguments: [String]) throws -> (id: String, launches: Int) {
        try pair.startWatchOS(arguments)
        _ = try pair.watchOSCall(["app", "open"])
        let id = try #require(try pair.watchRun(["start"])["runId"]?.stringValue)
        try pair.feed(MirroredStopTests.samples)
        _ = try pair.watchOSCall(["app", "close"])
        let launches = try pair.watchOSStatus()["launchCount"]?.intValue ?? 0
        try pair.killWatchApp()
        return (id, launches)
    }

    /// Failure 4: watch-os left a workout app killed mid-run dead, so the run's Health save waited for the
    /// user to open the watch app. watchOS relaunches an app whose workout session was running when it
    /// died and calls its delegate's `handleActiveWorkoutRecovery()`
    /// (https://developer.apple.com/documentation/watchkit/wkextensiondelegate/handleactiveworkoutrecovery():
    /// "Tells the delegate when the app relaunches after crashing during an active workout session."), and
    /// the app takes its session back with `HKHealthStore.recoverActiveWorkoutSession(completion:)`
    /// (https://developer.apple.com/documentation/healthkit/hkhealthstore/recoveractiveworkoutsession(completion:):
    /// "If your app crashes during an active workout session, the system calls your extension delegate's
    /// handleActiveWorkoutRecovery() method the next time your app launches.").
    @Test func watchOSRelaunchesAWorkoutAppKilledMidRun() throws {
        try withRunningPair(tag: "w51r", watch: nil) { pair in
            let (id, launches) = try killTheAppMidRun(pair, watchOS: [])
            try pair.waitUntil("watch-os relaunches the app for its workout", timeout: 20) {
                let status = try pair.watchOSStatus()
                return status["launchCount"]?.intValue == launches + 1 && status["appState"]?.stringValue == "background"
            }
            #expect(try pair.watchOSStatus()["launches"]?["workout-recovery"]?.intValue == 1)
            // The app's delegate is told once it has launched, after watch-os counts the launch: waited for.
            try pair.waitUntil("the relaunched app's delegate is told") {
                try runTool(["watch", "events", "--home", pair.watchHome, "--json"]).stdout.split(separator: "\n").contains {
                    try JSONValue(parsing: String($0))["call"] == .string("handleActiveWorkoutRecovery")
                }
            }
            try waitForLogLine(pair, pair.watchLog, "event=health.session-recovered", "runId=\(id)")
            let status = try pair.watchRun(["status"])
            #expect(status["state"] == .string("running") && status["runId"] == .string(id) && status["samples"] == .integer(2))
            #expect(try pair.stopWatchRun()["id"] == .string(id))
            pair.noteFinishedRun(id)
            try pair.expectDrainedAndClean(stored: 1)
            #expect(try pair.healthUUIDs("watch") == [id])
        }
    }

    /// The old path kept behind `watch-os --no-workout-recovery`, and the test's condition failing on it:
    /// the killed app is not relaunched, the run is in no Health store, and it waits for the user to open
    /// the watch app (which finds the session, and the run is saved once).
    @Test func withoutWorkoutRecoveryTheKilledWorkoutAppStaysDead() throws {
        try withRunningPair(tag: "w51o", watch: nil) { pair in
            let (id, launches) = try killTheAppMidRun(pair, watchOS: ["--no-workout-recovery"])
            try waitForLogLine(pair, pair.watchLog, "event=os.workout-recovery-off")
            let status = try pair.watchOSStatus()
            #expect(status["appPid"]?.intValue == nil && status["launchCount"]?.intValue == launches, "relaunched: \(status)")
            #expect(status["launches"]?["workout-recovery"] == nil)
            #expect(try pair.healthUUIDs("watch").isEmpty, "the run waits, in no Health store")
            // The user opens the watch app at last: it finds its session, and the run is saved once.
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("the opened app has its run back", timeout: 20) { try pair.watchRun(["status"])["runId"] == .string(id) }
            #expect(try pair.stopWatchRun()["id"] == .string(id))
            pair.noteFinishedRun(id)
            try pair.expectDrainedAndClean(stored: 1)
            #expect(try pair.healthUUIDs("watch") == [id])
        }
    }
}

/// Item 4 with an app that is not RunWay's (`wrist-app`, written as for watchOS): watch-os relaunches it
/// after it died during its workout session, WatchKit calls `handleActiveWorkoutRecovery()` on its
/// delegate — the pre-watchOS 7 `WKExtensionDelegate` and `WKApplicationDelegate` alike — and
/// `recoverActiveWorkoutSession` hands back the session in the state it was in (paused here). Apple:
/// "Tells the delegate when the app relaunches after crashing during an active workout session."
/// (https://developer.apple.com/documentation/watchkit/wkextensiondelegate/handleactiveworkoutrecovery()).
/// An app the system itself ended (jetsam) is not relaunched: it finds the session at its next launch.
@Suite(.serialized) struct WorkoutRecoveryHostedTests {
    @Test(arguments: ["--extension-delegate", "--application-delegate"])
    func aHostedWorkoutAppKilledMidWorkoutIsRelaunchedAndRecoversItsPausedSession(delegate: String) throws {
        try withRunningPair(tag: "w51h", watch: nil) { pair in
            var arguments = ["--app", WatchKitTests.wrist, "--app-arg=--mirror=1", "--app-arg=--start-workout", "--app-arg=--pause-workout"]
            if delegate == "--application-delegate" { arguments.append("--app-arg=--application-delegate") }
            try pair.startWatchOS(arguments)
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("the app's workout runs, paused") { WatchKitTests.lines(pair, "mirror.log").contains("state 4") }
            _ = try pair.watchOSCall(["app", "close"])
            let launches = try pair.watchOSStatus()["launchCount"]?.intValue ?? 0
            try pair.killWatchApp()
            try pair.waitUntil("watch-os relaunches it for its workout", timeout: 20) {
                try pair.watchOSStatus()["launches"]?["workout-recovery"]?.intValue == 1
            }
            #expect(try pair.watchOSStatus()["launchCount"]?.intValue == launches + 1)
            try pair.waitUntil("the app took its session back") { WatchKitTests.lines(pair, "mirror.log").contains { $0.hasPrefix("recovered") } }
            #expect(WatchKitTests.lastLaunch(pair) == ["didFinishLaunching watchOS", "handleActiveWorkoutRecovery"])
            #expect(WatchKitTests.lines(pair, "mirror.log").last == "recovered 4", "in the state it was in: paused")
            // The system's own end of the app (jetsam) relaunches nothing.
            _ = try pair.watchOSCall(["os", "jetsam"])
            try pair.waitUntil("the app is gone") { try pair.watchOSStatus()["appState"]?.stringValue == "not running" }
            usleep(1_500_000)  // past the backoff a crash would have waited for
            #expect(try pair.watchOSStatus()["launches"]?["workout-recovery"]?.intValue == 1)
            try pair.expectClean()
        }
    }
}
