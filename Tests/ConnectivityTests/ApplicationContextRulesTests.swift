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

    @Test func anAcknowledgementNeverGoesPastWhatWasSent() {
        let sent = Stored(peerDeviceID: "watch-1", version: 4, payload: [1], ackedVersion: 2)
        #expect(ApplicationContextRules.acknowledged(sent, version: 3)?.ackedVersion == 3)
        #expect(ApplicationContextRules.acknowledged(sent, version: 99)?.ackedVersion == 4)
        #expect(ApplicationContextRules.acknowledged(sent, version: 2) == nil, "nothing new")
        #expect(ApplicationContextRules.acknowledged(nil, version: 2) == nil)
    }
}
