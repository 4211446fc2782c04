import Storage
import Testing
@testable import Connectivity
import PairTesting

@Suite struct OutboxTests {
    func makeOutbox() throws -> (Outbox, Database, String) {
        let (directory, database) = try makeTemporaryStore("outbox", SessionStore.migrations)
        return (Outbox(database: database), database, directory)
    }

    func rows(_ database: Database) throws -> Int64 { try database.scalarInt("SELECT count(*) FROM cx_outbox") }

    func rows(_ database: Database, through seq: Int64) throws -> Int64 {
        try database.scalarInt("SELECT count(*) FROM cx_outbox WHERE seq <= \(seq)")
    }

    @Test func enqueuePagesAcknowledgeAndReport() throws {
        let (outbox, database, directory) = try makeOutbox()
        defer { removeDirectory(directory) }
        let seqs = try database.transaction { try outbox.enqueue(.userInfo, (0..<10).map { [UInt8($0)] }) }
        #expect(seqs == Array(1...10))
        #expect(try outbox.entries(after: 0, limit: 3).map(\.seq) == [1, 2, 3])
        #expect(try outbox.entries(after: 8, limit: 5).map(\.payload) == [[8], [9]])
        try outbox.acknowledge(upTo: 4)
        #expect(try outbox.count() == 6)
        #expect(try outbox.entries(after: 0, limit: 2).map(\.seq) == [5, 6])  // acknowledged ones are gone
        #expect(try !outbox.contains(seq: 3))
        #expect(try outbox.cancel(seq: 7))
        #expect(try !outbox.cancel(seq: 7))
        #expect(try !outbox.cancel(seq: 2))  // already delivered: no effect
        #expect(try outbox.count() == 5)
        #expect(try outbox.entries(after: 0, limit: 100).map(\.seq) == [5, 6, 8, 9, 10])
        #expect(try outbox.unreportedFinished() == [1, 2, 3, 4])
        try outbox.markReported(upTo: 4)
        #expect(try outbox.unreportedFinished().isEmpty)
        try outbox.acknowledge(upTo: 10)
        #expect(try outbox.unreportedFinished() == [5, 6, 8, 9, 10])  // the cancelled one is not finished
        #expect(try outbox.count() == 0)
        try outbox.markReported(upTo: 10)
        #expect(try rows(database) == 0)  // everything delivered and reported: the rows are gone
    }

    @Test func acknowledgedRowsGoInBulkWhenPrunedOrPastTheLimit() throws {
        let (outbox, database, directory) = try makeOutbox()
        defer { removeDirectory(directory) }
        outbox.cleanupThreshold = 100
        outbox.keptLimit = 200
        _ = try database.transaction { try outbox.enqueue(.userInfo, (0..<400).map { _ in [1] }) }
        try outbox.acknowledge(upTo: 50)
        try outbox.markReported(upTo: 50)
        #expect(try !outbox.hasDeliveredToPrune())
        try outbox.pruneDelivered()
        #expect(try rows(database) == 400)  // under the threshold: left for later
        try outbox.acknowledge(upTo: 150)
        try outbox.markReported(upTo: 150)
        #expect(try rows(database) == 400)  // over it, under the limit: kept for a quiet moment
        #expect(try outbox.hasDeliveredToPrune())
        try outbox.pruneDelivered()
        #expect(try rows(database) == 250)
        #expect(try outbox.count() == 250)
        #expect(try !outbox.hasDeliveredToPrune())
        try outbox.acknowledge(upTo: 390)
        try outbox.markReported(upTo: 390)
        #expect(try rows(database) == 210)  // past the limit: the oldest beyond it, at once
        #expect(try rows(database, through: 190) == 0)
        #expect(try outbox.entries(after: 0, limit: 100).map(\.seq) == Array(391...400))
        #expect(try outbox.hasDeliveredToPrune())
        try outbox.pruneDelivered()
        #expect(try rows(database) == 10)  // the rest at a quiet moment
        #expect(try outbox.entries(after: 0, limit: 100).map(\.seq) == Array(391...400))
    }

    @Test func anEmptiedOutboxKeepsALongDrainsRowsUntilPruned() throws {
        let (outbox, database, directory) = try makeOutbox()
        defer { removeDirectory(directory) }
        outbox.cleanupThreshold = 100
        _ = try database.transaction { try outbox.enqueue(.userInfo, (0..<99).map { _ in [1] }) }
        try outbox.acknowledge(upTo: 99)
        try outbox.markReported(upTo: 99)
        #expect(try rows(database) == 0)  // a short drain: the table emptied with its last acknowledgement
        _ = try database.transaction { try outbox.enqueue(.userInfo, (0..<150).map { _ in [1] }) }
        try outbox.acknowledge(upTo: 249)
        try outbox.markReported(upTo: 249)
        #expect(try outbox.count() == 0)
        #expect(try rows(database) == 150)  // a long one: emptying it waits for a quiet link
        #expect(try outbox.hasDeliveredToPrune())
        try outbox.pruneDelivered()
        #expect(try rows(database) == 0)
        #expect(try !outbox.hasDeliveredToPrune())
        #expect(try database.transaction { try outbox.enqueue(.userInfo, [[2]]) } == [250])
        #expect(try outbox.entries(after: 0, limit: 10).map(\.seq) == [250])
    }

    @Test func sequenceNumbersAreNeverReused() throws {
        let (outbox, database, directory) = try makeOutbox()
        defer { removeDirectory(directory) }
        _ = try database.transaction { try outbox.enqueue(.userInfo, [[1], [2], [3]]) }
        try outbox.acknowledge(upTo: 3)
        try outbox.markReported(upTo: 3)
        #expect(try outbox.count() == 0)
        #expect(try database.transaction { try outbox.enqueue(.userInfo, [[4]]) } == [4])
        #expect(try outbox.lastAssignedSeq() == 4)
        try outbox.skipSequence(to: 100)
        #expect(try database.transaction { try outbox.enqueue(.userInfo, [[5]]) } == [101])
        #expect(try outbox.count() == 1)
        #expect(try outbox.unreportedFinished().isEmpty)  // the skipped numbers never held a transfer
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
        #expect(try database.transaction { try outbox.enqueue(.userInfo, [[3]]) } == [1])
    }
}
