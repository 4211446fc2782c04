import Glibc
import Posix
import Storage
import Testing
@testable import Connectivity

/// Nothing is acknowledged from a store file that is no longer linked: not by an `ack` frame after a
/// commit into it, and not by the resume point of a handshake.
@Suite struct AcknowledgementGateTests {
    @Test func anUnlinkedStoreAcknowledgesNothing() throws {
        let harness = try PairHarness()
        var reports: [String] = []
        harness.phoneDB.onUnlinked = { reports.append($0) }
        try harness.activateBoth()
        try harness.connect()
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(0..<10))
        try harness.drive()
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 0)

        #expect(unlink(harness.directory + "/phone.sqlite") == 0)
        _ = try harness.watch.transferUserInfo(batch: harness.numbered(10..<15))
        try harness.drive()
        // The receive commit was refused: no acknowledgement, the watch keeps all five.
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 5)
        #expect(reports.count == 1)

        // A new link would acknowledge through its handshake's resume point: refused too.
        harness.link?.closeBoth(reason: "test")
        try harness.drive()
        #expect(throws: WCError.self) { _ = try harness.phone.makeHandshake() }
        #expect(try harness.watch.outstandingUserInfoTransferCount() == 5)
        #expect(reports.count == 1)
    }
}
