import Foundation
import JSONText
import PairTesting
import Testing

/// The link under watch-os while the watch app is not running: the link's conditions are kept by
/// whoever holds the link — watch-os answers `runway link set|show|schedule` and its own connection
/// travels through the air (out of range, the phone sees the watch gone) — and a schedule carries on
/// across the app's launch and exit; and the phone's workout start launches the watch app
/// (HealthKit's `startWatchApp`). Through the binaries: watch-os, watch-agent, phone-daemon, the CLI.
@Suite(.serialized) struct WatchOSLinkTests {
    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.watchOSCall(["os", "status"]) }
    func appState(_ pair: SimulatedPair) throws -> String? { try osStatus(pair)["appState"]?.stringValue }

    func link(_ pair: SimulatedPair, _ arguments: [String]) throws -> JSONValue {
        let result = try runTool(["link"] + arguments + ["--home", pair.watchHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway link \(arguments.joined(separator: " ")): \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    func waitUntilAppIsDown(_ pair: SimulatedPair) throws {
        try pair.waitUntil("the watch app is not running") { try appState(pair) == "not running" }
    }

    /// The phone app's start-up application context launches the watch app once, as soon as watch-os
    /// reaches the phone; waits until that launch is over.
    func waitUntilSettled(_ pair: SimulatedPair) throws {
        try pair.waitUntil("watch-os launches the app for the phone's start-up context") { (try osStatus(pair)["launchCount"]?.intValue ?? 0) >= 1 }
        try waitUntilAppIsDown(pair)
    }

    /// With the app down watch-os answers the link commands and its own connection meets the air: every
    /// frame lost, its hello never reaches the phone; out of range, it does not connect, so the phone sees
    /// the watch gone, and the runs the watch recorded wait (no launch for them). Back in range — with
    /// latency and loss — watch-os launches the app for its queue, and every run arrives once.
    @Test func watchOSAnswersTheLinkCommandsAndHonoursTheConditions() throws {
        try withRunningPair(tag: "wos-range", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "300"])
            try waitUntilSettled(pair)
            try pair.waitUntil("the phone is linked to watch-os") { try pair.status("phone")["linked"] == .bool(true) }

            // Every frame lost: each hello is cut on its way, the phone never sees the watch linked.
            _ = try link(pair, ["set", "--range", "out"])
            try pair.waitUntil("the phone sees the watch out of range") { try pair.status("phone")["linked"] == .bool(false) }
            _ = try link(pair, ["set", "--range", "near", "--loss", "1", "--seed", "3"])
            try pair.waitUntil("watch-os's hellos are lost in the air") { (try link(pair, ["show"])["framesLost"]?.intValue ?? 0) >= 3 }
            #expect(try pair.status("phone")["linked"] == .bool(false))
            let clear = try link(pair, ["set", "--loss", "0", "--latency", "40"])
            #expect(clear["effective"]?["latencyMs"] == .integer(40))
            try pair.waitUntil("linked again through slow air") { try pair.status("phone")["linked"] == .bool(true) }
            try pair.waitUntil("watch-os hears the phone's welcome, 40 ms later") { try link(pair, ["show"])["connected"] == .bool(true) }

            // Out of range.
            let out = try link(pair, ["set", "--range", "out"])
            #expect(out["range"] == .string("out") && out["connected"] == .bool(false))
            try pair.waitUntil("the phone sees the watch out of range") { try pair.status("phone")["linked"] == .bool(false) }
            let watch = try pair.status("watch")
            #expect(watch["answeredBy"] == .string("watch-os") && watch["phoneInRange"] == .bool(false) && watch["linkRange"] == .string("out"))
            // Bad input is still one line, exit 2, and changes nothing.
            let bad = try runTool(["link", "set", "--loss", "2", "--home", pair.watchHome])
            #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
            #expect(try link(pair, ["show"])["range"] == .string("out"))

            // Runs recorded out of range (the app opens for them, under the same conditions) wait on the watch.
            try pair.record(30)
            _ = try pair.watchOSCall(["app", "close"])
            try waitUntilAppIsDown(pair)
            let launchCount = try osStatus(pair)["launchCount"]?.intValue
            usleep(800_000)
            #expect(try osStatus(pair)["launchCount"]?.intValue == launchCount, "out of range, nothing launches the app for its queue")
            #expect(try pair.storedCount() == 0)

            // Back in range, through lossy air: watch-os launches the app for its queue.
            _ = try link(pair, ["set", "--range", "near", "--jitter", "10", "--loss", "0.05", "--seed", "5"])
            try pair.waitUntil("watch-os launches the app for its queue") { (try osStatus(pair)["launches"]?["watch-transfer"]?.intValue ?? 0) >= 1 }
            try pair.expectDrainedAndClean(stored: 30, timeout: 180)
            let conditions = try String(contentsOfFile: pair.watchHome + "/link-conditions.json", encoding: .utf8)
            #expect(conditions.contains(#""latencyMs":40"#), "kept in the home for whoever holds the link: \(conditions)")
        }
    }

    /// A schedule started while watch-os holds the link carries on in the app it launches, and back in
    /// watch-os once the app is gone: reachability follows it on the phone's side throughout.
    @Test func aScheduleCarriesOnAcrossTheAppsLaunchAndExit() throws {
        try withRunningPair(tag: "wos-sched", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "300"])
            try waitUntilSettled(pair)
            let path = pair.root + "/schedule.json"
            try #"{"seed": 9, "steps": [{"at": 0, "latencyMs": 20}, {"at": 2500, "range": "out"}, {"at": 9000, "range": "near", "reset": true}]}"#
                .write(toFile: path, atomically: true, encoding: .utf8)
            let started = try link(pair, ["schedule", path])
            #expect(started["scheduleSteps"] == .integer(3) && started["scheduleApplied"] == .integer(1))

            // The app holds the link from its launch on, and plays the rest.
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("the schedule takes the watch out of range", timeout: 20) {
                (try? pair.status("watch")["linkRange"]) == .string("out")
            }
            try pair.waitUntil("the phone sees the watch gone") { try pair.status("phone")["linked"] == .bool(false) }
            #expect(try pair.status("watch")["reachable"] == .bool(false))

            // The app goes; watch-os holds the link again, and brings it back in range at the last step.
            _ = try pair.watchOSCall(["app", "close"])
            try waitUntilAppIsDown(pair)
            let shown = try link(pair, ["show"])
            #expect(shown["scheduleSteps"] == .integer(3) && shown["range"] == .string("out"), "\(shown.text)")
            try pair.waitUntil("the last step brings the watch back", timeout: 30) { try pair.status("phone")["linked"] == .bool(true) }
            let ended = try link(pair, ["show"])
            #expect(ended["scheduleApplied"] == .integer(3) && ended["range"] == .string("near") && ended["latencyMs"] == .integer(0))
            #expect(!FileManager.default.fileExists(atPath: pair.watchHome + "/link-schedule.json"), "an ended schedule is no longer kept")
            let log = logText(pair.watchLog)
            #expect(log.contains("component=watch-os event=link.schedule-handed-over"))
            #expect(log.contains("component=watch event=link.schedule-resumed"), "the app played on")
            #expect(log.contains("component=watch-os event=link.schedule-resumed"), "watch-os played on")
        }
    }

    /// The phone's workout start with the watch app not running launches it in the background (reason
    /// `workout`) and hands it the start: the watch mirrors the run, the workout keeps the app alive past
    /// its budget and reachable, and the phone's stop ends it.
    @Test func aPhoneLedStartLaunchesTheWatchAppForItsWorkout() throws {
        try withRunningPair(tag: "wos-startapp", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "300"])
            try waitUntilSettled(pair)
            try pair.waitUntil("the phone is linked to watch-os") { try pair.status("phone")["linked"] == .bool(true) }
            #expect(try osStatus(pair)["launches"]?["workout"] == nil)

            let run = try #require(try pair.phoneRun(["start"])["runId"]?.stringValue)
            try pair.waitUntil("the watch mirrors the run", timeout: 15) { try pair.mirroringState() == "confirmed" }
            let status = try osStatus(pair)
            #expect(status["launches"]?["workout"] == .integer(1))
            #expect(status["appState"] == .string("background"), "launched in the background: \(status.text)")
            let watchRun = try pair.watchRun(["status"])
            #expect(watchRun["runId"] == .string(run) && watchRun["startOrigin"] == .string("remote"))
            #expect(logText(pair.watchLog).contains("reason=\"the phone started a workout (startWatchApp)\""))

            let path = pair.root + "/phone-batch.json"
            try #"[[60, 200, 360, 150], [120, 400, 360, 150]]"#.write(toFile: path, atomically: true, encoding: .utf8)
            try pair.phoneRun(["sample", "--json-file", path])
            usleep(900_000)  // three budgets
            #expect(try appState(pair) == "background", "the workout keeps it alive")
            #expect(try pair.status("phone")["reachable"] == .bool(true))

            #expect(try pair.stopPhoneRun()["saved"] == .string("saved"))
            try pair.waitUntil("the run ends on the watch and the budget reclaims the app") { try appState(pair) == "not running" }
            try pair.expectDrainedAndClean(stored: 1)
        }
    }
}
