import Foundation
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// HealthKit's mirrored workout sessions through the real binaries, with workout apps of our own: the
/// phone's `probe-app` starts the watch app (`startWatchApp(with:)`); watch-os launches `wrist-app`, whose
/// delegate runs an `HKWorkoutSession` with its builder and mirrors it to the phone
/// (`startMirroringToCompanionDevice`); the phone's `workoutSessionMirroringStartHandler` gets the mirror;
/// data crosses both ways (`sendToRemoteWorkoutSession`: `w-I` from the watch, `p-I` answers); after the
/// last, the phone ends the workout from its mirror (`end()`), the watch's session ends, the mirror
/// follows, and the watch's builder saves the workout once. Checked: every datum once and in order each
/// way, every completion `ok`, and the Health invariant over both devices' stores.
@Suite(.serialized) struct WorkoutMirroringHostedTests {
    static func lines(_ home: String, _ bundle: String) -> [String] {
        let text = (try? String(contentsOfFile: home + "/apps/\(bundle)/Documents/mirror.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    static func phoneLines(_ pair: SimulatedPair) -> [String] { lines(pair.phoneHome, "probe-app") }
    static func watchLines(_ pair: SimulatedPair) -> [String] { lines(pair.watchHome, WatchKitTests.bundle) }

    /// Lines `PREFIX TEXT`, their texts.
    static func texts(_ lines: [String], _ prefix: String) -> [String] {
        lines.filter { $0.hasPrefix(prefix + " ") }.map { String($0.dropFirst(prefix.count + 1)) }
    }

    func startPair(_ pair: SimulatedPair, count: Int, phoneTickMilliseconds: Int? = nil) throws {
        try pair.startWatchOS(["--app", WatchKitTests.wrist, "--app-arg=--mirror=\(count)", "--background-budget-ms", "120000"])
        try pair.startPhoneOS(
            [
                "--app", YourOwnAppTests.probe, "--app-arg=--start-watch-app", "--app-arg=--mirror=\(count)", "--background-budget-ms", "120000",
            ] + (phoneTickMilliseconds.map { ["--app-arg=--mirror-tick=\($0)"] } ?? []))
        _ = try pair.phoneOSCall(["app", "open"])
        try pair.waitUntil("the phone has the watch's mirrored session", timeout: 30) {
            Self.phoneLines(pair).contains { $0.hasPrefix("mirrored ") }
        }
    }

    /// Waits for the end and checks it all: both ways once and in order, completions, one save.
    func expectMirroredAndSavedOnce(_ pair: SimulatedPair, count: Int) throws {
        try pair.waitUntil("the watch saved the workout and the phone's mirror ended", timeout: 60) {
            Self.watchLines(pair).contains { $0.hasPrefix("saved ") } && Self.phoneLines(pair).contains("disconnected")
        }
        let phone = Self.phoneLines(pair)
        let watch = Self.watchLines(pair)
        // The mirror: `.mirrored` (1), running (2); it followed the primary to ended (3).
        #expect(phone.first == "mirrored 1 2", "\(phone)")
        #expect(Self.texts(phone, "state").last == "3", "\(phone)")
        #expect(Self.texts(watch, "state") == ["2", "3"], "\(watch)")
        #expect(watch.contains("mirroring ok"))
        #expect(watch.contains("oversize failed 13"), "errorDataSizeExceeded, nothing sent")
        let fromWatch = (1...count).map { "w-\($0)" }
        let fromPhone = (1...count).map { "p-\($0)" }
        // The phone sends from two threads (answers from its delegate, ticks from its main queue): each
        // of its streams once and in its order.
        // A tick sent as the workout ended may cross the watch's stop: it fails with HealthKit's error
        // then, and must not arrive. Every one sent completes, ok or failed.
        try pair.waitUntil("every phone send completed", timeout: 10) {
            let lines = Self.phoneLines(pair)
            return Self.texts(lines, "sent").count == count + Self.texts(lines, "tick").count
        }
        let completions = Self.texts(Self.phoneLines(pair), "sent")
        let ticks = Self.texts(phone, "tick").filter { completions.contains("\($0) ok") }
        let failedTicks = Self.texts(phone, "tick").filter { !completions.contains("\($0) ok") }
        #expect(failedTicks.count <= 2, "only what crossed the stop: \(failedTicks)")
        #expect(failedTicks.allSatisfy { completions.contains("\($0) failed 1") })
        #expect(!Self.texts(watch, "data").contains { failedTicks.contains($0) }, "a failed send never arrives")
        let toPhone = DeliveryReport.check(sent: fromWatch, received: Self.texts(phone, "data"), exactlyOnce: true)
        let toWatch = DeliveryReport.check(sent: fromPhone, received: Self.texts(watch, "data").filter { $0.hasPrefix("p-") }, exactlyOnce: true)
        let ticksToWatch = DeliveryReport.check(sent: ticks, received: Self.texts(watch, "data").filter { $0.hasPrefix("t-") }, exactlyOnce: true)
        #expect(ticksToWatch.isClean, "phone ticks → watch: \(ticksToWatch)")
        #expect(toPhone.isClean, "watch → phone: \(toPhone)")
        #expect(toWatch.isClean, "phone → watch: \(toWatch)")
        #expect(Set(Self.texts(watch, "sent")) == Set(fromWatch.map { "\($0) ok" }), "every watch send completed ok: \(watch)")
        #expect(Set(completions).isSuperset(of: Set((fromPhone + ticks).map { "\($0) ok" })))
        // The invariant checker's Health part: the workout in exactly one device's store, once.
        let uuid = try #require(Self.texts(watch, "saved").first)
        let health = HealthReport.check(runs: [uuid.uppercased()], phoneStore: pair.phoneHome + "/os.sqlite", watchStore: pair.watchHome + "/os.sqlite")
        #expect(health.isClean, "\(health.violations)")
        #expect(health.watchWorkouts == 1 && health.phoneWorkouts == 0)
    }

    @Test func aPhoneLedWorkoutIsMirroredDataCrossesBothWaysAndThePhonesStopSavesItOnce() throws {
        try withRunningPair(tag: "hk-mir", watch: nil, phone: nil) { pair in
            try startPair(pair, count: 10)
            try expectMirroredAndSavedOnce(pair, count: 10)
        }
    }

    /// Watch-led, with the phone app not running: the watch's `startMirroringToCompanionDevice` launches
    /// it in the background (Apple: "If your iOS app isn't running, the system launches it in the
    /// background") — the watch's `hello` says a mirror waits, phone-os launches the app for it — and its
    /// handler gets the mirror; the rest as above, saved once. Before: declined ("nothing pending").
    @Test func aWatchLedMirrorLaunchesThePhoneAppInTheBackground() throws {
        try withRunningPair(tag: "hk-mirlaunch", watch: nil, phone: nil) { pair in
            let count = 5
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--mirror=\(count)", "--background-budget-ms", "120000"])
            try pair.startWatchOS([
                "--app", WatchKitTests.wrist, "--app-arg=--mirror=\(count)", "--app-arg=--start-workout", "--background-budget-ms", "120000",
            ])
            #expect(try pair.phoneOSCall(["os", "status"])["launchCount"]?.intValue == 0)
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("the phone has the watch's mirrored session", timeout: 30) {
                Self.phoneLines(pair).contains { $0.hasPrefix("mirrored ") }
            }
            let status = try pair.phoneOSCall(["os", "status"])
            #expect(status["launches"]?["workout-mirroring"]?.intValue == 1, "\(status.text)")
            #expect(status["launchCount"]?.intValue == 1, "launched by the system, not opened")
            try expectMirroredAndSavedOnce(pair, count: count)
        }
    }

    /// The link cut while both send (the watch its data, the phone ticks every 50 ms): what they send
    /// meanwhile does not cross, and the completions wait; when the link returns it all arrives — once, in
    /// order, each way — and the completions run.
    @Test func aLinkCutDuringMirroringLosesNothingAndKeepsTheOrder() throws {
        try withRunningPair(tag: "hk-mircut", watch: nil, phone: nil) { pair in
            let count = 40
            try startPair(pair, count: count, phoneTickMilliseconds: 50)
            try pair.waitUntil("the phone has w-3", timeout: 20) { Self.texts(Self.phoneLines(pair), "data").contains("w-3") }
            try pair.setLink(up: false)
            try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            let atCut = Self.texts(Self.phoneLines(pair), "data").count
            let watchAtCut = Self.texts(Self.watchLines(pair), "data").count
            usleep(1_500_000)
            #expect(Self.texts(Self.phoneLines(pair), "data").count == atCut, "nothing crosses a link that is down")
            #expect(Self.texts(Self.watchLines(pair), "data").count == watchAtCut, "nor the other way")
            let ticks = Self.texts(Self.phoneLines(pair), "tick").count
            #expect(Self.texts(Self.phoneLines(pair), "sent").count < ticks, "the phone's sends during the cut wait")
            // A completion runs once the phone has the datum: those sent during the cut wait.
            let completed = Self.texts(Self.watchLines(pair), "sent").count
            #expect(completed <= atCut + 2, "\(completed) completions with \(atCut) data on the phone")
            #expect(completed < count, "the watch was still sending at the cut")
            try pair.setLink(up: true)
            try expectMirroredAndSavedOnce(pair, count: count)
        }
    }
}
