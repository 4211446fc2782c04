import PairTesting
import Storage
import Testing

@testable import Connectivity

/// One reader of a session store from outside the session (issue 43): every lane counted by its own
/// `Outbox`, cancellations and acknowledgements included. The scenario runner's raw SQL counted the
/// userInfo and file lanes only, and cancelled transfers as outstanding.
@Suite struct SessionStoreReaderTests {
    @Test func everyLaneIsCountedTheWayItsOutboxCountsIt() throws {
        let directory = makeTemporaryDirectory("reader")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        defer { database.close() }
        try Migrator.migrate(database, SessionStore.migrations)
        let userInfo = Outbox(database: database), complication = Outbox(database: database, lane: .complication)
        _ = try database.transaction { try userInfo.enqueue(.userInfo, [[1], [2], [3]]) }
        _ = try database.transaction { try complication.enqueue(.userInfo, [[4], [5]]) }
        try userInfo.acknowledge(upTo: 1)
        #expect(try userInfo.cancel(seq: 3))
        let reader = SessionStoreReader(database: database)
        #expect(try reader.outstanding(.userInfo) == 1)
        #expect(try reader.outstanding(.complication) == 2, "the lane the scenario's count forgot")
        #expect(try reader.outstanding(.file) == 0)
        #expect(try reader.outstandingTransfers() == 3)
        #expect(try reader.outstandingEntries(.userInfo, limit: 10).map(\.payload) == [[2]])
        #expect(try reader.quarantined(limit: 10).isEmpty)
        #expect(try reader.contexts().isEmpty)
    }
}
