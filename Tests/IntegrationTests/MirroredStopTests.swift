import Foundation
import JSONText
import PairTesting
import Testing

/// A phone-led run stopped while the link is down (issue 22, item 6). The `stopWorkout` was never
/// queued, so it was lost with the link and the watch kept the run for good — refusing every later
/// phone-led start ("busy") and its own. Now it is the mirrored workout session's data (HealthKit's
/// `sendToRemoteWorkoutSession`), delivered when the link returns; the phone's `workoutSync` on each
/// return and the next start's rule cover a watch app that lost its session.
@Suite(.serialized) struct MirroredStopTests {
    /// 0.4 km at 6:00, so the phone saves each run.
    static let samples: [[Double]] = [[60, 200, 360, 150], [120, 400, 360, 150]]

    func watchRunState(_ pair: SimulatedPair) throws -> (state: String?, runID: String?) {
        let status = try pair.watchRun(["status"])
        return (status["state"]?.stringValue, status["runId"]?.stringValue)
    }

    @Test func aStopWhileTheLinkIsDownReachesTheWatchWhenItReturns() throws {
        try withRunningPair(tag: "mirflap") { pair in
            try pair.waitUntil("the watch is linked") { try pair.status("phone")["linked"] == .bool(true) }
            var random = SystemRandomNumberGenerator()
            for round in 0..<5 {
                let started = try pair.phoneRun(["start"])
                let id = try #require(started["runId"]?.stringValue)
                try pair.waitUntil("round \(round): the watch mirrors the run", timeout: 15) { try pair.mirroringState() == "confirmed" }
                #expect(try watchRunState(pair) == ("running", id))
                let path = pair.root + "/phone-batch.json"
                try JSONValue.array(Self.samples.map { .array($0.map(JSONValue.number)) }).text.write(toFile: path, atomically: true, encoding: .utf8)
                try pair.phoneRun(["sample", "--json-file", path])
                // The link flaps during the run, and is down when the phone stops it.
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    try pair.setLink(up: false)
                    usleep(UInt32.random(in: 20_000...200_000, using: &random))
                    try pair.setLink(up: true)
                    usleep(UInt32.random(in: 20_000...200_000, using: &random))
                }
                try pair.setLink(up: false)
                try pair.waitUntil("round \(round): the link is down") { try pair.status("phone")["linked"] == .bool(false) }
                #expect(try pair.stopPhoneRun()["saved"] == .string("saved"))
                // The stop could not reach the watch: it still runs the phone's run.
                #expect(try watchRunState(pair) == ("running", id))
                try pair.setLink(up: true)
                try pair.waitUntil("round \(round): the watch ends the run the phone no longer leads", timeout: 15) {
                    try watchRunState(pair).state == "idle"
                }
            }
            // Later starts work on both sides: the watch's own run, then a phone-led one stopped with the link up.
            try pair.watchRun(["start"])
            try pair.feed(Self.samples)
            try pair.stopWatchRun()
            let again = try #require(try pair.phoneRun(["start"])["runId"]?.stringValue)
            try pair.waitUntil("the watch mirrors the last run", timeout: 15) { try pair.mirroringState() == "confirmed" }
            #expect(try watchRunState(pair) == ("running", again))
            try pair.stopPhoneRun()
            try pair.waitUntil("the watch ends the last run") { try watchRunState(pair).state == "idle" }
            // The stops went as the mirrored session's data while the link was down, delivered when it returned.
            try waitForLogLine(pair, pair.phoneLog, "event=run.stop-workout", "sent=true", "linked=false")
            try pair.expectDrainedAndClean(stored: 6)
        }
    }
}

extension MirroredStopTests {
    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.watchOSCall(["os", "status"]) }

    /// A running workout keeps the watch app reachable in the background (Apple's rule), so a link that
    /// returns brings the phone's `workoutSync` — unless the watch app is not running then. Here it dies
    /// (jetsam) out of range, after the phone's stop was lost; back in range watch-os holds the link, the
    /// phone does not reach the watch app, and no `workoutSync` comes. The phone's next start launches the
    /// watch app for the workout (startWatchApp), which restores the run whose stop was lost: it ends (as
    /// the phone's verdict says: saved by the watch) rather than the start answer "busy".
    @Test func theNextPhoneLedStartEndsARunWhoseStopWasLost() throws {
        try withRunningPair(tag: "mirnext", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "300"])
            // The phone app's start-up context launches the watch app once; that launch over, it is down.
            try pair.waitUntil("watch-os launches the app for the phone's context") { (try osStatus(pair)["launchCount"]?.intValue ?? 0) >= 1 }
            try pair.waitUntil("the watch app is not running") { try osStatus(pair)["appState"]?.stringValue == "not running" }
            try pair.waitUntil("the phone is linked to the watch") { try pair.status("phone")["linked"] == .bool(true) }
            let first = try #require(try pair.phoneRun(["start"])["runId"]?.stringValue)
            try pair.waitUntil("the watch mirrors the run", timeout: 15) { try pair.mirroringState() == "confirmed" }
            #expect(try watchRunState(pair) == ("running", first))
            #expect(try osStatus(pair)["launches"]?["workout"]?.intValue == 1, "the start launched the watch app")

            // Out of range: the phone's stop cannot reach the watch, which still runs the phone's run.
            try pair.setLinkConditions(["--range", "out"])
            try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            try pair.stopPhoneRun()
            #expect(try watchRunState(pair) == ("running", first))
            // The watch app dies with the run in progress (kept in its store).
            _ = try pair.watchOSCall(["os", "jetsam"])
            try pair.waitUntil("the watch app is gone") { try osStatus(pair)["appState"]?.stringValue == "not running" }
            let launchCount = try osStatus(pair)["launchCount"]?.intValue

            // Back in range: watch-os holds the link; the watch app is not reachable, so no workoutSync.
            try pair.setLinkConditions(["--range", "near"])
            try pair.waitUntil("the link is back") { try pair.status("phone")["linked"] == .bool(true) }
            #expect(try pair.status("phone")["reachable"] == .bool(false))
            usleep(300_000)
            #expect(try osStatus(pair)["launchCount"]?.intValue == launchCount, "nothing launched the watch app before the next start")

            let second = try #require(try pair.phoneRun(["start"])["runId"]?.stringValue)
            try pair.waitUntil("the watch mirrors the new run", timeout: 15) { try pair.mirroringState() == "confirmed" }
            #expect(try watchRunState(pair) == ("running", second))
            #expect(try osStatus(pair)["launches"]?["workout"]?.intValue == 2)
            // The first run ends — as the phone's verdict on it says (issue 51: the watch saves it), carried by
            // the phone's question to the reachable watch app or by the start itself, whichever comes first.
            try waitForLogLine(pair, pair.watchLog, "event=run.ended-by-phone", "runId=\(first)", "saved=true")
            // The stop the phone queued for the first run's mirror is not lost silently: the relaunched watch
            // app has no such session, and the phone's HealthKit fails it with an error.
            try waitForLogLine(pair, pair.phoneLog, "event=health.mirror-gone")

            // The watch's own run still keeps it busy.
            try pair.stopPhoneRun()
            try pair.waitUntil("the watch ends the second run, and its budget reclaims it") {
                try osStatus(pair)["appState"]?.stringValue == "not running"
            }
            try pair.watchRun(["start"])
            let third = try #require(try pair.phoneRun(["start"])["runId"]?.stringValue)
            try pair.waitUntil("the phone hears the watch is busy", timeout: 15) { try pair.mirroringState() == "failed" }
            try pair.stopPhoneRun()
            // Each phone-led run in one Health store (issue 51): the two the watch ran on the watch, the one it
            // refused (busy) on the phone.
            for id in [first, second, third] { pair.noteFinishedRun(id) }
            try pair.feed(Self.samples)
            pair.noteFinishedRun(try #require(try pair.stopWatchRun()["id"]?.stringValue))
            try pair.expectDrainedAndClean(stored: 1)
        }
    }
}
