@testable import Connectivity
import PropertyLists
import Testing

/// The sequence rule (issue 39): a receiver takes only the transfer after its cursor, per lane. A forged
/// or replayed frame far ahead, or a frame lost from the stream, closes the link with a logged protocol
/// violation instead of moving the cursor past transfers never stored; numbers the sender will never
/// send (cancelled, failed) go as skips, so an honest stream has no gap.
@Suite struct SequenceRuleTests {
    static func frame(_ seq: Int64, _ info: UserInfo) -> [UInt8] {
        SequencedFrame.frame(.userInfo, number: seq, body: PropertyListCodec.encode(info))
    }

    @Test func aTransferFarAheadClosesTheLinkAndTheRealOnesStillArrive() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<5))
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<5))
        // A same-user process speaks as the watch: one frame a million ahead.
        harness.link!.a.send(Self.frame(1_000_000, ["n": .integer(-1)]))
        try harness.drive()
        #expect(harness.link!.closeReason?.contains("transfer 1000000 arrived where 6 was expected") == true, "\(harness.link!.closeReason ?? "open")")
        #expect(try SessionStore.receiveCursor(harness.phoneDB, peer: harness.watch.deviceID) == 5)
        #expect(try harness.phone.quarantinedCount() == 0, "nothing of it was taken")
        // The next fifty real runs are stored, every one.
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(5..<55))
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<55))
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
    }

    @Test func aFrameLostFromTheStreamIsSentAgainNotSkipped() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let link = try #require(try harness.connect())
        // The watch's third frame is lost in flight; the link itself stays up.
        var sent = 0
        link.a.drops = { frame in
            guard frame.type == .userInfo else { return false }
            sent += 1
            return sent == 3
        }
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<10))
        try harness.drive()
        #expect(harness.phoneDelegate.receivedNumbers == [0, 1], "what came before the gap is taken, nothing after it")
        #expect(link.closeReason?.contains("arrived where 3 was expected") == true, "\(link.closeReason ?? "open")")
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<10))
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
    }

    @Test func cancelledTransfersGoAsSkipsAndTheRestArrive() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let transfers = try harness.watch.transferUserInfo(batch: harness.numbered(0..<10))
        for seq in [transfers[0].seq, transfers[4].seq, transfers[5].seq] { #expect(try harness.watch.cancelUserInfoTransfer(seq: seq)) }
        let link = try #require(try harness.connect())
        #expect(harness.phoneDelegate.receivedNumbers == [1, 2, 3, 6, 7, 8, 9])
        #expect(link.closeReason == nil, "an honest stream has no gap")
        let skips = link.a.sentFrames.filter { $0.type == .userInfo && (try? SequencedFrame.split($0.payload).body.isEmpty) == true }
        #expect(skips.count == 3)
        #expect(try SessionStore.receiveCursor(harness.phoneDB, peer: harness.watch.deviceID) == 10)
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
    }

    @Test func theWindowSkipsOnlyWhatWasNeverSent() {
        var window = SendWindow(maximumTransfers: 64, maximumBytes: 1 << 20)
        window.resume(acknowledged: 7, peerCursor: 4)
        #expect(window.skips(before: 8) == 5...7, "acknowledged before the receiver's cursor moved back")
        #expect(window.skips(before: 9) == nil)
        #expect(window.skips(before: 12) == 10...11)
    }

    @Test func aBatchWithAGapIsOutOfSequence() {
        let transfers = SessionCoreTests.transfers(3...8).filter { $0.seq != 6 }
        #expect(ReceiveTransaction(transfers, after: 2).outOfSequence! == (6, 7))
        #expect(ReceiveTransaction(transfers, after: 2).fresh.map(\.seq) == [3, 4, 5], "what came before the gap is taken")
        #expect(ReceiveTransaction(transfers, after: 2, acceptsAnySequence: true).fresh.map(\.seq) == [3, 4, 5, 7, 8], "the receiver before the rule")
        #expect(ReceiveTransaction(SessionCoreTests.transfers(3...8), after: 2).outOfSequence == nil)
        #expect(ReceiveTransaction(SessionCoreTests.transfers(1...8), after: 4).outOfSequence == nil, "resends at or below the cursor are fine")
        #expect(ReceiveTransaction(SessionCoreTests.transfers(9...9), after: 4).outOfSequence! == (5, 9))
    }
}
