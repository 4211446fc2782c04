import Posix
import Testing
import PropertyLists
@testable import Connectivity

/// A transport that is "in range" and records wake-ups: the session's side of a watch message waking
/// the phone app, without sockets (the integration tests run the real connector and phone-os).
final class WakeRecordingTransport: LinkTransport {
    var wakes = 0
    var inRange = true
    func start(_ session: Session) throws {}
    func stop() {}
    var canWakeCounterpart: Bool { inRange }
    func wakeCounterpart() { wakes += 1 }
}

/// Messages without a reply handler (Apple's `session(_:didReceiveMessage:)`), and a watch message
/// waiting for the link that wakes the phone app.
@Suite struct MessageDeliveryTests {
    func send(_ message: UserInfo, from session: Session, replyExpected: Bool = true, timeout: UInt64? = nil) -> () -> Result<UserInfo, WCError>? {
        var outcome: Result<UserInfo, WCError>?
        var calls = 0
        session.sendMessage(message, replyExpected: replyExpected, timeoutMilliseconds: timeout) { result in
            calls += 1
            outcome = result
        }
        return {
            #expect(calls <= 1, "the completion ran \(calls) times")
            return outcome
        }
    }

    @Test(arguments: [true, false]) func aMessageWithoutAReplyReachesTheNoReplyCallbackAndIsConfirmed(fromWatch: Bool) throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        let (sender, receiver) = fromWatch ? (harness.watch, harness.phoneDelegate) : (harness.phone, harness.watchDelegate)
        let result = send(["tap": .integer(3)], from: sender, replyExpected: false)
        try harness.drive()
        #expect(try result()?.get() == [:], "delivered: an empty result, no reply")
        #expect(receiver.messagesWithoutReply == [["tap": .integer(3)]])
        #expect(receiver.messages.isEmpty, "the reply-handler callback was not called")
    }

    @Test func aMessageWithoutAReplyToAnUnreachableCounterpartFailsWithNotReachable() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        try harness.watch.setLocalAppState(installed: true, active: false)
        try harness.drive()
        let result = send(["tap": .integer(1)], from: harness.phone, replyExpected: false)
        try harness.drive()
        expectFailure(result(), .notReachable, otherwise: "no notReachable")
    }

    @Test func anUnconfirmedMessageWithoutAReplyFailsWithDeliveryFailed() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        harness.link?.a.dropsOutgoing = true  // the watch's frames are lost on the way
        let result = send(["tap": .integer(1)], from: harness.watch, replyExpected: false, timeout: 300)
        try harness.drive()
        #expect(result() == nil)
        harness.advanceClock(byMilliseconds: 300)
        try harness.drive()
        expectFailure(result(), .deliveryFailed, otherwise: "no deliveryFailed")
    }

    /// The link down but in range: the watch's message waits, the next hello says so, and it is sent
    /// (and answered) when the link comes up.
    @Test func aWatchMessageWaitsForTheLinkAndIsAnsweredWhenItComesUp() throws {
        let transport = WakeRecordingTransport()
        let harness = try PairHarness(watchTransport: transport)
        try harness.activateBoth()
        let result = send(["ping": .integer(1)], from: harness.watch)
        try harness.drive()
        #expect(result() == nil, "waiting, not failed")
        #expect(transport.wakes == 1)
        #expect(try harness.watch.makeHandshake().pendingMessages == 1)
        try harness.connect()
        #expect(try result()?.get() == ["echo": .dictionary(["ping": .integer(1)])])
        #expect(try harness.watch.makeHandshake().pendingMessages == 0)
    }

    @Test func aWaitingMessageFailsWithTheLinksErrorOrItsTimeOut() throws {
        let transport = WakeRecordingTransport()
        let harness = try PairHarness(watchTransport: transport)
        try harness.activateBoth()
        let refused = send(["a": .integer(1)], from: harness.watch)
        try harness.drive()
        harness.watch.linkAttemptFailed(WCError(.notReachable, "force-quit"))
        expectFailure(refused(), .notReachable, otherwise: "no notReachable")
        let late = send(["a": .integer(2)], from: harness.watch, timeout: 400)
        try harness.drive()
        harness.advanceClock(byMilliseconds: 400)
        try harness.drive()
        expectFailure(late(), .messageReplyTimedOut, otherwise: "no time-out")
        #expect(try harness.watch.makeHandshake().pendingMessages == 0, "nothing left to wake the phone for")
        // The phone never waits: it does not wake the watch app. Nor does a backgrounded watch app.
        transport.inRange = false
        let outOfRange = send(["a": .integer(3)], from: harness.watch)
        try harness.drive()
        expectFailure(outOfRange(), .notReachable, otherwise: "no notReachable out of range")
        #expect(transport.wakes == 2)
    }
}
