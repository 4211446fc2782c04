import Foundation
import Glibc
import JSONText
import PairTesting
import Storage
import Testing

/// RunWay 1.3's bug and its fix, side by side through the real binaries.
@Suite(.serialized) struct ColdLaunchTests {
    /// Record with the phone down, launch it with no UI, let the watch hand over everything, SIGKILL
    /// the phone, launch it again. The old path loses every flight; the fix keeps every one.
    @Test func uiDrainLosesTheFlightsThatImmediateKeeps() throws {
        let count = 300
        let old = try ColdLaunchScenario.run(savePath: "ui-drain", count: count, tag: "drain")
        // Delivered and acknowledged (the watch let go of them), held only in memory, then killed.
        #expect(old.heldInMemoryBeforeKill == count)
        #expect(old.storedBeforeKill == 0)
        #expect(old.report.outstandingTransfers == 0)
        #expect(old.report.stored == 0)
        #expect(old.report.lost.count == count)
        #expect(!old.report.isClean)
        #expect(old.line == "\(count) recorded, 0 stored, \(count) lost, 0 duplicated")

        let fixed = try ColdLaunchScenario.run(savePath: "immediate", count: count, tag: "fixed")
        #expect(fixed.storedBeforeKill == count)
        #expect(fixed.heldInMemoryBeforeKill == 0)
        #expect(fixed.report.isClean, "\(fixed.report.violations.joined(separator: "\n"))")
        #expect(fixed.line == "\(count) recorded, \(count) stored, 0 lost, 0 duplicated")

        // Neither had a UI: the difference is the save path alone.
        #expect(old.uiAttachments == 0 && fixed.uiAttachments == 0)
    }

    /// The cold-launch order, one log line a step, before anything can arrive; then a backlog queued
    /// while the phone was down is saved with no UI client ever attached.
    @Test func coldLaunchOrderThenTheBacklogIsSavedWithNoUI() throws {
        try withRunningPair(tag: "order", phone: nil) { pair in
            try pair.record(40)
            try pair.startPhone()
            try pair.waitUntilDrained()
            #expect(try pair.storedCount() == 40)
            let status = try pair.status("phone")
            #expect(status["uiClients"] == .integer(0))
            #expect(status["pendingWatchDataQueue"] == .integer(0))
            #expect(status["remindersRescheduled"] == .integer(40))

            let events = try String(contentsOfFile: pair.phoneLog, encoding: .utf8).split(separator: "\n").compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("event=") }.map { String($0.dropFirst(6)) }
            }
            let steps = [
                "startup.store-opened", "startup.model-ready", "startup.delegate-set", "startup.session-activating",
                "session.activated", "daemon.ready",
            ]
            let positions = steps.map { events.firstIndex(of: $0) }
            #expect(positions.allSatisfy { $0 != nil }, "\(events.prefix(12))")
            let found = positions.compactMap { $0 }
            #expect(found == found.sorted(), "\(events.prefix(12))")
            // Nothing reached the app before the session was activated with its delegate set.
            let firstArrival = events.firstIndex { $0 == "link.established" || $0.hasPrefix("app.") }
            #expect(firstArrival.map { $0 > found.last! } ?? false)
            #expect(!events.contains("ui.attached"))

            // Saved, not held: a SIGKILL and a relaunch keep all 40.
            pair.killPhone(SIGKILL)
            #expect(try pair.storedCountOffline() == 40)
        }
    }

    /// A flight the store cannot take when it arrives is rolled back with its batch and stays
    /// unacknowledged on the watch — nothing is held in the phone's memory or saved behind the receive
    /// path's back — and arrives through the receive path, once and in order, when the store can take it.
    @Test func aFlightTheStoreCannotTakeWaitsUnacknowledgedUntilItCan() throws {
        try withRunningPair(tag: "held") { pair in
            try pair.record(3)
            try pair.waitUntilDrained()

            // Break the store under the running phone: every flight insert now fails.
            let store = try Database(path: pair.phoneAppStore)
            defer { store.close() }
            try store.execute("ALTER TABLE flight_samples RENAME TO flight_samples_away")
            try pair.record(2)
            try pair.waitUntil("the phone fails to save the flight") { logText(pair.phoneLog).contains("event=app.save-failed") }
            #expect(try pair.status("phone")["pendingWatchDataQueue"] == .integer(0))
            #expect(try pair.outstandingTransfers() == 2)
            #expect(try pair.storedCount() == 3)

            try store.execute("ALTER TABLE flight_samples_away RENAME TO flight_samples")
            try pair.expectDrainedAndClean(stored: 5)
            // Whole flights: none stored without its samples.
            #expect(try store.scalarInt("SELECT count(*) FROM flights f LEFT JOIN flight_samples s USING (arrival) WHERE s.arrival IS NULL") == 0)
            let log = logText(pair.phoneLog)
            #expect(log.contains("event=receive.commit-failed"))
            #expect(!log.contains("event=app.pending-drained"))
        }
    }

    /// The inactivity reminders are rescheduled once per flight saved — not for a run under 0.1 km, not
    /// for a transfer delivered again after a crash.
    @Test func remindersAreRescheduledOncePerSavedFlight() throws {
        try withRunningPair(tag: "remind", phone: nil) { pair in
            try pair.record(5)
            // Killed after committing, before acknowledging: on relaunch the watch sends all five again.
            try pair.startPhone(environment: ["RUNWAY_CRASH_AT": "receive.after-commit"])
            #expect(pair.phone!.waitForExit(timeout: 60), "the crash point was never reached")
            #expect(try pair.storedCountOffline() == 5)
            #expect(try pair.outstandingTransfers() == 5)
            try pair.startPhone()
            try pair.waitUntilDrained()
            #expect(try pair.status("phone")["remindersRescheduled"] == .integer(0))

            try pair.record(2)
            try pair.record(1, distanceKm: 0.05)
            try pair.waitUntilDrained()
            let status = try pair.status("phone")
            #expect(status["flights"] == .integer(7))
            #expect(status["remindersRescheduled"] == .integer(2))
        }
    }
}
