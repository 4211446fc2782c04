import Foundation
import PairTesting
import Storage
import Testing

/// What the watch keeps of what it delivered, through the real binaries: a long drain's rows are not
/// deleted with its last acknowledgement but at the quiet second after it (`Outbox.pruneDelivered`),
/// and a watch killed before that second deletes them a second after its next activation — nothing
/// resent, nothing stored twice.
@Suite(.serialized) struct DeliveredRowsTests {
    /// Rows in the watch's outbox table, read from its store file.
    func outboxRows(_ pair: SimulatedPair) throws -> Int64 {
        let store = try Database(path: pair.watchHome + "/store.sqlite", readOnly: true)
        defer { store.close() }
        return try store.scalarInt("SELECT count(*) FROM cx_outbox")
    }

    @Test func aWatchKilledBeforeTheQuietSecondPrunesAfterItsNextActivation() throws {
        try withPair(tag: "kept") { pair in
            // Dies right after the drain's last acknowledgement is reported, its rows left for the prune.
            try pair.startWatch(environment: ["RUNWAY_CRASH_AT": "send.delivered-rows-kept"])
            try pair.record(9000)  // more than the 8,192 an emptied outbox deletes at once
            try pair.startPhone()
            #expect(pair.watch!.waitForExit(timeout: 120), "the watch never reached send.delivered-rows-kept")
            #expect(pair.watch!.logTail().contains("crash point send.delivered-rows-kept reached"))
            #expect(try outboxRows(pair) == 9000)
            try pair.startWatch()
            try pair.waitUntil("the watch pruned its delivered rows") { try outboxRows(pair) == 0 }
            try pair.record(10)
            try pair.expectDrainedAndClean(stored: 9010)
        }
    }
}
