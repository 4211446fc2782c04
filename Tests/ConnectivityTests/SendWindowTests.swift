@testable import Connectivity
import Testing

/// The sender's window, pure (`SendWindow`): no loop, no socket, no database.
@Suite struct SendWindowTests {
    @Test func theWindowFillsByCountAndByBytes() {
        var byCount = SendWindow(maximumTransfers: 3, maximumBytes: 1 << 20)
        for seq in 1...3 { #expect(byCount.take(seq: Int64(seq), bytes: 10) == .send) }
        #expect(byCount.room == 0)
        #expect(byCount.lastSentSeq == 3)
        var byBytes = SendWindow(maximumTransfers: 100, maximumBytes: 100)
        #expect(byBytes.take(seq: 1, bytes: 60) == .send)
        #expect(byBytes.room == 99)
        #expect(byBytes.take(seq: 2, bytes: 60) == .send)
        #expect(byBytes.room == 0, "120 of 100 bytes in flight")
    }

    @Test func anAcknowledgementReleasesWhatItCoversAndNeverMoreThanWasSent() {
        var window = SendWindow(maximumTransfers: 4, maximumBytes: 1 << 20)
        for seq in 1...4 { _ = window.take(seq: Int64(seq), bytes: 100) }
        #expect(window.acknowledge(upTo: 2) == .moved(2))
        #expect(window.transfersInFlight == 2 && window.inFlightBytes == 200 && window.room == 2)
        #expect(window.acknowledge(upTo: 2) == .nothingNew, "nothing new")
        #expect(window.acknowledge(upTo: 1) == .nothingNew, "an old acknowledgement")
        // Issue 51: 5...99 were never sent — an acknowledgement of them is a forged frame, and the link closes.
        #expect(window.acknowledge(upTo: 99) == .violation("acknowledgement up to 99, but only up to 4 was sent on this link"))
        #expect(window.lastAckedSeq == 2, "nothing released by it")
        #expect(window.acknowledge(upTo: 99, trusting: true) == .moved(4), "the rule before: capped at the last sent")
        #expect(window.lastAckedSeq == 4 && window.transfersInFlight == 0 && window.inFlightBytes == 0)
        #expect(!window.isOnTheWire(4) && !window.isOnTheWire(5))
    }

    @Test func whatIsOnTheWireIsSentAndNotAcknowledged() {
        var window = SendWindow(maximumTransfers: 10, maximumBytes: 1 << 20)
        window.resume(acknowledged: 10)
        for seq in 11...13 { _ = window.take(seq: Int64(seq), bytes: 1) }
        #expect(window.isOnTheWire(11) && window.isOnTheWire(13))
        #expect(!window.isOnTheWire(10) && !window.isOnTheWire(14))
        window.linkClosed()
        #expect(window.transfersInFlight == 0 && window.room == 10)
        window.resume(acknowledged: 12)
        #expect(window.lastSentSeq == 12 && window.lastAckedSeq == 12)
    }

    @Test func failNextFailsExactlyThatManyThenSends() {
        var window = SendWindow(maximumTransfers: 10, maximumBytes: 1 << 20)
        window.failNext(2, code: .transferTimedOut)
        #expect(window.take(seq: 1, bytes: 1) == .fail(.transferTimedOut))
        #expect(window.take(seq: 2, bytes: 1) == .fail(.transferTimedOut))
        #expect(window.take(seq: 3, bytes: 1) == .send)
        #expect(window.failNextCount == 0)
        #expect(window.lastSentSeq == 3 && window.transfersInFlight == 1, "a failed transfer is never in flight")
    }

    @Test func theRateLimitGrantsATenthOfASecondAtMostAndRefillsWithTime() {
        var window = SendWindow(maximumTransfers: 1000, maximumBytes: 1 << 20)
        let second: UInt64 = 1_000_000_000
        #expect(window.takeTokens(upTo: 500, rate: 100, now: 5 * second) == 1, "one token to start")
        #expect(window.takeTokens(upTo: 500, rate: 100, now: 5 * second) == 0, "empty: come back later")
        #expect(window.takeTokens(upTo: 500, rate: 100, now: 5 * second + second / 20) == 5, "50 ms at 100/s")
        #expect(window.takeTokens(upTo: 500, rate: 100, now: 60 * second) == 10, "a burst is at most a tenth of a second")
        #expect(window.takeTokens(upTo: 500, rate: 100, now: 59 * second) == 0, "a clock that steps back grants nothing")
        #expect(window.takeTokens(upTo: 7, rate: 0, now: 0) == 7, "no limit")
    }
}
