import OSServices
import Posix
import Storage
import Testing
import PairTesting

/// The device OS's notification centre and clock, on a real store and a manual clock: no daemon, no
/// sleeping.
@Suite struct SystemServicesTests {
    static let day = 86_400.0
    /// 2026-10-01T07:00:00Z
    static let t0 = 1_790_838_000.0

    // MARK: - The notification centre

    struct Fixture {
        let directory = makeTemporaryDirectory("ntf")
        let database: Database
        let center: UserNotificationCenter
        init() throws {
            database = try Database(path: directory + "/s.sqlite")
            try Migrator.migrate(database, SystemServices.migrations)
            center = UserNotificationCenter(database: database, logger: .silent)
        }
        func request(_ id: String, _ fireAt: Double) -> UserNotificationCenter.Request {
            .init(id: id, fireAt: fireAt, title: "t", body: id, language: "ko")
        }
    }

    @Test func theCentreRefusesThePastReplacesByIdAndKeepsSixtyFour() throws {
        let f = try Fixture()
        #expect(throws: UserNotificationCenter.AddError.self) { try f.center.add(f.request("now", Self.t0), now: Self.t0) }
        #expect(try f.center.pending().isEmpty)
        try f.center.add(f.request("a", Self.t0 + 10), now: Self.t0)
        try f.center.add(f.request("a", Self.t0 + 20), now: Self.t0)
        #expect(try f.center.pending().map(\.fireAt) == [Self.t0 + 20])
        var dropped: [String] = []
        for i in 0..<70 { dropped += try f.center.add(f.request("n\(i)", Self.t0 + 1000 - Double(i)), now: Self.t0) }
        // 71 added in all ("a" first): the seven earliest-added went, whatever their fire dates.
        #expect(dropped == ["a"] + (0..<6).map { "n\($0)" })
        #expect(try f.center.pending().count == 64)
        #expect(try f.center.removePending(["n6", "unknown"]) == 1)
    }

    @Test func deliveryIsOnceInFireOrderAtTheFireDate() throws {
        let f = try Fixture()
        try f.center.add(f.request("late", Self.t0 + 300), now: Self.t0)
        try f.center.add(f.request("early", Self.t0 + 100), now: Self.t0)
        try f.center.add(f.request("later", Self.t0 + 10_000), now: Self.t0)
        #expect(try f.center.deliverDue(now: Self.t0 + 99).isEmpty)
        let first = try f.center.deliverDue(now: Self.t0 + 1000)
        #expect(first.map(\.id) == ["early", "late"])
        #expect(first.map(\.deliveredAt) == [Self.t0 + 100, Self.t0 + 300])
        #expect(try f.center.deliverDue(now: Self.t0 + 2000).isEmpty)
        #expect(try f.center.delivered().map(\.id) == ["early", "late"])
        #expect(try f.center.nextFireAt() == Self.t0 + 10_000)
    }

    // MARK: - The clock

    @Test func theClockRunsFreezesAdvancesAndPersists() throws {
        let f = try Fixture()
        var system = Self.t0
        let clock = try DeviceClock(database: f.database) { system }
        #expect(clock.now == Self.t0 && clock.mode == .offset)
        try clock.set(Self.t0 + 86_400, frozen: false)
        system += 10
        #expect(clock.now == Self.t0 + 86_410)
        try clock.set(Self.t0, frozen: true)
        system += 1000
        #expect(clock.now == Self.t0)
        try clock.advance(by: 7 * Self.day)
        #expect(clock.now == Self.t0 + 7 * Self.day && clock.mode == .frozen)
        #expect((try? clock.advance(by: 0)) == nil)
        #expect((try? clock.advance(by: 3651 * Self.day)) == nil)
        #expect((try? clock.set(978_307_199, frozen: true)) == nil)
        #expect(clock.now == Self.t0 + 7 * Self.day)
        let reopened = try DeviceClock(database: f.database) { system }
        #expect(reopened.reading == clock.reading)
        try reopened.reset()
        #expect(reopened.now == system && reopened.mode == .offset)
    }

}
