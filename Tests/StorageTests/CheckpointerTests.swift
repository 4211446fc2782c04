import Glibc
import Testing
@testable import Storage
import PairTesting

@Suite struct CheckpointerTests {
    func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// A new store with one table of blobs (`t`), in a directory removed afterwards.
    func withStore(_ body: (_ path: String, _ database: Database) throws -> Void) throws {
        let directory = makeTemporaryDirectory("ckpt")
        defer { removeDirectory(directory) }
        let path = directory + "/s.sqlite"
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (x BLOB)")
        try body(path, database)
    }

    @Test func theLogIsCopiedIntoTheStoreOffTheWritersThread() throws {
        try withStore { path, database in
            let checkpointer = Checkpointer(owner: database)
            let before = fileSize(path)
            try fillTheLog(database)
            try fillTheLog(database)
            // 3,000 rows of 3 KB: well past the threshold. The writer never checkpointed (the hook only
            // reports); the data reaches the database file anyway.
            var waited = 0
            while fileSize(path) < before + 4_000_000 && waited < 10_000 {
                usleep(10_000)
                waited += 10
            }
            #expect(fileSize(path) >= before + 4_000_000, "the log was not copied within the deadline")
            checkpointer.stop()
            #expect(try database.scalarInt("SELECT count(*) FROM t") == 3000)
            #expect(try database.check() == nil)
        }
    }

    /// Fills the log past the threshold: 1,500 rows of 3 KB (a page each), fifteen transactions.
    func fillTheLog(_ database: Database) throws {
        let blob = [UInt8](repeating: 7, count: 3000)
        for _ in 0..<15 {
            try database.transaction {
                let insert = try database.statement("INSERT INTO t VALUES (?)")
                for _ in 0..<100 {
                    try insert.bind(blob: blob, at: 1)
                    try insert.run()
                }
            }
        }
    }

    /// Waits up to 10 s for `condition`.
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<1000 where !condition() { usleep(10_000) }
        return condition()
    }

    @Test func theThreadRunsOnlyWhileThereIsCopyingToDo() throws {
        try withStore { path, database in
            let checkpointer = Checkpointer(owner: database, linger: 0.2)
            defer { checkpointer.stop() }
            // Small commits never reach the threshold: no thread at all.
            try database.execute("INSERT INTO t VALUES (x'00')")
            #expect(checkpointer.state.threadsStarted == 0)
            #expect(!checkpointer.state.running)
            // Past it, a thread starts, copies the log into the file, and exits once it has lingered.
            let before = fileSize(path)
            try fillTheLog(database)
            #expect(eventually { fileSize(path) >= before + 2_000_000 }, "the log was not copied")
            #expect(checkpointer.state.threadsStarted == 1)
            #expect(eventually { !checkpointer.state.running }, "the thread did not exit when idle")
            // The next commits past the threshold start another, which copies them too.
            let after = fileSize(path)
            try fillTheLog(database)
            #expect(eventually { fileSize(path) >= after + 2_000_000 }, "the second log was not copied")
            #expect(checkpointer.state.threadsStarted == 2)
            #expect(try database.scalarInt("SELECT count(*) FROM t") == 3001)
            #expect(try database.check() == nil)
        }
    }

    /// The threshold is the log's bytes, not its pages: a store of 16 KiB pages (the app's) is copied
    /// once ~4 MB are in the log, not after 1,000 of its pages (16 MB).
    @Test func theThresholdCountsBytesWhateverThePageSize() throws {
        let directory = makeTemporaryDirectory("ckpt")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite", pageSize: 16_384)
        #expect(try database.scalarInt("PRAGMA page_size") == 16_384)
        try database.execute("CREATE TABLE t (x BLOB)")
        let checkpointer = Checkpointer(owner: database, linger: 0.2)
        defer { checkpointer.stop() }
        // 300 rows of 15 kB, a page each: ~4.9 MB, 300 frames.
        let blob = [UInt8](repeating: 7, count: 15_000)
        try database.transaction {
            let insert = try database.statement("INSERT INTO t VALUES (?)")
            for _ in 0..<300 {
                try insert.bind(blob: blob, at: 1)
                try insert.run()
            }
        }
        #expect(eventually { checkpointer.state.threadsStarted == 1 }, "300 frames of 16 KiB did not start the copy")
    }

    @Test func aStoreCheckpointedInTheBackgroundNeverCheckpointsInItsCommits() throws {
        let directory = makeTemporaryDirectory("ckpt")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        #expect(try database.scalarInt("PRAGMA wal_autocheckpoint") == 1000)  // SQLite's own, inside a commit
        try database.checkpointInBackground()
        #expect(try database.scalarInt("PRAGMA wal_autocheckpoint") == 0)  // the hook only wakes the thread
        database.close()  // stops the thread: no hang, nothing left running
        #expect(!database.isOpen)
    }
}
