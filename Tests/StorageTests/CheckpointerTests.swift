import Glibc
import Testing
@testable import Storage
import PairTesting

@Suite struct CheckpointerTests {
    func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    @Test func theLogIsCopiedIntoTheStoreOffTheWritersThread() throws {
        let directory = makeTemporaryDirectory("ckpt")
        defer { removeDirectory(directory) }
        let path = directory + "/s.sqlite"
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (x BLOB)")
        let checkpointer = try Checkpointer(owner: database)
        let before = fileSize(path)
        let blob = [UInt8](repeating: 7, count: 3000)
        for _ in 0..<20 {
            try database.transaction {
                let insert = try database.statement("INSERT INTO t VALUES (?)")
                for _ in 0..<100 {
                    try insert.bind(blob: blob, at: 1)
                    try insert.run()
                }
            }
        }
        // 2,000 rows of 3 KB: well past the threshold. The writer never checkpointed (the hook only
        // reports); the data reaches the database file anyway.
        var waited = 0
        while fileSize(path) < before + 4_000_000 && waited < 10_000 {
            usleep(10_000)
            waited += 10
        }
        #expect(fileSize(path) >= before + 4_000_000, "the log was not copied within the deadline")
        checkpointer.stop()
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 2000)
        #expect(try database.check() == nil)
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
