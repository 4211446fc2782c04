import PairTesting
import Storage
import Testing

@testable import Connectivity

/// One reader of a session store from outside the session (issue 43): every lane counted by its own
/// `Outbox`, cancellations and acknowledgements included. The scenario runner's raw SQL counted the
/// userInfo and file lanes only, and cancelled transfers as outstanding.
@Suite struct SessionStoreReaderTests {
    @Test func everyLaneIsCountedTheWayItsOutboxCountsIt() throws {
        let (directory, database) = try makeTemporaryStore("reader", SessionStore.migrations)
        defer { removeDirectory(directory) }
        defer { database.close() }
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

    /// watch-os speaks for a watch app that is not running with what the reader says: the app's state as
    /// last recorded, not active, every lane's cursor.
    @Test func theHandshakeIsTheStoresNotActive() throws {
        let (directory, database) = try makeTemporaryStore("reader-hello", SessionStore.migrations)
        defer { removeDirectory(directory) }
        defer { database.close() }
        let reader = SessionStoreReader(database: database)
        #expect(reader.handshake(role: .watch) == nil, "not paired: no hello")
        #expect(reader.appInstalled() && !reader.counterpartAppInstalled())
        let pairing = Pairing(pairingID: "P", phoneDeviceID: "F", watchDeviceID: "W", phoneLinkSocket: "/tmp/link.sock", pairedAt: 0)
        try SessionStore.setPairing(database, pairing)
        try database.transaction {
            try SessionStore.setStateValue(database, "app.version", "2.0")
            try SessionStore.setStateValue(database, "app.complication", "1")
            try SessionStore.setStateValue(database, "peer.installed", "1")
            try SessionStore.setReceiveCursor(database, peer: "F", seq: 4, lane: .complication)
        }
        _ = try SessionStore.deviceID(database, role: .watch)
        let said = try #require(reader.handshake(role: .watch))
        #expect(said.pairing == pairing && said.handshake.pairingID == "P" && said.handshake.appVersion == "2.0")
        #expect(said.handshake.appInstalled && !said.handshake.appActive && said.handshake.complicationEnabled)
        #expect(said.handshake.resume == Lanes(userInfo: 0, complication: 4, file: 0))
        #expect(reader.counterpartAppInstalled())
    }
}
