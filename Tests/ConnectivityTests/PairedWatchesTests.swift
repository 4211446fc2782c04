import Storage
import Testing
@testable import Connectivity
import PairTesting

/// The phone's watches in its store: a home from before there could be several opens with its one watch
/// active (the migration), and a switch sets one watch's queues aside and brings the other's back, each
/// with its own sequence numbers.
@Suite struct PairedWatchesTests {
    static func pairing(_ watch: String, _ id: String) -> Pairing {
        Pairing(pairingID: id, phoneDeviceID: "phone-1", watchDeviceID: watch, phoneLinkSocket: "/p/link.sock", pairedAt: 1)
    }

    /// A phone's store in a fresh directory, watch-1 (active) and watch-2 paired with it.
    static func storeWithTwoWatches(_ name: String) throws -> (Database, String) {
        let (directory, database) = try makeTemporaryStore(name, file: "store.sqlite", SessionStore.migrations)
        _ = try SessionStore.deviceID(database, role: .phone)
        try PairedWatches.add(database, pairing("watch-1", "P1"), watchHome: "/w1")
        try PairedWatches.add(database, pairing("watch-2", "P2"), watchHome: "/w2")
        return (database, directory)
    }

    @Test func aHomeFromBeforeSeveralWatchesOpensWithItsWatchActive() throws {
        let directory = makeTemporaryDirectory("paired-migration")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/store.sqlite")
        defer { database.close() }
        // The store as the last release left it: every migration up to connectivity.5, one pairing, a queue.
        let before = SessionStore.migrations.filter { $0.id != "connectivity.6" }
        #expect(before.count == SessionStore.migrations.count - 1)
        try Migrator.migrate(database, before)
        _ = try SessionStore.deviceID(database, role: .phone)
        try SessionStore.setPairing(database, Self.pairing("watch-1", "P1"))
        _ = try database.transaction { try Outbox(database: database).enqueue(.userInfo, [[1], [2]]) }

        try Migrator.migrate(database, SessionStore.migrations)
        #expect(try PairedWatches.all(database).map(\.watchDeviceID) == ["watch-1"])
        #expect(try PairedWatches.all(database).first?.pairingID == "P1")
        #expect(try Outbox(database: database).count() == 2, "the queue stays the (active) watch's")
        // A watch home migrated records no watch.
        let watchStore = try Database(path: directory + "/watch.sqlite")
        defer { watchStore.close() }
        try Migrator.migrate(watchStore, before)
        _ = try SessionStore.deviceID(watchStore, role: .watch)
        try SessionStore.setPairing(watchStore, Self.pairing("watch-1", "P1"))
        try Migrator.migrate(watchStore, SessionStore.migrations)
        #expect(try PairedWatches.all(watchStore).isEmpty)
    }

    @Test func aSwitchKeepsEachWatchsQueueAndNumbers() throws {
        let (directory, database) = try makeTemporaryStore("paired-switch", file: "store.sqlite", SessionStore.migrations)
        defer { removeDirectory(directory) }
        defer { database.close() }
        _ = try SessionStore.deviceID(database, role: .phone)
        #expect(try PairedWatches.add(database, Self.pairing("watch-1", "P1"), watchHome: "/w1"), "the first watch is active")
        #expect(try !PairedWatches.add(database, Self.pairing("watch-2", "P2"), watchHome: "/w2"), "the second is added")
        let outbox = Outbox(database: database)
        _ = try database.transaction { try outbox.enqueue(.userInfo, [[1], [2], [3]]) }
        try outbox.acknowledge(upTo: 1)
        try SessionStore.setStateValue(database, "peer.installed", "1")

        let watch2 = try #require(try PairedWatches.find(database, "/w2"))
        #expect(try PairedWatches.switchStored(database, to: "/w2") == .switched(from: "watch-1", to: watch2))
        #expect(try SessionStore.pairing(database)?.pairingID == "P2")
        #expect(try outbox.count() == 0, "watch 2 starts with an empty queue")
        #expect(try PairedWatches.parkedCounts(database) == ["watch-1": 3])
        #expect(try SessionStore.stateValue(database, "peer.installed") == nil, "watch 1's state is set aside")
        let forTwo = try database.transaction { try outbox.enqueue(.userInfo, [[9]]) }
        #expect(forTwo == [1], "watch 2's numbers are its own")
        #expect(try PairedWatches.switchStored(database, to: "watch-2") == .alreadyActive(watch2))

        let watch1 = try #require(try PairedWatches.find(database, "watch-1"))
        #expect(try PairedWatches.switchStored(database, to: "watch-1") == .switched(from: "watch-2", to: watch1))
        #expect(try outbox.count() == 2)
        #expect(try outbox.entries(after: 0, limit: 10).map(\.payload) == [[2], [3]], "watch 1's queue, as it was")
        #expect(try SessionStore.stateValue(database, "peer.installed") == "1")
        #expect(try database.transaction { try outbox.enqueue(.userInfo, [[4]]) } == [4], "watch 1's numbers run on from its own")
        #expect(try PairedWatches.parkedCounts(database) == ["watch-2": 1])
        #expect(throws: WCError.self) { try PairedWatches.switchStored(database, to: "watch-3") }
    }

    @Test func theRowsAWatchWasDeliveredAreNotParkedWithItsQueue() throws {
        let (database, directory) = try Self.storeWithTwoWatches("paired-delivered")
        defer {
            database.close()
            removeDirectory(directory)
        }
        let outbox = Outbox(database: database)
        _ = try database.transaction { try outbox.enqueue(.userInfo, (1...10).map { [UInt8($0)] }) }
        try outbox.acknowledge(upTo: 8)
        try outbox.markReported(upTo: 8)
        #expect(try database.scalarInt("SELECT count(*) FROM cx_outbox") == 10, "delivered rows wait for a quiet moment")
        _ = try PairedWatches.switchStored(database, to: "watch-2")
        #expect(try PairedWatches.parkedCounts(database) == ["watch-1": 2])
        _ = try PairedWatches.switchStored(database, to: "watch-1")
        #expect(try outbox.count() == 2)
        #expect(try outbox.entries(after: 0, limit: 10).map(\.payload) == [[9], [10]])
        #expect(try outbox.unreportedFinished().isEmpty)
        #expect(try database.transaction { try outbox.enqueue(.userInfo, [[11]]) } == [11])
    }

    @Test func deletingTheAppForgetsWhatWasQueuedForEveryWatch() throws {
        let (database, directory) = try Self.storeWithTwoWatches("paired-forget")
        defer {
            database.close()
            removeDirectory(directory)
        }
        let outbox = Outbox(database: database)
        _ = try database.transaction { try outbox.enqueue(.userInfo, [[1], [2]]) }
        _ = try PairedWatches.switchStored(database, to: "watch-2")
        try SessionStore.forgetApp(database)
        #expect(try PairedWatches.parkedCounts(database).isEmpty)
        _ = try PairedWatches.switchStored(database, to: "watch-1")
        #expect(try outbox.count() == 0, "watch 1's queue went with the app")
        #expect(try database.transaction { try outbox.enqueue(.userInfo, [[3]]) } == [3], "its numbers are not used again")
        #expect(try PairedWatches.all(database).count == 2, "the watches stay paired: they are the phone's, not the app's")
    }
}
