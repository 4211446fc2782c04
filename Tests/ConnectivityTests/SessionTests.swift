import ConnectivityTesting
import Posix
import Storage
import Testing
import PropertyLists
@testable import Connectivity

@Suite struct SessionTests {
    @Test func activationNeedsADelegateAndCompletesAsynchronously() throws {
        let harness = try PairHarness()
        let orphan = Session(role: .watch, database: harness.watchDB, loop: harness.loop, transport: nil, logger: .silent)
        #expect(throws: WCError(.sessionMissingDelegate, "set the session's delegate before activating it")) { try orphan.activate() }
        try harness.watch.activate()
        #expect(harness.watch.activationState == .notActivated)
        #expect(harness.watchDelegate.activations.isEmpty)
        try harness.drive(1)
        #expect(harness.watch.activationState == .activated)
        #expect(harness.watchDelegate.activations.count == 1)
    }

    @Test func sendingBeforeActivationIsSessionNotActivated() throws {
        let harness = try PairHarness()
        do {
            try harness.watch.transferUserInfo(["a": .integer(1)])
            Issue.record("a transfer was accepted before activation")
        } catch let error as WCError {
            #expect(error.code == .sessionNotActivated)
        }
    }

    @Test func oversizedPayloadsAreRefusedAtTheSender() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let big: UserInfo = ["blob": .data([UInt8](repeating: 0, count: 65_536))]
        do {
            try harness.watch.transferUserInfo(big)
            Issue.record("accepted a payload over 64 KiB")
        } catch let error as WCError {
            #expect(error.code == .payloadTooLarge)
        }
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
    }

    @Test func queuedTransfersArriveInOrderOnceLinkedAndLeaveTheOutbox() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let transfers = try harness.watch.transferUserInfo(batch: harness.numbered(0..<50))
        #expect(transfers.map(\.seq) == Array(1...50))
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 50)
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<50))
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
        #expect(harness.watchDelegate.finished.map(\.seq) == Array(1...50))
        #expect(harness.watchDelegate.finished.allSatisfy { !$0.replayed })
        #expect(try SessionStore.receiveCursor(harness.phoneDB, peer: harness.watch.deviceID) == 50)
    }

    @Test func aResendAfterALostAcknowledgementIsNotDeliveredTwice() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<20))
        let link = try #require(try harness.connect(force: true))
        _ = link
        // Everything arrived; now lose the phone's acknowledgements and cut the link.
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(20..<30))
        harness.link!.b.dropsOutgoing = true
        try harness.drive()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<30))
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 10)
        harness.link!.closeBoth(reason: "phone crashed after committing")
        try harness.connect()
        // The handshake's resume point drops 20..<30 from the outbox without resending them.
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<30))
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
    }

    @Test func resentFramesBelowTheCursorAreAcknowledgedNotRedelivered() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<5))
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<5))
        // A confused sender replays seq 1...5: the phone must not deliver them again.
        var replay: [UInt8] = []
        for (index, info) in harness.numbered(0..<5).enumerated() {
            SequencedFrame.append(.userInfo, number: Int64(index + 1), body: PropertyListCodec.encode(info), to: &replay)
        }
        harness.link!.a.send(replay)
        try harness.drive()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<5))
        let acks = harness.link!.b.sentFrames.filter { $0.type == .ack }
        #expect(try SequencedFrame.split(acks.last!.payload).number == 5)
    }

    @Test func aTransferTheAppCannotTakeIsNotAcknowledged() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        harness.phoneDelegate.refuse = [4]
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<8))
        try harness.connect()
        // 1...3 are stored and acknowledged; 4 and everything after stay with the watch.
        #expect(harness.phoneDelegate.receivedNumbers == [0, 1, 2])
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 5)
        #expect(harness.link!.closeReason != nil)
        harness.phoneDelegate.refuse = []
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<8))
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
    }

    @Test func deliveredRowsArePrunedOnceTheLinkIsQuietNotBetweenBatches() throws {
        let harness = try PairHarness()
        harness.watch.outbox.cleanupThreshold = 100
        try harness.activateBoth()
        harness.phoneDelegate.refuse = [300]
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<300))
        try harness.connect()
        let rows = { try harness.watchDB.scalarInt("SELECT count(*) FROM cx_outbox") }
        #expect(harness.watchDelegate.finished.count == 299)
        // Delivered and reported, and kept: deleting them would have stalled the sender's next batch.
        #expect(try rows() == 300)
        let clock = harness.loop.clock as! ManualClock
        clock.advance(byMilliseconds: Session.pruneQuietMilliseconds - 1)
        try harness.drive()
        #expect(try rows() == 300)
        clock.advance(byMilliseconds: 2)
        try harness.drive()
        #expect(try rows() == 1)  // a quiet second: pruned, the undelivered one kept
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 1)
        harness.phoneDelegate.refuse = []
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<300))
        #expect(try rows() == 0)
    }

    @Test func theWindowBoundsTransfersInFlight() throws {
        var configuration = SessionConfiguration()
        configuration.windowTransfers = 8
        let harness = try PairHarness(configuration: configuration)
        try harness.activateBoth()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<100))
        harness.link = try MemoryLink.connect(harness.watch, harness.phone, loop: harness.loop)
        // Before the phone has answered, at most the window has been sent.
        #expect(harness.link!.a.sentFrames.filter { $0.type == .userInfo }.count == 8)
        try harness.drive()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<100))
    }

    @Test func switchingTheWatchDeactivatesThenRefusesTheOldWatch() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        // Re-pair the phone with some other watch while it runs.
        var pairing = try #require(try SessionStore.pairing(harness.phoneDB))
        pairing.pairingID = Identifier.uuid()
        pairing.watchDeviceID = Identifier.uuid()
        try SessionStore.setPairing(harness.phoneDB, pairing)
        let hello = try harness.watch.makeHandshake()
        // The phone notices the switch: inactive (sending now is 7016), then deactivated.
        #expect(harness.phone.validate(hello)?.code == .sessionInactive)
        #expect(harness.phone.activationState == .inactive)
        #expect(throws: WCError.self) { try harness.phone.transferUserInfo(["a": .integer(1)]) }
        try harness.drive(1)
        #expect(harness.phone.activationState == .notActivated)
        #expect(harness.phoneDelegate.deactivations == 1)
        // The app activates again (as Apple asks): the old watch is now simply not paired.
        try harness.phone.activate()
        try harness.drive()
        let error = try #require(harness.phone.validate(hello))
        #expect(error.code == .deviceNotPaired)
        #expect(try MemoryLink.connect(harness.watch, harness.phone, loop: harness.loop) == nil)
    }

    @Test func acknowledgingBeforeCommitSendsTheAckFirst() throws {
        // The deliberate bug: the acknowledgement leaves before the transaction commits.
        var configuration = SessionConfiguration()
        configuration.acknowledgeBeforeCommit = true
        let harness = try PairHarness(configuration: configuration)
        try harness.activateBoth()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<3))
        try harness.connect()
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
        #expect(harness.link!.b.sentFrames.filter { $0.type == .ack }.count == 1)
    }
}

extension PairHarness {
    @discardableResult
    func connect(force: Bool) throws -> MemoryLink? { try connect() }
}
