import Storage
import Testing
@testable import Connectivity

@Suite struct OutboxTests {
    func makeOutbox() throws -> (Outbox, Database, String) {
        let directory = makeTemporaryDirectory("outbox")
        let database = try Database(path: directory + "/s.sqlite")
        try Migrator.migrate(database, SessionStore.migrations)
        return (Outbox(database: database), database, directory)
    }

    @Test func enqueuePagesAcknowledge() throws {
        let (outbox, _, directory) = try makeOutbox()
        defer { removeDirectory(directory) }
        let seqs = try outbox.enqueue(.userInfo, (0..<10).map { [UInt8($0)] })
        #expect(seqs == Array(1...10))
        #expect(try outbox.entries(after: 0, limit: 3).map(\.seq) == [1, 2, 3])
        #expect(try outbox.entries(after: 8, limit: 5).map(\.payload) == [[8], [9]])
        #expect(try outbox.acknowledge(upTo: 4) == [1, 2, 3, 4])
        #expect(try outbox.unreportedFinished() == [1, 2, 3, 4])
        try outbox.forgetFinished(upTo: 4)
        #expect(try outbox.unreportedFinished().isEmpty)
        #expect(try outbox.count() == 6)
        #expect(try outbox.cancel(seq: 7))
        #expect(try !outbox.cancel(seq: 7))
        #expect(try outbox.entries(after: 0, limit: 100).map(\.seq) == [5, 6, 8, 9, 10])
    }

    @Test func sequenceNumbersAreNeverReused() throws {
        let (outbox, _, directory) = try makeOutbox()
        defer { removeDirectory(directory) }
        _ = try outbox.enqueue(.userInfo, [[1], [2], [3]])
        try outbox.acknowledge(upTo: 3)
        #expect(try outbox.count() == 0)
        #expect(try outbox.enqueue(.userInfo, [[4]]) == [4])
        #expect(try outbox.lastAssignedSeq() == 4)
    }

    @Test func aRolledBackEnqueueLeavesNothing() throws {
        let (outbox, database, directory) = try makeOutbox()
        defer { removeDirectory(directory) }
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try database.transaction {
                _ = try outbox.enqueue(.userInfo, [[1], [2]])
                throw Boom()
            }
        }
        #expect(try outbox.count() == 0)
    }
}
