@testable import Connectivity
import Testing

/// The receive side's dispatch, pure (`LinkInbound`): frames of one read in, actions out.
@Suite struct LinkInboundTests {
    func userInfo(_ seq: Int64) -> Frame {
        let bytes = SequencedFrame.frame(.userInfo, number: seq, body: [UInt8(seq & 0xFF)])
        return Frame(.userInfo, Array(bytes.dropFirst(6)))
    }
    func ack(_ seq: Int64) -> Frame { Frame(.ack, Array(SequencedFrame.frame(.ack, number: seq).dropFirst(6))) }
    func seqs(_ action: InboundAction) -> [Int64]? {
        if case let .userInfoBatch(transfers, _) = action { return transfers.map(\.seq) }
        return nil
    }

    @Test func consecutiveTransfersAreOneBatchAndAcknowledgementsComeOnceAtTheEnd() {
        let actions = LinkInbound.actions(for: [userInfo(1), ack(7), userInfo(2), ack(9), ack(8), userInfo(3)])
        #expect(actions.count == 2)
        #expect(seqs(actions[0]) == [1, 2, 3])
        #expect(actions[1] == .acknowledge(upTo: 9, lane: .userInfo))
    }

    @Test func complicationTransfersAreABatchOfTheirOwnLaneWithTheirOwnAcknowledgement() {
        func complication(_ seq: Int64) -> Frame {
            Frame(.complicationUserInfo, Array(SequencedFrame.frame(.complicationUserInfo, number: seq, body: [1]).dropFirst(6)))
        }
        let complicationAck = Frame(.complicationAck, Array(SequencedFrame.frame(.complicationAck, number: 4).dropFirst(6)))
        let actions = LinkInbound.actions(for: [complication(1), complication(2), userInfo(7), complicationAck, ack(3)])
        #expect(actions.count == 4)
        guard case let .userInfoBatch(first, lane)? = actions.first else { return }
        #expect(first.map(\.seq) == [1, 2] && lane == .complication)
        #expect(seqs(actions[1]) == [7])
        #expect(actions[2] == .acknowledge(upTo: 4, lane: .complication))
        #expect(actions[3] == .acknowledge(upTo: 3, lane: .userInfo))
    }

    @Test func anyOtherFrameClosesTheBatchBeforeIt() {
        let state = Frame(.appState, [1])
        let actions = LinkInbound.actions(for: [userInfo(1), userInfo(2), state, userInfo(3)])
        #expect(actions.count == 3)
        #expect(seqs(actions[0]) == [1, 2])
        #expect(actions[1] == .appState([1]))
        #expect(seqs(actions[2]) == [3])
    }

    @Test func aViolationStopsTheReadAndDropsTheUnfinishedBatch() {
        let actions = LinkInbound.actions(for: [userInfo(1), Frame(.ack, [1, 2]), userInfo(2), ack(5)])
        #expect(actions == [.violation("ack frame shorter than its sequence number")])
        let unexpected = LinkInbound.actions(for: [userInfo(1), Frame(.hello, []), ack(1)])
        #expect(unexpected == [.violation("unexpected hello frame on an established link")])
    }

    /// What came before a peer's error is taken: its transfers committed, its acknowledgements applied —
    /// a watch switch acknowledges what the phone delivered, then closes with an error, and a watch that
    /// reads both at once must let go of what was acknowledged (`WatchSwitchTests`). Nothing after it.
    @Test func aPeersErrorCommitsAndAppliesWhatCameBeforeItThenStops() {
        let error = WCError(.notReachable, "the iPhone switched to another watch")
        let actions = LinkInbound.actions(for: [userInfo(1), ack(3), Frame(.error, ErrorFrame.encode(error)), userInfo(2), ack(4)])
        #expect(actions.count == 3)
        #expect(seqs(actions[0]) == [1])
        #expect(actions[1] == .acknowledge(upTo: 3, lane: .userInfo))
        #expect(actions[2] == .peerError(error))
        #expect(actions[2].endsTheRead)
        let none = LinkInbound.actions(for: [Frame(.error, ErrorFrame.encode(error)), ack(4)])
        #expect(none == [.peerError(error)], "an acknowledgement after the error is not applied")
    }

    @Test func messagesAndContextsKeepTheirOrder() {
        let message = Frame(.message, Array(SequencedFrame.frame(.message, number: 4, body: [9]).dropFirst(6)))
        let contextAck = Frame(.contextAck, Array(SequencedFrame.frame(.contextAck, number: 2).dropFirst(6)))
        let actions = LinkInbound.actions(for: [contextAck, message, userInfo(1)])
        #expect(actions.count == 3)
        #expect(actions[0] == .contextAck(version: 2))
        #expect(actions[1] == .message(.message, id: 4, body: [9]))
        #expect(seqs(actions[2]) == [1])
    }
}
