import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Every launch under `phone-os` makes progress, and a failing app is not launched in a loop: the budget
/// counts from READY=1, a background launch is not reclaimed before its first delivery, start-up after a
/// crash does not pay for the store's full check, and an app that crashes or never gets ready is backed
/// off. Through the real binaries; the checker at the end of each test that moves flights.
@Suite(.serialized) struct PhoneOSProgressTests {
    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.phoneOSCall(["os", "status"]) }
    func int(_ value: JSONValue, _ key: String) -> Int { value[key]?.intValue ?? -1 }

    func openAndCheck(_ pair: SimulatedPair, stored: Int, _ context: String) throws {
        _ = try pair.phoneOSCall(["app", "open"])
        try pair.waitUntil("the app answers") { (try? pair.status("phone")) != nil }
        try pair.expectDrainedAndClean(stored: stored, context)
    }

    /// The scenario at a smaller scale: a phone with 20,000 flights is SIGKILLed, 5 runs are
    /// recorded, then phone-os runs it with a 20 ms budget. Before, the budget counted from the launch,
    /// and start-up after a crash (which ran the store's full check first) took longer than that: the app
    /// was reclaimed before it was ever ready, again and again, and the 5 runs were never saved (at
    /// 300,000 flights and 300 ms: 61 launches in 60 s).
    @Test func aBudgetShorterThanTheCheckAfterACrashStillSavesTheNewRuns() throws {
        try withRunningPair(tag: "os-crash") { pair in
            try pair.record(20_000)
            try pair.waitUntilDrained(timeout: 300)
            pair.killPhone()
            try pair.record(5)
            try pair.startPhoneOS(["--background-budget-ms", "20"])
            try pair.waitUntilDrained(timeout: 120)
            let status = try osStatus(pair)
            #expect(int(status, "readyReports") >= 1, "the app got ready")
            #expect(int(status, "failedLaunches") == 0)
            try openAndCheck(pair, stored: 20_005, "the runs recorded after the crash")
        }
    }

    /// A 1 ms budget and 2,000 runs pending: before, every launch was reclaimed before it could take
    /// anything (59 launches, 0 stored). Now the budget starts at READY=1 and a background launch is not
    /// reclaimed before its first delivery, so each one saves at least a batch, and everything arrives.
    /// The app's own context (RunWay's phone says its language at start-up) can be reclaimed before the
    /// watch acknowledges it; phone-os then launches the app for it (`context-for-watch`) — before, on a
    /// loaded runner, it stayed pending for ever and the drain timed out. phone-os's status is in the
    /// failure message.
    @Test func aOneMillisecondBudgetStillDrainsEverything() throws {
        try withRunningPair(tag: "os-1ms", phone: nil) { pair in
            try pair.record(2000)
            try pair.startPhoneOS(["--background-budget-ms", "1"])
            do { try pair.waitUntilDrained(timeout: 300) } catch {
                throw HarnessError("\(error); phone-os: \((try? osStatus(pair)).map { "\($0)" } ?? "no status")")
            }
            try pair.waitUntil("the last launch is reclaimed") { try osStatus(pair)["appState"]?.stringValue == "not running" }
            let status = try osStatus(pair)
            #expect(int(status, "reclaims") >= 1)
            #expect(int(status, "launchCount") == int(status, "reclaims"), "every background launch ended by its budget")
            #expect(int(status, "failedLaunches") == 0)
            try openAndCheck(pair, stored: 2000, "1 ms budget")
        }
    }

    /// An app standing in for one that crashes at start-up (it exits 3 at once): phone-os backs off —
    /// 1 s after the first failure, doubling — declining the watch's launch requests meanwhile, says so
    /// in `runway phone os status` and the log, and the runs wait on the watch. Before, the app was
    /// relaunched about twice a second for ever.
    @Test func aCrashingAppIsBackedOffNotLaunchedInALoop() throws {
        try withRunningPair(tag: "os-crashy", phone: nil) { pair in
            let app = try Self.script(pair, "crashing-app", "#!/bin/sh\nexit 3\n")
            try pair.record(10)
            try pair.startPhoneOS(["--app", app])
            try pair.waitUntil("three failures in a row", timeout: 60) { int(try osStatus(pair), "failuresInARow") >= 3 }
            let status = try osStatus(pair)
            #expect(int(status, "failedLaunches") == int(status, "launchCount"), "every launch failed")
            #expect(status["lastFailure"]?.stringValue?.contains("exited with status 3") == true, "\(status)")
            #expect(int(status, "declinedLaunches") >= 1, "the watch's requests were declined while backing off")
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=os.app-failed"))
            #expect(log.contains("failed 1 time(s) in a row"), "a launch declined while backing off")
            let text = try runTool(["phone", "os", "status", "--home", pair.phoneHome])
            #expect(text.stdout.contains("failed launches:"), "\(text.stdout)")
            #expect(try pair.outstandingTransfers() == 10, "the runs wait on the watch")
        }
    }

    /// An app that never reports READY=1 (it sleeps): killed at the launch time-out, counted as failed,
    /// backed off. Before, a launch had no deadline but the background budget, and was relaunched at once.
    @Test func anAppThatNeverGetsReadyIsKilledAndBackedOff() throws {
        try withRunningPair(tag: "os-stuck", phone: nil) { pair in
            let app = try Self.script(pair, "stuck-app", "#!/bin/sh\nexec sleep 600\n")
            try pair.record(3)
            try pair.startPhoneOS(["--app", app, "--launch-timeout-ms", "300", "--background-budget-ms", "600000"])
            try pair.waitUntil("two failures in a row", timeout: 60) { int(try osStatus(pair), "failuresInARow") >= 2 }
            let status = try osStatus(pair)
            #expect(status["lastFailure"]?.stringValue?.contains("did not report ready within 300 ms") == true, "\(status)")
            #expect(int(status, "reclaims") == 0, "not a reclaim: a failed launch")
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=os.launch-timed-out"))
            #expect(try pair.outstandingTransfers() == 3)
        }
    }

    static func script(_ pair: SimulatedPair, _ name: String, _ text: String) throws -> String {
        let path = pair.root + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }
}
