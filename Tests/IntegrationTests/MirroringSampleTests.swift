import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Issue 49's "Apple's mirroring sample's two apps, with only their SwiftUI views left out, run
/// unchanged": `mirroring-phone` and `mirroring-watch` are written anew in the sample's idioms ("Building a
/// multidevice workout app") — a main-actor `ObservableObject` `WorkoutManager` with `@Published` state and
/// an `AsyncStream` of session state changes; HealthKit's async forms only (`requestAuthorization`,
/// `startWatchApp(toHandle:)`, `startMirroringToCompanionDevice()`, `beginCollection(at:)`, `add(_:)`,
/// `endCollection(at:)`, `finishWorkout()`, `sendToRemoteWorkoutSession(data:)`); the builder's statistics
/// and the phone's water archived with `NSKeyedArchiver` (`requiringSecureCoding: true`) and read back with
/// `NSKeyedUnarchiver`; `os.Logger`; Combine for what the views observed; no `WCSession` — hosted by the real
/// phone-os and watch-os.
///
/// Apple's sentences checked: `startWatchApp(toHandle:)` "launches the watch app … and passes it the
/// workout configuration"; the mirroring start handler is where "HealthKit calls this handler when a
/// session starts mirroring", set at launch because "the system may launch your app in the background";
/// `didReceiveDataFromRemoteWorkoutSession` gets "an array containing all the data objects it has
/// accumulated … in the order that the local system received them"; and the primary session's builder
/// saves the workout (`finishWorkout`), the mirror none.
@Suite(.serialized) struct MirroringSampleTests {
    static var phoneApp: String { Binaries.path("mirroring-phone") }
    static var watchApp: String { Binaries.path("mirroring-watch") }

    static func lines(_ home: String, _ bundle: String) -> [String] { SampleAppLog.lines(home, bundle, "mirroring.log") }

    static func phoneLines(_ pair: SimulatedPair) -> [String] { lines(pair.phoneHome, "mirroring-phone") }
    static func watchLines(_ pair: SimulatedPair) -> [String] { lines(pair.watchHome, "mirroring-watch") }

    static func texts(_ lines: [String], _ prefix: String) -> [String] { SampleAppLog.texts(lines, prefix) }

    func start(_ pair: SimulatedPair, samples: Int) throws {
        try pair.startSampleApps(phone: Self.phoneApp, watch: Self.watchApp, phoneArgument: "--end-at=\(samples * 10)", watchArgument: "--samples=\(samples)")
    }

    /// The phone's Start starts the watch's workout; the watch mirrors it and sends the builder's
    /// statistics as it collects them — its distance, 10 m a sample; the phone app, SIGKILLed halfway,
    /// is launched again by its OS for the mirror and takes it back; the phone shows every distance the
    /// watch reached, in order; at the last its End stops the mirror, and the watch ends the workout and
    /// saves it — once, on the watch, none on the phone (the Health invariant over both stores). The water
    /// the phone sent (an archived `HKQuantity`) reached the watch once.
    @Test func theSamplesTwoAppsRunThroughAKillOfThePhonesApp() throws {
        try withPair(tag: "mirror-sample") { pair in
            let samples = 30
            try start(pair, samples: samples)
            try pair.waitUntil("the phone shows 100 m", timeout: 60) { Self.texts(Self.phoneLines(pair), "distance").contains("100") }
            let pid = try #require(try pair.phoneOSCall(["os", "status"])["appPid"]?.intValue)
            kill(pid_t(pid), SIGKILL)
            // (The session's end is noted after the save: the model ends it once the workout is finished.)
            try pair.waitUntil("the watch saved the workout and ended its session", timeout: 90) {
                !Self.texts(Self.watchLines(pair), "saved").isEmpty && Self.texts(Self.watchLines(pair), "state").last == "3"
            }
            let phone = Self.phoneLines(pair)
            let watch = Self.watchLines(pair)
            #expect(phone.filter { $0.hasPrefix("launched ") }.count >= 2, "launched again after the kill: \(phone)")
            #expect(Self.texts(phone, "start").filter { $0 == "ok" }.count == 1, "Start worked once: \(phone)")
            #expect(phone.contains("end"), "\(phone)")
            // The watch: running (2), stopped by the phone (6), ended (3); every sample collected.
            #expect(Self.texts(watch, "state") == ["1", "2", "6", "3"], "not started, running, stopped, ended: \(watch)")
            #expect(Self.texts(watch, "sample").count == samples, "\(watch)")
            #expect(Self.texts(watch, "water") == ["1.0"], "the phone's water, once: \(watch)")
            // Every distance the watch reached is shown on the phone, in order, across the kill.
            let sent = (1...samples).map { "\($0 * 10)" }
            let report = DeliveryReport.check(sent: sent, received: Self.texts(phone, "distance"))
            #expect(report.isClean, "watch → phone statistics through a kill: \(report)")
            let saved = Self.texts(watch, "saved")
            #expect(saved.count == 1, "\(watch)")
            let uuid = try #require(saved.first)
            let health = HealthReport.check(runs: [uuid.uppercased()], phoneStore: pair.phoneHome + "/os.sqlite", watchStore: pair.watchHome + "/os.sqlite")
            #expect(health.isClean, "\(health.violations)")
            #expect(health.watchWorkouts == 1 && health.phoneWorkouts == 0, "saved once, by the watch: \(health)")
            // The one failure phone-os counts is the SIGKILL (a death the OS did not cause): every launch became ready.
            let status = try pair.phoneOSCall(["os", "status"])
            #expect(status["failedLaunches"]?.intValue == 1, "\(status.text)")
            #expect(status["lastFailure"]?.stringValue?.contains("signal 9") == true, "\(status.text)")
        }
    }
}
