import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Posix
import RunWayApp
import Testing

/// RunWay 1.3.2's inactivity reminders and the phone's notification centre, through the real binaries
/// (APP_SPEC B): both clocks frozen with `runway clock set … --frozen`, runs recorded on the watch at
/// the watch's time. The invariant checker runs in each.
@Suite(.serialized) struct ReminderTests {
    static let t0 = SimulatedPair.t0, day = SimulatedPair.day

    /// Runs `body` with a pair whose daemons are up and both clocks frozen at t0 (`withRunningPair`).
    static func withFrozenPair<T>(_ tag: String, phoneArguments: [String] = [], _ body: (SimulatedPair) throws -> T) throws -> T {
        try withRunningPair(tag: tag, phone: phoneArguments) { pair in
            try pair.freezeBoth()
            return try body(pair)
        }
    }

    static func ko(_ days: Int) -> String { ReminderTexts.body(elapsedDays: days, language: "ko") }

    // 1.
    @Test func fourStagesAfterARun() throws {
        try Self.withFrozenPair("rem4") { pair in
            try pair.freezeWatch(at: Self.t0 - 3600)
            let s = try pair.recordRun()
            let state = try pair.reminders()
            #expect(state.pendingIDs == Stage.all)
            #expect(state.pending.map(\.fireAt) == [7.0, 14, 21, 28].map { s + $0 * Self.day })
            #expect(state.pending.map(\.body) == [7, 14, 21, 28].map(Self.ko))
            #expect(Set(state.pending.map(\.body)).count == 4)
            #expect(state.json["rule"] == .string("current"))
            #expect(state.json["lastRunAt"] == .string(Timestamp.iso8601(s)))
            #expect(state.delivered.isEmpty)
            let languages = try pair.notifications().json["pending"]?.arrayValue?.compactMap { $0["language"]?.stringValue }
            #expect(languages == ["ko", "ko", "ko", "ko"])
            try pair.expectDrainedAndClean()
        }
    }

    // 2.
    @Test func aPastStageIsSkippedNotAReturn() throws {
        try Self.withFrozenPair("rem10") { pair in
            try pair.freezeWatch(at: Self.t0 - 10 * Self.day)
            let s = try pair.recordRun()
            let state = try pair.reminders()
            #expect(state.pendingIDs == [Stage.id(14), Stage.id(21), Stage.id(28)])
            #expect(state.pending.map(\.fireAt) == [14.0, 21, 28].map { s + $0 * Self.day })
            try pair.expectDrainedAndClean()
        }
    }

    // 3.
    @Test func allStagesPastGivesOneAtPhoneNowPlusSevenDaysAndEveryOpenPushesItBack() throws {
        try Self.withFrozenPair("rem60") { pair in
            try pair.freezeWatch(at: Self.t0 - 60 * Self.day)
            _ = try pair.recordRun()
            var state = try pair.reminders()
            #expect(state.pending == [.init(id: Stage.id(7), fireAt: Self.t0 + 7 * Self.day, body: Self.ko(7))])
            try pair.advancePhone("3d")
            try pair.openHomeScreen()
            state = try pair.reminders()
            #expect(state.pending == [.init(id: Stage.id(7), fireAt: Self.t0 + 10 * Self.day, body: Self.ko(7))])
            try pair.expectDrainedAndClean()
        }
    }

    // 4.
    @Test func aStageFallingDueExactlyNowIsSkipped() throws {
        try Self.withFrozenPair("remeq") { pair in
            try pair.freezeWatch(at: Self.t0 - 3600)
            let s = try pair.recordRun()
            try pair.freezePhone(at: s + 7 * Self.day)
            let state = try pair.rescheduleReminders()
            #expect(state.pendingIDs == [Stage.id(14), Stage.id(21), Stage.id(28)])
            // "At or past" its fire date: the 7-day one was delivered by the clock change itself.
            #expect(state.delivered == [.init(id: Stage.id(7), fireAt: s + 7 * Self.day, deliveredAt: s + 7 * Self.day, body: Self.ko(7))])
            try pair.expectDrainedAndClean()
        }
    }

    // 5.
    @Test func sixtyDaysDeliverExactlyFour() throws {
        try Self.withFrozenPair("rem60d") { pair in
            try pair.freezeWatch(at: Self.t0 - 3600)
            let s = try pair.recordRun()
            #expect(try pair.reminders().pendingIDs == Stage.all)

            let week = try runTool(["clock", "advance", "7d", "--home", pair.phoneHome])
            #expect(week.status == 0)
            #expect(week.stdout.contains("delivered ") && week.stdout.contains(Stage.id(7)))
            var state = try pair.reminders()
            #expect(state.delivered == [.init(id: Stage.id(7), fireAt: s + 7 * Self.day, deliveredAt: s + 7 * Self.day, body: Self.ko(7))])
            #expect(state.pendingIDs == [Stage.id(14), Stage.id(21), Stage.id(28)])

            try pair.advancePhone("22d")
            state = try pair.reminders()
            #expect(state.deliveredIDs == Stage.all)
            #expect(state.delivered.map(\.deliveredAt) == [7.0, 14, 21, 28].map { s + $0 * Self.day })
            #expect(state.pending.isEmpty)

            try pair.advancePhone("30d")
            #expect(try pair.notifications().deliveredIDs == Stage.all)
            // Back in time: delivered stays delivered, nothing is delivered again.
            try pair.freezePhone(at: Self.t0)
            try pair.advancePhone("60d")
            let all = try pair.notifications()
            #expect(all.deliveredIDs == Stage.all && all.pending.isEmpty)
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.components(separatedBy: "event=notification.delivered").count - 1 == 4)
            try pair.expectDrainedAndClean()
        }
    }

    // 6.
    @Test func legacyLosesTheLongInactiveAndNeverRearms() throws {
        try Self.withFrozenPair("remleg", phoneArguments: ["--reminders", "legacy"]) { pair in
            try pair.freezeWatch(at: Self.t0 - 10 * Self.day)
            _ = try pair.recordRun()
            var state = try pair.reminders()
            #expect(state.json["rule"] == .string("legacy"))
            #expect(state.pending.isEmpty, "the user away longest gets nothing: \(state.pending)")
            try pair.openHomeScreen()  // opening the app changes nothing either
            #expect(try pair.reminders().pending.isEmpty)

            try pair.freezeWatch(at: Self.t0 - 3600)
            let s = try pair.recordRun()
            state = try pair.reminders()
            #expect(state.pending == [.init(id: Stage.legacy, fireAt: s + 7 * Self.day, body: Self.ko(7))])
            try pair.advancePhone("7d")
            #expect(try pair.reminders().deliveredIDs == [Stage.legacy])
            try pair.advancePhone("30d")
            try pair.openHomeScreen()
            state = try pair.reminders()
            #expect(state.deliveredIDs == [Stage.legacy] && state.pending.isEmpty)
            try pair.expectDrainedAndClean()
        }
    }

    // 7.
    @Test func theLegacyIdIsRemovedOnUpgradeSoTheWeekReminderComesOnce() throws {
        try Self.withFrozenPair("remupg", phoneArguments: ["--reminders", "legacy"]) { pair in
            try pair.freezeWatch(at: Self.t0 - 3600)
            let s = try pair.recordRun()
            #expect(try pair.reminders().pendingIDs == [Stage.legacy])

            pair.phone?.stop()
            pair.phoneArguments = []
            try pair.startPhone()
            #expect(try pair.reminders().pendingIDs == [Stage.legacy], "a launch with no UI reschedules nothing")
            let state = try pair.rescheduleReminders()
            #expect(state.pendingIDs == Stage.all)
            try pair.advancePhone("7d")
            let delivered = try pair.notifications().delivered
            #expect(delivered == [.init(id: Stage.id(7), fireAt: s + 7 * Self.day, deliveredAt: s + 7 * Self.day, body: Self.ko(7))])
            try pair.expectDrainedAndClean()
        }
    }

    // 8.
    @Test func atMostSixtyFourPendingTheEarliestAddedDropped() throws {
        try Self.withFrozenPair("remcap") { pair in
            let client = try ControlClient(home: DeviceHome(path: pair.phoneHome, role: .phone))
            for i in 0..<70 {
                // Later-added ones fire earlier: the cap follows the order of adding, not of firing.
                _ = try client.call(
                    ControlRequest(
                        command: "notification-add",
                        arguments: [
                            "id": .string("test.\(i)"), "inSeconds": .integer(Int64(100_000 - i)), "body": .string("n\(i)"),
                        ]))
            }
            var state = try pair.notifications()
            #expect(state.json["pendingLimit"] == .integer(64))
            #expect(state.pending.count == 64)
            #expect(Set(state.pendingIDs) == Set((6..<70).map { "test.\($0)" }))
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            for i in 0..<6 { #expect(log.contains("event=notification.dropped id=test.\(i) reason=pending-limit-64")) }
            #expect(!log.contains("event=notification.dropped id=test.6 "))
            // The past is refused, and nothing is added.
            #expect(throws: ControlError.self) {
                try client.call(ControlRequest(command: "notification-add", arguments: ["id": .string("past"), "inSeconds": .integer(0)]))
            }

            try pair.freezeWatch(at: Self.t0 - 3600)
            _ = try pair.recordRun()
            for _ in 0..<3 { _ = try pair.rescheduleReminders() }
            state = try pair.notifications()
            #expect(state.pending.count == 64)
            #expect(state.pendingIDs.filter { $0.hasPrefix("runway.reminder.") } == Stage.all)
            #expect(try pair.reminders().pending.count == 4)
            try pair.expectDrainedAndClean()
        }
    }

    // 9.
    @Test func aReminderDueWhileThePhoneWasKilledIsDeliveredOnce() throws {
        try Self.withFrozenPair("remkill") { pair in
            try pair.freezeWatch(at: Self.t0 - 3600)
            let s = try pair.recordRun()
            #expect(try pair.reminders().pendingIDs == Stage.all)
            pair.killPhone()
            try pair.startPhone()
            #expect(try pair.reminders().pendingIDs == Stage.all)
            try pair.advancePhone("7d")
            pair.killPhone()
            try pair.startPhone()
            let state = try pair.notifications()
            #expect(state.delivered == [.init(id: Stage.id(7), fireAt: s + 7 * Self.day, deliveredAt: s + 7 * Self.day, body: Self.ko(7))])
            #expect(state.pendingIDs == [Stage.id(14), Stage.id(21), Stage.id(28)])
            try pair.expectDrainedAndClean()
        }
    }

    /// The system delivers without the app: a notification that falls due (on a running clock) while
    /// the phone is down is delivered at its next start, with `deliveredAt = fireAt`; one that falls due
    /// while it runs is delivered by its timer, with no command.
    @Test func aNotificationDueWhileThePhoneIsDownIsDeliveredAtItsNextStart() throws {
        try withRunningPair(tag: "remdown") { pair in
            try pair.clock(["set", Timestamp.iso8601(Self.t0), "--home", pair.phoneHome])  // running, not frozen
            let client = try ControlClient(home: DeviceHome(path: pair.phoneHome, role: .phone))
            _ = try client.call(
                ControlRequest(
                    command: "notification-add",
                    arguments: [
                        "id": .string("test.soon"), "inSeconds": .number(1.5), "body": .string("soon"),
                    ]))
            _ = try client.call(
                ControlRequest(
                    command: "notification-add",
                    arguments: [
                        "id": .string("test.timer"), "inSeconds": .number(600), "body": .string("timer"),
                    ]))
            let fireAt = try #require(try pair.notifications().pending.first { $0.id == "test.soon" }?.fireAt)
            pair.killPhone()
            usleep(2_000_000)
            try pair.startPhone()
            var state = try pair.notifications()
            #expect(state.delivered.map(\.id) == ["test.soon"])
            #expect(state.delivered.first?.deliveredAt == fireAt)
            // The second one by the timer, while the phone runs, and to an attached UI: the clock is moved to
            // four seconds before its fire date, and no command follows.
            let ui = try RunningTool(["phone", "ui", "--home", pair.phoneHome])
            defer { ui.signal(SIGKILL); _ = ui.wait() }
            try pair.waitUntil("runway phone ui is attached", timeout: 30) { ui.stdoutSoFar.contains("-- attached") }
            let timerFireAt = try #require(state.pending.first { $0.id == "test.timer" }?.fireAt)
            let now = try #require(try pair.clock(["show", "--home", pair.phoneHome])["now"]?.stringValue.flatMap(Timestamp.parseISO8601))
            try pair.advancePhone("\(Int((timerFireAt - now - 4).rounded(.down)))s")
            #expect(try pair.notifications().deliveredIDs == ["test.soon"])
            try pair.waitUntil("the timer delivered test.timer", timeout: 30) {
                try pair.notifications().deliveredIDs == ["test.soon", "test.timer"]
            }
            try pair.waitUntil("the UI showed it", timeout: 10) { ui.stdoutSoFar.contains("notification: timer") }
            state = try pair.notifications()
            #expect(state.pending.isEmpty)
            try pair.expectDrainedAndClean()
        }
    }

    // 10.
    @Test func noRescheduleForAShortRunNorOnAStartWithNoUI() throws {
        try Self.withFrozenPair("remnone") { pair in
            try pair.freezeWatch(at: Self.t0 - 60 * Self.day)
            _ = try pair.recordRun()
            let before = try pair.reminders()
            #expect(before.pending.map(\.fireAt) == [Self.t0 + 7 * Self.day])
            let rescheduled = try pair.status("phone")["remindersRescheduled"]
            #expect(rescheduled == .integer(1))

            // Three days on; a reschedule now would move the reminder to t0 + 10 d.
            try pair.advancePhone("3d")
            try pair.freezeWatch(at: Self.t0 + 3 * Self.day)
            let short = try pair.record(1, distanceKm: 0.05)  // under 0.1 km: not saved, not a reason
            try pair.waitUntilDrained()
            #expect(try pair.reminders().pending == before.pending)
            #expect(try pair.status("phone")["remindersRescheduled"] == rescheduled)
            pair.killPhone()
            try pair.startPhone()  // a background launch
            #expect(try pair.reminders().pending == before.pending)
            pair.phone?.stop()
            try pair.startPhone()
            #expect(try pair.reminders().pending == before.pending)
            try pair.openHomeScreen()  // the app opened: now the basis moves
            #expect(try pair.reminders().pending.map(\.fireAt) == [Self.t0 + 10 * Self.day])
            // Every flight recorded is stored once, except the short run, which the app ignores by design.
            let report = InvariantChecker.check(
                recorded: pair.recorded.filter { !short.contains($0) }, stored: try pair.logbookIDs(),
                outstandingTransfers: try pair.outstandingTransfers(),
                storePaths: pair.storePaths)
            #expect(report.isClean, "\(report.violations)")
            #expect(report.stored == 1)
        }
    }

    /// A delete reschedules from the new latest run, or clears the reminders when none is left.
    @Test func deletingARunReschedulesFromTheLatestLeft() throws {
        try Self.withFrozenPair("remdel") { pair in
            try pair.freezeWatch(at: Self.t0 - 10 * Self.day)
            let older = try pair.recordRun()
            try pair.freezeWatch(at: Self.t0 - 3600)
            _ = try pair.recordRun()
            #expect(try pair.reminders().pendingIDs == Stage.all)
            try pair.expectDrainedAndClean()
            let newest = try #require(try pair.logbookIDs().last)
            try pair.delete(newest)
            let state = try pair.reminders()
            #expect(state.pending.map(\.fireAt) == [14.0, 21, 28].map { older + $0 * Self.day })
            let last = try #require(try pair.logbookIDs().last)
            try pair.delete(last)
            let none = try runTool(["phone", "reminders", "--home", pair.phoneHome])
            #expect(none.stdout.contains("no runs yet: nothing scheduled"))
            #expect(try pair.reminders().pending.isEmpty)
            try pair.expectDrainedAndClean()  // the deleted runs stay deleted; nothing else is missing
        }
    }
}
