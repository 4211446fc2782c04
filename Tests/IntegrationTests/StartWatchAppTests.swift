import Foundation
import JSONText
import PairTesting
import Testing

/// HealthKit's `startWatchApp(with:completion:)` through the real binaries: the phone's app (`probe-app
/// --start-watch-app`, under phone-os) asks; the system carries the configuration to watch-os, which
/// launches the watch app (`wrist-app`) in the background for it, and WatchKit hands it to the app's
/// delegate (`handle(_ workoutConfiguration:)`); the phone's completion says `ok`.
@Suite(.serialized) struct StartWatchAppTests {
    static func lines(_ home: String, _ bundle: String, _ name: String) -> [String] {
        let text = (try? String(contentsOfFile: home + "/apps/\(bundle)/Documents/" + name, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    @Test func startWatchAppLaunchesTheWatchAppAndHandsItTheConfiguration() throws {
        try withRunningPair(tag: "hk-swa", watch: nil, phone: nil) { pair in
            try pair.startWatchOS(["--app", WatchKitTests.wrist, "--background-budget-ms", "120000"])
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--start-watch-app", "--background-budget-ms", "120000"])
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the phone's startWatchApp is accepted", timeout: 20) {
                Self.lines(pair.phoneHome, "probe-app", "workout.log").contains("ok")
            }
            // running (37), outdoor (3): the configuration the phone gave.
            try pair.waitUntil("the watch app's delegate handled the workout", timeout: 20) {
                Self.lines(pair.watchHome, WatchKitTests.bundle, "lifecycle.log").contains("handle workout 37 3")
            }
            let launches = Self.lines(pair.watchHome, WatchKitTests.bundle, "lifecycle.log").filter { $0.hasPrefix("launch ") }
            #expect(launches.count >= 1)
            let log = try String(contentsOfFile: pair.watchLog, encoding: .utf8)
            #expect(log.contains("the phone started a workout"), "watch-os launched the app for the workout: \(log.suffix(3000))")
        }
    }

    /// With the watch out of reach (no watch running), the system cannot carry the request: the
    /// completion fails with HealthKit's `errorHealthDataUnavailable` (1), and nothing is queued.
    @Test func startWatchAppWithNoWatchFails() throws {
        try withRunningPair(tag: "hk-swa2", watch: nil, phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--start-watch-app", "--background-budget-ms", "120000"])
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the phone's startWatchApp fails", timeout: 20) {
                Self.lines(pair.phoneHome, "probe-app", "workout.log").contains("failed 1")
            }
            #expect(!Self.lines(pair.phoneHome, "probe-app", "workout.log").contains("ok"))
        }
    }
}
