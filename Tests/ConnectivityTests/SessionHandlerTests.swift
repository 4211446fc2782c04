import Testing
@testable import Connectivity

/// Nothing is taken by a default: a received transfer a handler leaves unanswered, or answers by
/// throwing, is not acknowledged; the sender keeps it and it is delivered again.
@Suite struct SessionHandlerTests {
    /// Answers every callback with nil, or throws for the transfers it is told to.
    final class Unanswering: SessionHandler {
        var heard = 0
        var throwing = false
        struct Failed: Error {}

        func handle(_ callback: SessionCallback, from session: Session) throws -> ReceiveOutcome? {
            guard case .didReceiveUserInfo = callback else { return nil }
            heard += 1
            if throwing { throw Failed() }
            return nil
        }
    }

    @Test(arguments: [false, true]) func aTransferNotAnsweredIsNotTaken(throwing: Bool) throws {
        let harness = try PairHarness()
        let unanswering = Unanswering()
        unanswering.throwing = throwing
        harness.phone.handler = unanswering
        try harness.activateBoth()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<4))
        try harness.connect()
        #expect(unanswering.heard >= 1)
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 4)
        // An app that answers takes them all.
        #expect(harness.link!.closeReason != nil)
        harness.phone.handler = harness.phoneDelegate
        try harness.connect()
        #expect(harness.phoneDelegate.receivedNumbers == Array(0..<4))
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)
    }
}
