import Foundation
import JSONText
import PairTesting
import Testing

extension SimulatedPair {
    /// `runway DEVICE health --home H --json`: the workouts' uuids.
    func healthUUIDs(_ device: String) throws -> [String] {
        let result = try runTool([device, "health", "--home", device == "phone" ? phoneHome : watchHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway \(device) health failed: \(result.stderr)") }
        return (try JSONValue(parsing: result.stdout)["workouts"]?.arrayValue ?? []).compactMap { $0["uuid"]?.stringValue }
    }

    func healthWorkouts(_ device: String) throws -> Int? { try status(device)["healthWorkouts"]?.intValue }

    /// A phone-led run (mirrored by the watch, confirmed), stopped from the phone; then a watch-only run.
    /// Returns their ids.
    func phoneLedAndWatchOnlyRuns() throws -> (phoneLed: String, watchOnly: String) {
        try waitUntil("the watch is linked") { try status("phone")["linked"] == .bool(true) }
        let started = try phoneRun(["start", "--mode", "heart-rate"])
        let phoneLed = try #require(started["runId"]?.stringValue)
        try waitUntil("the phone sees the watch's confirmation", timeout: 5) { try mirroringState() == "confirmed" }
        let path = root + "/health-batch.json"
        try JSONValue.array(ScriptedRun.withAlerts(1).map { .array($0.map(JSONValue.number)) }).text.write(toFile: path, atomically: true, encoding: .utf8)
        _ = try phoneRun(["sample", "--json-file", path])
        try stopPhoneRun()
        noteFinishedRun(phoneLed)
        try waitUntil("the watch ended its mirrored workout") { try watchRun(["status"])["state"] == .string("idle") }
        let replay = try watchRun(["replay", "--seed", "7", "--distance", "3"])
        let watchOnly = try #require(replay["id"]?.stringValue)
        noteRecorded([watchOnly])
        noteFinishedRun(watchOnly)
        try waitUntilDrained(timeout: 60)
        return (phoneLed, watchOnly)
    }
}

/// Seed #28 through the binaries (APP_SPEC E.8): each finished run is saved to Health once, by the
/// device whose workout session recorded it, through HealthKit's builder; the invariant checker counts
/// both devices' Health stores.
@Suite(.serialized) struct HealthTests {
    /// A phone-led (mirrored) run and a watch-only run: both in the watch's Health store, none in the
    /// phone's — the sum is 2, and `runway watch health` lists the runs by their ids.
    @Test func aPhoneLedRunAndAWatchOnlyRunAreSavedOnceByTheWatch() throws {
        try withRunningPair(tag: "hk1") { pair in
            let (phoneLed, watchOnly) = try pair.phoneLedAndWatchOnlyRuns()
            try pair.expectClean(stored: 2)
            #expect(try pair.healthWorkouts("watch") == 2)
            #expect(try pair.healthWorkouts("phone") == 0)
            #expect(Set(try pair.healthUUIDs("watch")) == [phoneLed, watchOnly])
            let listed = try JSONValue(parsing: try runTool(["watch", "health", "--home", pair.watchHome, "--json"]).stdout)["workouts"]?.arrayValue ?? []
            #expect(listed.allSatisfy { ($0["duration"]?.doubleValue ?? 0) > 0 && $0["activityType"] == .string("running") })
            let log = try String(contentsOfFile: pair.watchLog, encoding: .utf8)
            #expect(log.contains("health.run-saved runId=\(phoneLed)"))
        }
    }

    /// `phone-daemon --health legacy` brings back the double save: the phone saves both runs too, the
    /// sum is 4, and the invariant checker names both runs as saved more than once.
    @Test func theLegacyDoubleSaveIsCaught() throws {
        try withRunningPair(tag: "hk2", phone: ["--health", "legacy"]) { pair in
            let (phoneLed, watchOnly) = try pair.phoneLedAndWatchOnlyRuns()
            try pair.waitUntil("the phone saved the watch's run to Health too") { try pair.healthWorkouts("phone") == 2 }
            let report = try pair.check()
            #expect(!report.isClean)
            #expect(Set(report.health.duplicated) == [phoneLed, watchOnly])
            #expect(try pair.healthWorkouts("watch")! + pair.healthWorkouts("phone")! == 4)
        }
    }

    /// A save repeated after a crash is one workout: the OS keeps a workout once per uuid. A watch
    /// SIGKILLed mid-run recovers the run and saves it once when it stops.
    @Test func aRunRecoveredAfterSIGKILLIsSavedOnce() throws {
        try withRunningPair(tag: "hk3") { pair in
            _ = try pair.watchRun(["start"])
            let path = pair.root + "/hk3-batch.json"
            try JSONValue.array(ScriptedRun.withAlerts(1).map { .array($0.map(JSONValue.number)) }).text.write(
                toFile: path, atomically: true, encoding: .utf8)
            let fed = try pair.watchRun(["sample", "--json-file", path])
            let id = try #require(fed["runId"]?.stringValue)
            pair.killWatch()
            try pair.startWatch()
            // The OS kept the session: recoverActiveWorkoutSession hands it back to the relaunched app.
            #expect(try String(contentsOfFile: pair.watchLog, encoding: .utf8).contains("health.session-recovered runId=\(id)"))
            let stopped = try pair.watchRun(["stop"])
            #expect(stopped["id"] == .string(id))
            pair.noteRecorded([id])
            pair.noteFinishedRun(id)
            try pair.expectDrainedAndClean(stored: 1)
            #expect(try pair.healthUUIDs("watch") == [id])
        }
    }

    /// A watch run, started and sampled, whose stop dies at crash point `point`: the watch is down
    /// when this returns. The run's id.
    func crashMidStop(_ pair: SimulatedPair, at point: String) throws -> String {
        pair.killWatch()
        try pair.startWatch(environment: ["RUNWAY_CRASH_AT": point])
        let id = try #require(try pair.watchRun(["start"])["runId"]?.stringValue)
        let path = pair.root + "/crash-batch.json"
        try JSONValue.array(ScriptedRun.withAlerts(1).map { .array($0.map(JSONValue.number)) }).text.write(
            toFile: path, atomically: true, encoding: .utf8)
        _ = try pair.watchRun(["sample", "--json-file", path])
        let crashed = try runTool(["watch", "run", "stop", "--home", pair.watchHome, "--json"])
        #expect(crashed.status != 0)
        let watch = try #require(pair.watch)
        try #require(watch.waitForExit(timeout: 30), "\(point) was never reached")
        #expect(try String(contentsOfFile: watch.logPath, encoding: .utf8).contains("crash point \(point) reached"))
        return id
    }

    /// Killed mid-finish (crash point `run.after-health-save`: the workout is in Health, the run not yet
    /// forgotten nor its flight queued): the relaunched watch finds the run, and its stop saves it again,
    /// which the store keeps once.
    @Test func aWatchKilledAfterTheHealthSaveSavesTheRunOnce() throws {
        try withRunningPair(tag: "hk4") { pair in
            let id = try crashMidStop(pair, at: "run.after-health-save")
            try pair.startWatch()
            #expect(try pair.watchRun(["status"])["runId"] == .string(id), "the run was not forgotten")
            #expect(try pair.healthUUIDs("watch") == [id], "the workout was saved before the crash")
            #expect(try pair.watchRun(["stop"])["id"] == .string(id))
            pair.noteRecorded([id])
            pair.noteFinishedRun(id)
            try pair.expectDrainedAndClean(stored: 1)
            #expect(try pair.healthUUIDs("watch") == [id])
        }
    }

    /// Killed between the run stop's two commits (crash point `run.after-queue`: the flight is in the
    /// session's outbox, the app's store still has the run): the relaunched watch finds the run, its
    /// stop queues the flight again, with the same id — and the phone stores it once (issue 43: the
    /// comment said "exactly once"; the truth is at least once, made once by the phone's dedup).
    @Test func aWatchKilledAfterTheQueueStoresTheRunOnce() throws {
        try withRunningPair(tag: "hk6") { pair in
            let id = try crashMidStop(pair, at: "run.after-queue")
            try pair.startWatch()
            func acknowledged() throws -> Int? { try pair.status("watch")["outbox"]?["lastAcknowledgedTransfer"]?.intValue }
            try pair.waitUntil("the flight queued before the crash is delivered") { try acknowledged() == 1 }
            #expect(try pair.watchRun(["status"])["runId"] == .string(id), "the run was not forgotten")
            #expect(try pair.watchRun(["stop"])["id"] == .string(id))
            try pair.waitUntil("the same flight, queued again, is delivered") { try acknowledged() == 2 }
            pair.noteRecorded([id])
            pair.noteFinishedRun(id)
            try pair.expectDrainedAndClean(stored: 1)
            #expect(try pair.healthUUIDs("watch") == [id])
        }
    }

    /// The phone SIGKILLed during a phone-led run (E.8 across kills): relaunched, it recovers the run but
    /// knows nothing of its mirroring; the watch mirrors the run to it again, the phone says it leads it
    /// (`workoutSync`), the watch says it runs it, and the phone's stop ends it on the watch — saved once,
    /// by the watch, not by the phone too.
    @Test func aPhoneKilledDuringAPhoneLedRunStopsItAndItIsSavedOnce() throws {
        try withRunningPair(tag: "hk5") { pair in
            try pair.waitUntil("the watch is linked") { try pair.status("phone")["linked"] == .bool(true) }
            let id = try #require(try pair.phoneRun(["start"])["runId"]?.stringValue)
            try pair.waitUntil("the phone sees the watch's confirmation", timeout: 5) { try pair.mirroringState() == "confirmed" }
            let path = pair.root + "/hk5-batch.json"
            try JSONValue.array(ScriptedRun.withAlerts(1).map { .array($0.map(JSONValue.number)) }).text.write(toFile: path, atomically: true, encoding: .utf8)
            _ = try pair.phoneRun(["sample", "--json-file", path])
            pair.killPhone()
            try pair.startPhone()
            try pair.waitUntil("the relaunched phone learns the watch runs its run", timeout: 15) { try pair.mirroringState() == "confirmed" }
            #expect(try pair.watchRun(["status"])["runId"] == .string(id))
            let stopped = try pair.stopPhoneRun()
            #expect(stopped["saved"] == .string("saved") && stopped["id"] == .string(id))
            pair.noteFinishedRun(id)
            try pair.waitUntil("the watch ended the run") { try pair.watchRun(["status"])["state"] == .string("idle") }
            try pair.expectDrainedAndClean(stored: 1)
            #expect(try pair.healthUUIDs("watch") == [id])
            #expect(try pair.healthUUIDs("phone") == [])
        }
    }
}
