import ConnectivityTesting
import Posix
import PropertyLists
import Testing

@testable import Connectivity

/// `transferCurrentComplicationUserInfo`: the budget as a pure rule, and the complication lane over the
/// in-memory link — ahead of queued userInfo, its own sequence numbers, a plain userInfo once the day's 50
/// are spent or while the complication is off.
@Suite struct ComplicationTests {
    @Test func theBudgetIsFiftyADayWhileTheComplicationIsOn() {
        var budget = ComplicationBudget(day: 0, used: 0)
        #expect(budget.remaining(today: 20_261_130, enabled: false) == 0, "off the watch face: none")
        #expect(budget.remaining(today: 20_261_130, enabled: true) == 50)
        for _ in 0..<50 { budget = budget.spending(today: 20_261_130) }
        #expect(budget.remaining(today: 20_261_130, enabled: true) == 0)
        #expect(budget.remaining(today: 20_261_201, enabled: true) == 50, "a new day, the whole budget")
        #expect(budget.spending(today: 20_261_201) == ComplicationBudget(day: 20_261_201, used: 1))
        #expect(ComplicationBudget.day(of: 0) / 10_000 == 1970 || ComplicationBudget.day(of: 0) / 10_000 == 1969)
    }

    /// A paired, linked harness whose watch has the complication on the watch face, the phone's clock at `now`.
    func harness(now: @escaping () -> Double) throws -> PairHarness {
        let harness = try PairHarness()
        harness.phone.deviceClock = now
        try harness.activateBoth()
        try harness.watch.setComplicationEnabled(true)
        try harness.connect()
        return harness
    }

    @Test func aComplicationGoesAheadOfQueuedUserInfoInItsOwnLane() throws {
        let harness = try harness(now: { 1_800_000_000 })
        #expect(harness.phone.counterpartComplicationEnabled, "the watch said so in its handshake")
        #expect(try harness.phone.remainingComplicationUserInfoTransfers() == 50)
        harness.link?.closeBoth(reason: "out of range")
        try harness.drive()
        _ = try harness.phone.transferUserInfo(batch: harness.numbered(0..<3))
        let complication = try harness.phone.transferCurrentComplicationUserInfo(["n": .integer(100)])
        #expect(complication.lane == .complication && complication.seq == 1, "its own sequence numbers")
        #expect(harness.phone.isCurrentComplication(seq: 1))
        #expect(try harness.phone.outstandingTransferCount() == 4)
        try harness.connect()
        let arrived = harness.watchDelegate.received.map { ($0.0["n"]?.int64Value ?? -1, $0.1.lane) }
        #expect(arrived.map(\.0) == [100, 0, 1, 2], "the complication first, then the userInfo in their order")
        #expect(arrived.map(\.1) == [.complication, .userInfo, .userInfo, .userInfo])
        #expect(try harness.phone.outstandingTransferCount() == 0)
        #expect(harness.phoneDelegate.finished.filter { $0.lane == .complication }.map(\.seq) == [1])
        #expect(try SessionStore.receiveCursor(harness.watchDB, peer: harness.phone.deviceID, lane: .complication) == 1)
        #expect(try harness.phone.remainingComplicationUserInfoTransfers() == 49)
    }

    @Test func theFiftyFirstOfADayIsAPlainUserInfoAndTheNextDayHasFiftyAgain() throws {
        nonisolated(unsafe) var now = 1_800_000_000.0
        let harness = try harness(now: { now })
        var lanes: [TransferLane] = []
        for n in 0..<51 { lanes.append(try harness.phone.transferCurrentComplicationUserInfo(["n": .integer(Int64(n))]).lane) }
        #expect(lanes.filter { $0 == .complication }.count == 50 && lanes.last == .userInfo)
        try harness.drive()
        let received = harness.watchDelegate.received
        #expect(received.filter { $0.1.lane == .complication }.count == 50)
        #expect(received.last?.0["n"] == .integer(50) && received.last?.1.lane == .userInfo, "delivered, as a plain userInfo")
        #expect(try harness.phone.remainingComplicationUserInfoTransfers() == 0)
        now += 86_400
        #expect(try harness.phone.remainingComplicationUserInfoTransfers() == 50)
        #expect(try harness.phone.transferCurrentComplicationUserInfo(["n": .integer(51)]).lane == .complication)
    }

    @Test func offTheWatchFaceAComplicationIsAPlainUserInfo() throws {
        let harness = try harness(now: { 1_800_000_000 })
        try harness.watch.setComplicationEnabled(false)
        try harness.drive()
        #expect(!harness.phone.counterpartComplicationEnabled)
        #expect(harness.phoneDelegate.watchStateChanges >= 1, "sessionWatchStateDidChange told the phone's app")
        #expect(try harness.phone.remainingComplicationUserInfoTransfers() == 0)
        #expect(try harness.phone.transferCurrentComplicationUserInfo(["n": .integer(1)]).lane == .userInfo)
        #expect(throws: WCError.self) { try harness.watch.transferCurrentComplicationUserInfo(["n": .integer(1)]) }
    }
}
