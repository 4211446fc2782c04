@testable import Connectivity
import Testing

/// The application context's rules, pure (`ApplicationContextRules`).
@Suite struct ApplicationContextRulesTests {
    typealias Stored = SessionStore.StoredContext

    @Test func aNewValueTakesTheNextVersionAndTheSameValueNone() {
        let first = ApplicationContextRules.updated(nil, payload: [1], peer: "watch-1")
        #expect(first?.version == 1 && first?.ackedVersion == 0)
        let acked = Stored(peerDeviceID: "watch-1", version: 3, payload: [1], ackedVersion: 3)
        #expect(ApplicationContextRules.updated(acked, payload: [1], peer: "watch-1") == nil, "identical: nothing to deliver")
        let next = ApplicationContextRules.updated(acked, payload: [2], peer: "watch-1")
        #expect(next?.version == 4 && next?.ackedVersion == 3)
        #expect(ApplicationContextRules.needsSending(next) && !ApplicationContextRules.needsSending(acked) && !ApplicationContextRules.needsSending(nil))
    }

    @Test func onlyANewerContextIsStoredAndOnlyAChangedOneDelivered() {
        let stored = Stored(peerDeviceID: "phone-1", version: 5, payload: [7], ackedVersion: 5)
        #expect(ApplicationContextRules.received(version: 1, payload: [7], from: "phone-1", stored: nil) == (true, true))
        #expect(ApplicationContextRules.received(version: 5, payload: [8], from: "phone-1", stored: stored) == (false, false), "a resend")
        #expect(ApplicationContextRules.received(version: 4, payload: [8], from: "phone-1", stored: stored) == (false, false), "an older one")
        #expect(ApplicationContextRules.received(version: 6, payload: [7], from: "phone-1", stored: stored) == (true, false), "newer, same content")
        #expect(ApplicationContextRules.received(version: 6, payload: [9], from: "phone-1", stored: stored) == (true, true))
        #expect(ApplicationContextRules.received(version: 1, payload: [7], from: "phone-2", stored: stored) == (true, true), "another phone")
    }

    /// Issue 51: an acknowledgement names only a version that was sent; one past it is a violation
    /// (before, it was capped: `trusting`).
    @Test func anAcknowledgementNamesOnlyWhatWasSent() {
        let sent = Stored(peerDeviceID: "watch-1", version: 4, payload: [1], ackedVersion: 2)
        var acked = sent
        acked.ackedVersion = 3
        #expect(ApplicationContextRules.acknowledged(sent, version: 3) == .moved(acked))
        #expect(ApplicationContextRules.acknowledged(sent, version: 2) == .nothingNew, "nothing new")
        #expect(ApplicationContextRules.acknowledged(sent, version: 99) == .violation("contextAck for version 99, but the context sent is version 4"))
        #expect(ApplicationContextRules.acknowledged(nil, version: 2) == .violation("contextAck for version 2, but the context sent is version 0"))
        acked.ackedVersion = 4
        #expect(ApplicationContextRules.acknowledged(sent, version: 99, trusting: true) == .moved(acked), "the rule before: capped")
    }

    /// Issue 51: a received context's version moves only one past the highest the receiver knows the
    /// sender had: its handshake's, the one held from it, those on this link.
    @Test func aContextMayBeOnlyOnePastWhatTheSenderHad() {
        let held = Stored(peerDeviceID: "phone-1", version: 5, payload: [7], ackedVersion: 5)
        #expect(ApplicationContextRules.limit(announced: 3, held: held, from: "phone-1", receivedOnLink: 0) == 6)
        #expect(ApplicationContextRules.limit(announced: 9, held: held, from: "phone-1", receivedOnLink: 0) == 10)
        #expect(ApplicationContextRules.limit(announced: 9, held: held, from: "phone-1", receivedOnLink: 12) == 13)
        #expect(ApplicationContextRules.limit(announced: 0, held: held, from: "phone-2", receivedOnLink: 0) == 1, "held from another phone: not this one's")
        #expect(ApplicationContextRules.violation(version: 6, limit: 6) == nil)
        #expect(ApplicationContextRules.violation(version: 3, limit: 6) == nil, "an old one is no violation (stored: no; acknowledged again)")
        #expect(ApplicationContextRules.violation(version: 1_000_000, limit: 6) == "application context version 1000000 arrived where at most 6 was possible")
        #expect(ApplicationContextRules.violation(version: 0, limit: 6) != nil && ApplicationContextRules.violation(version: -1, limit: 6) != nil)
        #expect(ApplicationContextRules.sendLimit(announced: 4, peerHolds: 2, sentOnLink: 0) == 5)
        #expect(ApplicationContextRules.sendLimit(announced: 4, peerHolds: 7, sentOnLink: 5) == 8)
    }

    /// A counterpart holding a version this side never set: the current value goes again past it.
    @Test func aSenderBehindItsCounterpartMovesPastIt() {
        let sent = Stored(peerDeviceID: "watch-1", version: 4, payload: [1], ackedVersion: 4)
        #expect(ApplicationContextRules.healed(sent, peerHolds: 3) == nil)
        #expect(ApplicationContextRules.healed(sent, peerHolds: 4) == nil)
        let healed = ApplicationContextRules.healed(sent, peerHolds: 1_000_000)
        #expect(healed?.version == 1_000_001 && healed?.payload == [1] && healed?.ackedVersion == 4)
        #expect(ApplicationContextRules.needsSending(healed))
        #expect(ApplicationContextRules.healed(nil, peerHolds: 9) == nil, "nothing set: nothing to send")
    }
}
