import Connectivity
import PropertyLists
import Testing

/// A mirrored workout session's traffic, pure (`MirrorSender`, `MirrorReceiver`): what is sent is
/// delivered once and in order whatever the link loses and sends again.
@Suite struct WorkoutMirrorStreamTests {
    static func item(_ n: Int) -> UserInfo { ["op": .string("data"), "n": .integer(Int64(n))] }
    static func isViolation(_ result: Acknowledged<[Int64]>) -> Bool { if case .violation = result { true } else { false } }

    @Test func itemsAreKeptUntilAcknowledgedAndAnAcknowledgementNeverCoversMoreThanWasSent() {
        var sender = MirrorSender()
        for n in 1...5 { #expect(sender.append(Self.item(n)) == Int64(n)) }
        #expect(sender.acknowledge(upTo: 3) == .moved([1, 2, 3]))
        #expect(sender.pending.map(\.seq) == [4, 5])
        #expect(sender.acknowledge(upTo: 2) == .nothingNew, "an old acknowledgement changes nothing")
        #expect(sender.acknowledge(upTo: 5) == .moved([4, 5]))
        #expect(sender.acknowledged == 5)
        #expect(sender.append(Self.item(6)) == 6)
        #expect(sender.pending.map(\.seq) == [6])

        // A restarted side numbers after what its counterpart already took.
        var again = MirrorSender(after: 4)
        #expect(again.append(Self.item(5)) == 5)
        #expect(again.acknowledge(upTo: 3) == .nothingNew && again.acknowledge(upTo: 5) == .moved([5]))
    }

    /// Issue 51: an acknowledgement past the last item sent (a forged `mirrorAck`) is a violation and
    /// completes nothing — before, it was capped at the last item, completing items the counterpart
    /// never received. `--unsafe-trust-counterpart` keeps the old cap.
    @Test func anAcknowledgementPastTheLastItemSentIsAViolationAndCompletesNothing() {
        var sender = MirrorSender()
        for n in 1...3 { _ = sender.append(Self.item(n)) }
        guard case let .violation(why) = sender.acknowledge(upTo: 99) else {
            Issue.record("an acknowledgement up to 99 of 3 items sent was taken")
            return
        }
        #expect(why.contains("99") && why.contains("3"))
        #expect(sender.acknowledged == 0 && sender.pending.map(\.seq) == [1, 2, 3], "nothing completed")
        var fresh = MirrorSender()
        #expect(Self.isViolation(fresh.acknowledge(upTo: 1)), "nothing sent: even 1 is past it")
        var restarted = MirrorSender(after: 4)
        #expect(Self.isViolation(restarted.acknowledge(upTo: 5)), "numbered after 4, nothing sent since")
        #expect(restarted.acknowledge(upTo: 4) == .nothingNew)

        var trusting = sender
        #expect(trusting.acknowledge(upTo: 99, trusting: true) == .moved([1, 2, 3]), "the old rule: capped")
        #expect(trusting.acknowledged == 3)
        #expect(trusting.acknowledge(upTo: 99, trusting: true) == .nothingNew)
    }

    @Test func theReceiverTakesEachItemOnceAndInOrder() {
        var receiver = MirrorReceiver()
        #expect(receiver.receive(2) == .gap)
        #expect(receiver.receive(1) == .deliver)
        #expect(receiver.receive(1) == .duplicate)
        #expect(receiver.receive(2) == .deliver)
        #expect(receiver.delivered == 2)
        var restarted = MirrorReceiver(delivered: 7, statesThrough: 9)
        #expect(restarted.receive(7) == .duplicate, "acknowledged before: another process took it")
        #expect(restarted.receive(8) == .deliver)
        #expect(restarted.statesThrough == 9)
    }

    /// 200 rounds: the link drops a random part of each sending, the sender sends everything
    /// unacknowledged again each time; the receiver ends with every item, once, in order.
    @Test func overRandomLinkLossEveryItemArrivesOnceInOrder() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var sender = MirrorSender()
            var receiver = MirrorReceiver()
            var delivered: [Int64] = []
            let count = Int.random(in: 1...30, using: &random)
            var appended = 0
            var rounds = 0
            while (appended < count || !sender.pending.isEmpty) && rounds < 10_000 {
                rounds += 1
                if appended < count, Bool.random(using: &random) {
                    appended += 1
                    _ = sender.append(Self.item(appended))
                }
                // One sending: everything pending, in order; the link cuts after a random number of frames.
                let cut = Int.random(in: 0...sender.pending.count, using: &random)
                var upTo: Int64 = 0
                for (seq, _) in sender.pending.prefix(cut) {
                    switch receiver.receive(seq) {
                    case .deliver: delivered.append(seq)
                    case .duplicate, .gap: break
                    }
                    upTo = receiver.delivered
                }
                // The acknowledgement may be lost too.
                if Bool.random(using: &random), case .violation = sender.acknowledge(upTo: upTo) { Issue.record("an honest acknowledgement refused") }
            }
            #expect(delivered == (1...Int64(count)).map { $0 })
            #expect(sender.pending.isEmpty)
        }
    }

    @Test func framesNameTheirSessionAndNumber() {
        let frame = MirrorFrame.numbered(Self.item(1), session: "S", seq: 4)
        #expect(frame["kind"] == .string(MirrorFrame.item))
        #expect(frame["session"] == .string("S"))
        #expect(frame["seq"] == .integer(4))
        #expect(MirrorFrame.acknowledgement(session: "S", upTo: 4)["upTo"] == .integer(4))
        #expect(MirrorFrame.kinds.contains(frame["kind"]?.stringValue ?? ""))
    }
}
