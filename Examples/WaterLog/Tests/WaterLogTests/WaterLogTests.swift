import Foundation
import Glibc
import RunWayPairTesting
import Testing

/// WaterLog on the simulated pair: the watch logs 200 glasses; the phone app — launched in the
/// background by the simulated iOS, reclaimed, SIGKILLed — must keep every one, once, in order.
@Suite struct WaterLogTests {
    static let glasses = (1...200).map { "glass-\($0)" }

    /// Runs the pair with the phone app's `flags` through background launches, reclaims and kills of the
    /// phone app; returns the check over the glasses' ids.
    func deliver(phoneFlags: [String]) throws -> DeliveryReport {
        let pair = try DevicePair(
            tag: "water", phoneApp: DevicePair.executable("WaterPhone"), phoneArguments: phoneFlags,
            watchApp: DevicePair.executable("WaterWatch"), watchArguments: ["--log", "200"], backgroundBudgetMilliseconds: 300)
        defer { pair.stop() }
        for _ in 0..<4 {
            usleep(150_000)
            try pair.killPhoneApp()
        }
        try pair.waitUntilDelivered()
        try pair.waitUntil("the phone app is reclaimed") { try pair.phoneAppState() == "not running" }
        try pair.openPhoneApp()  // the user looks at the log at last
        usleep(300_000)
        let received = pair.phoneLines("Documents/entries.log").map { String($0.split(separator: " ")[0]) }
        return DeliveryReport.check(sent: Self.glasses, received: received)
    }

    /// The app as it should be written: save in the callback. With `WATERLOG_SAVE_ON_SCREEN=1` the
    /// phone app runs with the bug, and this test fails — that is the point of the example.
    @Test func everyGlassLoggedOnTheWatchIsKeptOnThePhone() throws {
        let buggy = ProcessInfo.processInfo.environment["WATERLOG_SAVE_ON_SCREEN"] == "1"
        let report = try deliver(phoneFlags: buggy ? ["--save-on-screen"] : [])
        print("WaterLog\(buggy ? " (saving only on screen)" : ""): \(report)")
        #expect(report.isClean, "\(report)")
    }

    /// The bug, shown caught in the same run: saving only on screen loses glasses under background launches.
    @Test func savingOnlyOnScreenIsCaught() throws {
        let report = try deliver(phoneFlags: ["--save-on-screen"])
        print("WaterLog with the bug: \(report)")
        #expect(!report.lost.isEmpty, "the check must see the loss: \(report)")
    }

    /// Your phone app with RunWay's watch: the runs the watch records reach it through background
    /// launches, reclaims and SIGKILLs of the app, none lost, in order.
    @Test func runWaysWatchsRunsReachYourPhoneApp() throws {
        let pair = try DevicePair(tag: "runlog", phoneApp: DevicePair.executable("RunLogPhone"), backgroundBudgetMilliseconds: 300)
        defer { pair.stop() }
        var recorded: [String] = []
        for round in 0..<10 {
            recorded += try pair.record(30)
            if round % 3 == 1 { try pair.killPhoneApp() }
            usleep(100_000)
        }
        try pair.waitUntilDelivered()
        let report = DeliveryReport.check(sent: recorded, received: pair.phoneLines("Documents/runs.log"))
        print("RunLogPhone with RunWay's watch: \(report)")
        #expect(report.isClean, "\(report)")
    }

    /// The bug reports this example ships (`scenarios/`), replayed by `runway scenario run` on pairs of
    /// their own: RunLogPhone with the bug loses runs (exit 1), as it should be written through kills,
    /// jetsam and a cut link loses none (exit 0).
    @Test func theShippedScenariosGiveTheirVerdicts() throws {
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scenarios").path
        let buggy = try DevicePair.runScenario(scenarios + "/runlog-reclaimed.json", seed: 1)
        print(buggy.output)
        #expect(buggy.status == 1 && buggy.output.contains("verdict: FAIL") && !buggy.output.contains(" 0 lost"), "\(buggy.output)")
        let fixed = try DevicePair.runScenario(scenarios + "/runlog-kills.json", seed: 1)
        print(fixed.output)
        #expect(fixed.status == 0 && fixed.output.contains("verdict: PASS") && fixed.output.contains(" 0 lost"), "\(fixed.output)")
    }
}
