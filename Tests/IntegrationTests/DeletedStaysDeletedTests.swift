import Posix
import Control
import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import Storage
import Testing

/// The receive path is the only way in: a full disk neither reorders flights nor brings back one the
/// user deleted, and a resent transfer of a deleted flight stays deleted.
@Suite struct DeletedStaysDeletedTests {
    func pageCount(_ path: String) throws -> Int {
        let database = try Database(path: path)
        defer { database.close() }
        return Int(try database.scalarInt("PRAGMA page_count"))
    }

    func storeLimit(_ home: String, pages: Int) throws {
        let client = try ControlClient(home: DeviceHome(path: home, role: .phone))
        _ = try client.call(ControlRequest(command: "store-limit", arguments: ["pages": .integer(Int64(pages))]))
    }

    /// The disk fills in the middle of a batch; while the link is down space returns and the user deletes
    /// the newest flight; then the watch resends. Order is kept, the deleted flight stays deleted.
    /// (Before the fix, a retry stored the one flight whose write failed on its own, outside the receive
    /// cursor: ahead of the flights rolled back with it, and again after the user deleted it.)
    @Test func aFullDiskNeitherReordersNorResurrects() throws {
        try withRunningPair(tag: "fullord", phone: nil) { pair in
            try pair.startPhone(extraArguments: ["--enable-test-commands"])  // store-limit
            try pair.record(50)
            try pair.waitUntilDrained()
            // Room for some more flights only (the cap is in pages of each store, and the app's store
            // has 16 KiB pages: ~150 flights); the next batches fail part-way.
            try storeLimit(pair.phoneHome, pages: try pageCount(pair.phoneHome + "/store.sqlite") + 8)
            for _ in 0..<6 { try pair.record(50) }
            try pair.waitUntil("the phone reports the full store", timeout: 60) {
                logText(pair.phoneLog).contains("event=receive.commit-failed")
            }
            try pair.setLink(up: false)
            try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            let storedWhileFull = try pair.logbookIDs()
            #expect(storedWhileFull.count < 350)
            try storeLimit(pair.phoneHome, pages: 0)
            // Space is back but the watch is out of range: nothing may be stored behind the receive
            // path's back (the old safety net retried every second).
            Thread.sleep(forTimeInterval: 2.5)
            #expect(try pair.logbookIDs() == storedWhileFull)
            let newest = try #require(try pair.logbookIDs().last)
            try pair.delete(newest)
            try pair.setLink(up: true)
            try pair.expectDrainedAndClean(stored: 349)
            #expect(try !pair.logbookIDs().contains(newest))
        }
    }

    /// Committed, then killed before the acknowledgement: the watch resends the whole batch after the
    /// user has deleted one of its flights. The receive cursor already covers them: nothing comes back.
    @Test func aResentTransferOfADeletedFlightStaysDeleted() throws {
        try withRunningPair(tag: "resend", phone: nil) { pair in
            let ids = try pair.record(5)
            try pair.startPhone(environment: ["RUNWAY_CRASH_AT": "receive.after-commit"])
            #expect(pair.phone!.waitForExit(timeout: 60), "the crash point was never reached")
            #expect(try pair.outstandingTransfers() == 5)
            try pair.setLink(up: false)
            try pair.startPhone()
            try pair.delete(ids[2])
            try pair.setLink(up: true)
            try pair.expectDrainedAndClean()
            #expect(try pair.logbookIDs() == ids.enumerated().filter { $0.offset != 2 }.map(\.element))
        }
    }
}
