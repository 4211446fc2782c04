import Posix
import Storage
import Testing
import OSServices
@testable import RunWayApp
@testable import RunWayDomain
@testable import UserNotifications
import PairTesting

/// The reminders' rule, and the service on the OS's notification centre, on a manual clock: no
/// daemon, no sleeping.
@Suite struct ReminderRuleTests {
    static let day = 86_400.0
    /// 2026-10-01T07:00:00Z
    static let t0 = 1_790_838_000.0
    static let ids = [7, 14, 21, 28].map(RunReminderService.identifier(elapsedDays:))

    // MARK: - The rule (pure)

    @Test func fourStagesFromTheLastRun() {
        let last = Self.t0 - 3600
        let plan = RunReminderService.plan(lastRunAt: last, now: Self.t0, rule: .current)
        #expect(plan.remove == RunReminderService.allIdentifiers)
        #expect(plan.remove.contains("runway.reminder.inactivity"))
        #expect(plan.add.map(\.id) == Self.ids)
        #expect(plan.add.map(\.fireAt) == [7.0, 14, 21, 28].map { last + $0 * Self.day })
    }

    @Test func aPastStageIsSkippedNotAReturn() {
        let plan = RunReminderService.plan(lastRunAt: Self.t0 - 10 * Self.day, now: Self.t0, rule: .current)
        #expect(plan.add.map(\.id) == Array(Self.ids.dropFirst()))
    }

    @Test func allPastGivesOneAtNowPlusSevenDays() {
        let plan = RunReminderService.plan(lastRunAt: Self.t0 - 60 * Self.day, now: Self.t0, rule: .current)
        #expect(plan.add == [.init(id: "runway.reminder.7d", fireAt: Self.t0 + 7 * Self.day, elapsedDays: 7)])
    }

    @Test func aStageFallingExactlyNowIsSkipped() {
        let last = Self.t0 - 7 * Self.day
        #expect(RunReminderService.plan(lastRunAt: last, now: Self.t0, rule: .current).add.map(\.id) == Array(Self.ids.dropFirst()))
        #expect(RunReminderService.plan(lastRunAt: last, now: Self.t0 - 0.001, rule: .current).add.map(\.id) == Self.ids)
    }

    @Test func noRunsRemovesEverythingAndAddsNothing() {
        #expect(RunReminderService.plan(lastRunAt: nil, now: Self.t0, rule: .current) == .init(remove: RunReminderService.allIdentifiers, add: []))
        #expect(RunReminderService.plan(lastRunAt: nil, now: Self.t0, rule: .legacy) == .init(remove: ["runway.reminder.inactivity"], add: []))
    }

    @Test func legacyIsOneReminderAndNothingOncePast() {
        let recent = RunReminderService.plan(lastRunAt: Self.t0 - 3600, now: Self.t0, rule: .legacy)
        #expect(recent.remove == ["runway.reminder.inactivity"])
        #expect(recent.add == [.init(id: "runway.reminder.inactivity", fireAt: Self.t0 - 3600 + 7 * Self.day, elapsedDays: 7)])
        #expect(RunReminderService.plan(lastRunAt: Self.t0 - 10 * Self.day, now: Self.t0, rule: .legacy).add.isEmpty)
        #expect(RunReminderService.plan(lastRunAt: Self.t0 - 7 * Self.day, now: Self.t0, rule: .legacy).add.isEmpty)
    }

    @Test func eachStageHasItsOwnTextInEachLanguageKoreanByDefault() {
        for language in ReminderTexts.languages {
            let bodies = [7, 14, 21, 28].map { ReminderTexts.body(elapsedDays: $0, language: language) }
            #expect(Set(bodies).count == 4, "\(language)")
        }
        #expect(ReminderTexts.body(elapsedDays: 7) == "일주일째 활주로가 비어있어요. 오늘 다시 이륙해볼까요?")
        #expect(ReminderTexts.body(elapsedDays: 28) == "한 달째 활주로가 비어있어요. 오늘 다시 관제탑에 불을 켜볼까요?")
    }

    // MARK: - The service, on the device OS's notification centre (no daemon)

    struct Fixture {
        let directory = makeTemporaryDirectory("ntf")
        let system: SystemServices
        let un: UNUserNotificationCenter
        var center: UserNotificationCenter { system.center }
        init(now: Double) throws {
            let database = try Database(path: directory + "/os.sqlite")
            try Migrator.migrate(database, SystemServices.migrations)
            system = try SystemServices(database: database, loop: EventLoop(), logger: .silent)
            try system.clock.set(now, frozen: true)
            un = UNUserNotificationCenter(channel: system)
        }
    }

    @Test func theServiceHoldsAtMostFourAndRemovesTheLegacyId() throws {
        let f = try Fixture(now: Self.t0)
        var last: Double? = Self.t0 - 3600
        let legacy = RunReminderService(rule: .legacy, center: f.un, logger: .silent) { last }
        try legacy.reschedule(now: Self.t0, reason: "test")
        #expect(try f.center.pending().map(\.id) == ["runway.reminder.inactivity"])
        let current = RunReminderService(rule: .current, center: f.un, logger: .silent) { last }
        for _ in 0..<3 { try current.reschedule(now: Self.t0, reason: "test") }
        #expect(try f.center.pending().map(\.id) == Self.ids)
        // Delivered over 60 days: each stage once, then nothing more.
        let delivered = try f.center.deliverDue(now: Self.t0 + 60 * Self.day)
        #expect(delivered.map(\.id) == Self.ids)
        last = nil
        try current.reschedule(now: Self.t0, reason: "test")
        #expect(try f.center.pending().isEmpty)
    }

    @Test func timesNeedAnOffsetAndDurationsParseStrictly() throws {
        #expect(try TimeText.parseInstant("2026-10-01T07:00:00Z").get() == Self.t0)
        #expect(try TimeText.parseInstant("2026-10-01T16:00:00+09:00").get() == Self.t0)
        #expect(try TimeText.parseInstant("2026-10-01T02:30:00.5-04:30").get() == Self.t0 + 0.5)
        #expect(TimeText.parseInstant("2026-10-01T07:00:00") == .failure(.missingOffset))
        for bad in ["2026-10-01 07:00:00Z", "2026-02-30T07:00:00Z", "2026-10-01T07:00:00+9", "yesterday", "2026-10-01T07:00:00+19:00"] {
            #expect(TimeText.parseInstant(bad) == .failure(.malformed), "\(bad)")
        }
        #expect(TimeText.parseDuration("7d") == 604_800)
        #expect(TimeText.parseDuration("1d12h") == 129_600)
        #expect(TimeText.parseDuration("90s") == 90)
        #expect(TimeText.parseDuration("0s") == 0)
        for bad in ["", "7", "d", "12h1d", "7d7d", "-1d", "1.5d", "7 d"] {
            #expect(TimeText.parseDuration(bad) == nil, "\(bad)")
        }
        #expect(TimeText.formatDuration(129_600) == "1d12h")
    }
}
