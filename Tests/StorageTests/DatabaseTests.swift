import Glibc
import Testing
@testable import Storage
import PairTesting
import Posix

@Suite struct DatabaseTests {
    @Test func opensInWALWithFullSynchronous() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        #expect(try database.scalarString("PRAGMA journal_mode") == "wal")
        #expect(try database.scalarInt("PRAGMA synchronous") == 2)  // FULL
        try database.setDurability(.normal)
        #expect(try database.scalarInt("PRAGMA synchronous") == 1)
    }

    /// A table `t` of `rows` 1,800-byte blobs, written in one transaction.
    static func fill(_ database: Database, rows: Int) throws {
        try database.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        let blob = [UInt8](repeating: 7, count: 1800)
        try database.transaction {
            let insert = try database.statement("INSERT INTO t (payload) VALUES (?)")
            for _ in 0..<rows {
                try insert.bind(blob: blob, at: 1)
                try insert.run()
            }
        }
    }

    /// A store filled and read on this thread, its page cache holding what it read.
    static func filledStore(_ path: String) throws -> Database {
        let database = try Database(path: path)
        try fill(database, rows: 400)
        #expect(try database.scalarInt("SELECT sum(length(payload)) FROM t") == 400 * 1800)
        return database
    }

    /// An idle daemon gives its stores' cached pages and statements back (`DaemonRuntime`, once quiet):
    /// every connection the calling thread opened, and only those — one opened on another thread is that
    /// thread's to use. A statement handed out by `prepare` stays its owner's, and works.
    @Test func idleMemoryIsGivenBackForTheCallingThreadsConnectionsOnly() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let mine = try Self.filledStore(directory + "/mine.sqlite")
        let held = try mine.prepare("SELECT count(*) FROM t WHERE length(payload) = ?")
        nonisolated(unsafe) var theirs: Database?
        let other = try DedicatedThread { theirs = try? Self.filledStore(directory + "/theirs.sqlite") }
        other.join()
        let their = try #require(theirs)
        let (mineBefore, theirsBefore) = (mine.cachedPageBytes, their.cachedPageBytes)
        let (mineStatements, theirStatements) = (mine.statementBytes, their.statementBytes)
        #expect(mineBefore > 200_000, "200 pages read: \(mineBefore) bytes cached")
        #expect(theirsBefore > 200_000)
        #expect(mineStatements > 0 && theirStatements > 0)

        let released = Database.releaseIdleMemory()
        #expect(mine.cachedPageBytes < mineBefore / 10, "\(mine.cachedPageBytes) of \(mineBefore) bytes still cached")
        #expect(released.cachedPages == mineBefore - mine.cachedPageBytes)
        #expect(mine.statementBytes < mineStatements, "the cached statements were finalized")
        #expect(released.statements == mineStatements - mine.statementBytes)
        #expect(their.cachedPageBytes == theirsBefore, "another thread's connection is not touched")
        #expect(their.statementBytes == theirStatements)
        // Nothing but memory changed: the rows are read again from the file, the statement prepared
        // again, and the one handed out still runs.
        #expect(try mine.scalarInt("SELECT sum(length(payload)) FROM t") == 400 * 1800)
        try held.bind(Int64(1800), at: 1)
        #expect(try held.step())
        #expect(held.int(at: 0) == 400)
        their.close()
    }

    @Test func deletingRowsDoesNotWriteTheFreedPages() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let path = directory + "/s.sqlite"
        let database = try Database(path: path)
        #expect(try database.scalarInt("PRAGMA secure_delete") == 2)  // FAST
        try Self.fill(database, rows: 4000)
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try database.transaction { try database.execute("DELETE FROM t WHERE seq <= 2000") }
        // ~1,000 pages freed. With the system SQLite's SECURE_DELETE each was zeroed and written to the
        // log (4 MB); now only the pages that still hold rows or list the freed ones are.
        var info = stat()
        #expect(stat(path + "-wal", &info) == 0)
        #expect(info.st_size < 1_000_000, "the delete wrote \(info.st_size) bytes to the log")
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 2000)
    }

    @Test func transactionsCommitOrRollBackAsAWhole() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        try database.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try database.transaction {
            try database.execute("INSERT INTO t VALUES (1)")
            try database.execute("INSERT INTO t VALUES (2)")
        }
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try database.transaction {
                try database.execute("INSERT INTO t VALUES (3)")
                throw Boom()
            }
        }
        #expect(throws: StorageError.self) {
            try database.transaction {
                try database.execute("INSERT INTO t VALUES (4)")
                try database.execute("INSERT INTO t VALUES (1)")  // constraint violation
            }
        }
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 2)
        #expect(!database.isInTransaction)
    }

    @Test func constraintErrorsCarryKindAndSQLButNotValues() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        try database.execute("CREATE TABLE t (x TEXT PRIMARY KEY)")
        let insert = try database.statement("INSERT INTO t VALUES (?)")
        try insert.bind("secret-value", at: 1)
        try insert.run()
        try insert.bind("secret-value", at: 1)
        do {
            try insert.run()
            Issue.record("duplicate insert succeeded")
        } catch {
            #expect(error.kind == .constraint)
            #expect(error.description.contains("INSERT INTO t"))
            #expect(!error.description.contains("secret-value"))
        }
    }

    @Test func aFullDatabaseFailsWithKindFull() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        try database.execute("CREATE TABLE t (x BLOB)")
        try database.setMaximumPageCount(Int(try database.scalarInt("PRAGMA page_count")) + 2)
        let blob = [UInt8](repeating: 1, count: 64 * 1024)
        do {
            try database.transaction {
                for _ in 0..<10 {
                    let insert = try database.statement("INSERT INTO t VALUES (?)")
                    try insert.bind(blob: blob, at: 1)
                    try insert.run()
                }
            }
            Issue.record("the inserts fit")
        } catch let error as StorageError {
            #expect(error.kind == .full)
            #expect(error.isTransient)
        }
        #expect(!database.isInTransaction)
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 0)
    }

    @Test func migrationsApplyOnceAndRefuseANewerStore() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let path = directory + "/s.sqlite"
        let v1 = [Migration("test.1", "CREATE TABLE a (x INTEGER)")]
        let v2 = v1 + [Migration("test.2", "CREATE TABLE b (y INTEGER)")]
        do {
            let database = try Database(path: path)
            try Migrator.migrate(database, v1)
            try Migrator.migrate(database, v1)  // idempotent
            try Migrator.migrate(database, v2)
            #expect(try database.scalarInt("SELECT count(*) FROM schema_migrations") == 2)
        }
        let older = try Database(path: path)
        do {
            try Migrator.migrate(older, v1)
            Issue.record("an older program accepted a newer store")
        } catch let error as StorageError {
            #expect(error.kind == .newerSchema)
            #expect(error.description.contains("test.2"))
        }
    }

    /// A store with migrations pending gets them on a connection of its own (the schema's churn freed
    /// with it, not left in the caller's heap): the caller's connection changed nothing, and sees every
    /// table.
    @Test func pendingMigrationsRunOnAConnectionOfTheirOwn() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        try Migrator.migrate(database, [Migration("test.1", "CREATE TABLE a (x INTEGER)"), Migration("test.2", "CREATE TABLE b (y INTEGER)")])
        #expect(database.changes == 0, "the caller's connection wrote the migrations")
        #expect(try database.scalarInt("SELECT count(*) FROM schema_migrations") == 2)
        try database.execute("INSERT INTO a VALUES (1); INSERT INTO b VALUES (2)")
        #expect(database.changes == 1)
    }

    @Test func aFailedMigrationLeavesNoTrace() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        let broken = [Migration("test.1", "CREATE TABLE a (x INTEGER); CREATE TABLE a (y INTEGER)")]
        #expect(throws: StorageError.self) { try Migrator.migrate(database, broken) }
        // Not even the table of applied migrations: the store is as it was, empty.
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name IN ('a', 'schema_migrations')") == 0)
    }

    /// The pending migrations are one transaction: when the second fails, the first is not applied
    /// either, and the store stays at the version it had.
    @Test func pendingMigrationsApplyTogetherOrNotAtAll() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        try Migrator.migrate(database, [Migration("test.1", "CREATE TABLE a (x INTEGER)")])
        let pending = [
            Migration("test.1", "CREATE TABLE a (x INTEGER)"), Migration("test.2", "CREATE TABLE b (y INTEGER)"),
            Migration("test.3", "CREATE TABLE a (z INTEGER)"),
        ]
        #expect(throws: StorageError.self) { try Migrator.migrate(database, pending) }
        #expect(try database.scalarInt("SELECT count(*) FROM schema_migrations") == 1)
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'b'") == 0)
        #expect(!database.isInTransaction)
    }

    /// A table rebuilt by copy, drop and rename (how SQLite changes what ALTER TABLE cannot) keeps its
    /// children's rows: the migrations run with foreign keys off, or the drop would cascade into them.
    @Test func aRebuiltTableKeepsItsChildren() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        let v1 = [
            Migration(
                "test.1",
                """
                CREATE TABLE parent (n INTEGER PRIMARY KEY AUTOINCREMENT);
                CREATE TABLE child (n INTEGER NOT NULL REFERENCES parent (n) ON DELETE CASCADE);
                INSERT INTO parent VALUES (1), (2); INSERT INTO child VALUES (1), (2);
                """)
        ]
        try Migrator.migrate(database, v1)
        let rebuild = Migration(
            "test.2",
            """
            CREATE TABLE parent_next (n INTEGER PRIMARY KEY); INSERT INTO parent_next SELECT n FROM parent;
            DROP TABLE parent; ALTER TABLE parent_next RENAME TO parent;
            """)
        try Migrator.migrate(database, v1 + [rebuild])
        #expect(try database.scalarInt("SELECT count(*) FROM child") == 2)
        // Foreign keys are on again afterwards, on the caller's connection too: the cascade works.
        try database.execute("DELETE FROM parent WHERE n = 1")
        #expect(try database.scalarInt("SELECT count(*) FROM child") == 1)
        // Migrations that leave a reference dangling are refused, and leave nothing behind.
        let dangling = Migration("test.3", "DELETE FROM parent")
        #expect(throws: StorageError.self) { try Migrator.migrate(database, v1 + [rebuild, dangling]) }
        #expect(try database.scalarInt("SELECT count(*) FROM parent") == 1)
        #expect(try database.scalarInt("SELECT count(*) FROM schema_migrations") == 2)
    }

    @Test func healthCheckReportsACorruptFile() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let path = directory + "/s.sqlite"
        do {
            let database = try Database(path: path)
            try database.execute("CREATE TABLE t (x TEXT); CREATE INDEX tx ON t (x)")
            try database.transaction {
                for i in 0..<2000 { try database.execute("INSERT INTO t VALUES ('row \(i) padded with some text')") }
            }
            #expect(try database.check() == nil)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // Scribble over the middle of the file (not the header).
        let handle = fopen(path, "r+")!
        fseek(handle, 4096 * 3, SEEK_SET)
        let garbage = [UInt8](repeating: 0xA5, count: 4096 * 2)
        fwrite(garbage, 1, garbage.count, handle)
        fclose(handle)
        let reopened = try Database(path: path)
        // quick_check reads the scribbled pages and names what it found wrong, the database first.
        let problems = try #require(try reopened.check())
        #expect(problems.hasPrefix("*** in database main ***"), "\(problems)")
    }
}

@Suite struct UnlinkedStoreTests {
    /// A store file unlinked while open still takes writes; the commit is refused instead, and the
    /// owner is told once (the daemon exits non-zero on it, before anything is acknowledged).
    @Test func aCommitIntoAnUnlinkedStoreIsRefusedAndReportedOnce() throws {
        let directory = makeTemporaryDirectory("db")
        defer { removeDirectory(directory) }
        let path = directory + "/s.sqlite"
        let database = try Database(path: path)
        var reports: [String] = []
        database.onUnlinked = { reports.append($0) }
        try database.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try database.transaction { try database.execute("INSERT INTO t VALUES (1)") }
        #expect(database.isStillLinked)
        #expect(unlink(path) == 0)
        #expect(!database.isStillLinked)
        for value in 2...3 {
            #expect(throws: StorageError.self) {
                try database.transaction { try database.execute("INSERT INTO t VALUES (\(value))") }
            }
        }
        #expect(!database.isInTransaction)
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 1)
        #expect(reports.count == 1)
        #expect(reports.first?.contains("unlinked") == true)
    }
}

/// Another process reading a store while its owner writes it — the `sqlite3` shell, `runway scenario
/// run`'s `expect` — must lose nothing: the owner keeps SQLite's shared lock on the database file, so a
/// reader closing never believes itself the last connection (which checkpoints and deletes the
/// write-ahead log, leaving every later commit in a log unlinked from the file system).
@Suite struct ReaderLosesNothingTests {
    /// The `sqlite3` shell's count of `t`, read (and closed) in a process of its own.
    static func countInAnotherProcess(_ path: String) throws -> Int? {
        let result = try runUntilExit("/usr/bin/sqlite3", [path, "SELECT count(*) FROM t"])
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The writer opened as a first start is (its schema applied by the migrator's own connection,
    /// closed at once), then read by the shell between commits: every commit is still in the file
    /// system, the log still linked.
    @Test(arguments: [true, false]) func aReaderAfterAnyCommitLosesNothing(firstStart: Bool) throws {
        let directory = makeTemporaryDirectory("reader")
        defer { removeDirectory(directory) }
        let path = directory + "/s.sqlite"
        let migrations = [Migration("t.1", "CREATE TABLE t (x INTEGER PRIMARY KEY)")]
        if !firstStart { try Migrator.migrate(try Database(path: path), migrations) }
        let database = try Database(path: path)
        try Migrator.migrate(database, migrations)
        for value in 1...3 {
            try database.transaction { try database.execute("INSERT INTO t VALUES (\(value))") }
            #expect(try Self.countInAnotherProcess(path) == value, "commit \(value) is missing for a reader")
            #expect(access(path + "-wal", F_OK) == 0, "the reader deleted the owner's write-ahead log")
            #expect(database.isStillLinked)
        }
    }

    /// A short-lived second connection in the owner's own process, closed while the owner goes on (as
    /// the migrator's, or a checker's): the owner keeps its lock.
    @Test func aSecondConnectionClosedInTheProcessLeavesTheOwnersLock() throws {
        let directory = makeTemporaryDirectory("reader")
        defer { removeDirectory(directory) }
        let path = directory + "/s.sqlite"
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        for value in 1...3 {
            let reader = try Database(path: path, readOnly: true)
            #expect(try reader.scalarInt("SELECT count(*) FROM t") == value - 1)
            reader.close()
            try database.transaction { try database.execute("INSERT INTO t VALUES (\(value))") }
            #expect(try Self.countInAnotherProcess(path) == value, "commit \(value) is missing for a reader")
        }
    }
}
