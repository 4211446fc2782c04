import Connectivity
import PropertyLists
import Testing

/// A mirrored workout session's traffic, pure (`MirrorSender`, `MirrorReceiver`): what is sent is
/// delivered once and in order whatever the link loses and sends again.
@Suite struct WorkoutMirrorStreamTests {
    static func item(_ n: Int) -> UserInfo { ["op": .string("data"), "n": .integer(Int64(n))] }

    @Test func itemsAreKeptUntilAcknowledgedAndAnAcknowledgementNeverCoversMoreThanWasSent() {
        var sender = MirrorSender()
        for n in 1...5 { #expect(sender.append(Self.item(n)) == Int64(n)) }
        #expect(sender.acknowledge(upTo: 3) == [1, 2, 3])
        #expect(sender.pending.map(\.seq) == [4, 5])
        #expect(sender.acknowledge(upTo: 2) == [], "an old acknowledgement changes nothing")
        #expect(sender.acknowledge(upTo: 99) == [4, 5])
        #expect(sender.acknowledged == 5, "clamped to what was sent")
        #expect(sender.append(Self.item(6)) == 6)
        #expect(sender.pending.map(\.seq) == [6])

        // A restarted side numbers after what its counterpart already took.
        var again = MirrorSender(after: 4)
        #expect(again.append(Self.item(5)) == 5)
        #expect(again.acknowledge(upTo: 3) == [] && again.acknowledge(upTo: 5) == [5])
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
                if Bool.random(using: &random) { _ = sender.acknowledge(upTo: upTo) }
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
