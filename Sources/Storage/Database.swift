import CSQLite
import Posix
import Synchronization

/// One SQLite connection, owned by one thread (the daemon's event loop) and closed exactly once.
///
/// Opened in WAL mode with `synchronous=FULL`: a committed transaction survives a process crash and an
/// OS crash or power loss. Statements are cached by their SQL, so the hot path prepares nothing.
package final class Database {
    package enum Durability: String, Sendable {
        /// fsync on every commit: survives power loss. The default.
        case full = "FULL"
        /// No fsync on commit in WAL mode: survives a process crash, not an OS crash.
        case normal = "NORMAL"
    }

    let handle: OpaquePointer
    package let path: String
    private var statementCache: [String: Statement] = [:]
    private var literalCache: [Int: Statement] = [:]
    package private(set) var durability: Durability = .full
    private var isClosed = false
    package var isOpen: Bool { !isClosed }
    /// The last statement error since the transaction began: why SQLite rolled it back on its own.
    package internal(set) var lastStatementError: StorageError?
    /// How many transactions `begin` has opened on this connection: what a cache valid for one
    /// transaction keys on (one rolled back leaves the next with a new number).
    package private(set) var transactionsBegun: UInt64 = 0
    /// Whether the store is a file (not in memory): another connection to `path` reaches it.
    ///
    /// No descriptor of our own is ever opened on the store's file: closing *any* descriptor of a file
    /// drops every POSIX lock the process holds on it, SQLite's included. A second descriptor closed
    /// while this connection was open (by `close()` of a short-lived `Database` on the same file, as the
    /// migrator's was on a first start) silently took away this connection's shared lock on the
    /// database file; the next reader of the store — the `sqlite3` shell, `runway scenario run`'s
    /// `expect` — then believed itself the last connection, checkpointed and deleted the write-ahead
    /// log, and every commit after it went into a log unlinked from the file system. SQLite defers
    /// the close of its own descriptors while a lock is held; a raw `close` cannot. Whether the file is
    /// still linked is asked of SQLite (`SQLITE_FCNTL_HAS_MOVED`).
    let hasFile: Bool
    /// Called once when the store file is found unlinked (see `isStillLinked`).
    package var onUnlinked: ((String) -> Void)?
    private var unlinkReported = false
    /// Whether the store has been found damaged; shared with its checkpointer and background check.
    package let health = StoreHealth()
    /// Called once, on this connection's thread, when a transaction meets the store's damage (found by
    /// the background check, or reported by SQLite as corruption).
    package var onDamaged: ((String) -> Void)?
    private var damageReported = false
    /// Copies the log into the file off this connection's thread (`checkpointInBackground`), stopped by `close()`.
    private var checkpointer: Checkpointer?

    /// Opens (creating) the store at `path` in WAL mode, FULL. `readOnly`: an existing store, for a
    /// reader that must change nothing (not even a checkpoint when it closes). `pageSize`: the page size
    /// of a store this call creates (a power of two, 512 to 65,536); an existing store keeps its own.
    package init(path: String, readOnly: Bool = false, pageSize: Int? = nil, busyTimeoutMilliseconds: Int32 = 5000) throws(StorageError) {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        SQLiteLibrary.prepare()
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let db { sqlite3_close_v2(db) }
            throw StorageError(resultCode: code, message: message, operation: "open \(path)")
        }
        self.handle = db
        self.path = path
        self.hasFile = sqlite3_db_filename(db, "main").map { $0.pointee != 0 } ?? false
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        _ = runway_sqlite3_enable_defensive(db)
        do throws(StorageError) {
            if let pageSize, !readOnly { try execute("PRAGMA page_size=\(pageSize)") }
            // journal_mode returns a row; run it as a query.
            let mode = try scalarString(readOnly ? "PRAGMA journal_mode" : "PRAGMA journal_mode=WAL")
            guard mode.lowercased() == "wal" else {
                throw StorageError(resultCode: SQLITE_ERROR, message: "could not enable WAL (mode is \(mode))", operation: "open \(path)")
            }
            try execute("PRAGMA synchronous=FULL")
            try execute("PRAGMA foreign_keys=ON")
            // SQLite's own default, 2 MiB a connection. 8 MiB (as before issue 26) held the phone's peak
            // RSS over a drain of 100,000 at 52 MB instead of 46 MB (the app's store's cache filled with
            // pages the inserts had finished with), and the drain was no faster: it appends to the end of
            // every b-tree (time-ordered ids), so its working set is a few pages per tree.
            try execute("PRAGMA cache_size=-2048")
            // The system's SQLite (Debian's) is built with SECURE_DELETE, which overwrites every freed page
            // with zeros: the sender's bulk delete of 8,192 acknowledged transfers wrote 17 MB to the log
            // (and its checkpoint copied it again), emptying a 50,000-transfer outbox 86 MB. FAST still
            // zeroes deleted content in pages written anyway, and writes no page only to zero it
            // (SQLite's upstream default is off). Durability is unchanged.
            if !readOnly { try execute("PRAGMA secure_delete=FAST") }
        } catch {
            close()
            throw error
        }
        Self.openConnections.withLock { $0[UInt(bitPattern: db)] = OpenConnection(thread: pthread_self(), database: self) }
    }

    deinit { close() }

    /// Every connection open in the process (its handle's address), with the thread that opened it.
    private static let openConnections = Mutex<[UInt: OpenConnection]>([:])

    /// A connection and the thread that opened it. Sendable although it names the connection: only that
    /// thread follows the reference.
    private struct OpenConnection: @unchecked Sendable {
        let thread: pthread_t
        weak var database: Database?
    }

    /// The bytes of heap this connection's page cache holds (`SQLITE_DBSTATUS_CACHE_USED`).
    package var cachedPageBytes: Int { heapStatus(SQLITE_DBSTATUS_CACHE_USED) }

    /// The bytes of heap this connection's prepared statements hold (`SQLITE_DBSTATUS_STMT_USED`).
    package var statementBytes: Int { heapStatus(SQLITE_DBSTATUS_STMT_USED) }

    private func heapStatus(_ counter: Int32) -> Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(handle, counter, &current, &highest, 0)
        return Int(current)
    }

    /// What `releaseIdleMemory` gave back, in bytes of SQLite's heap.
    package struct Released: Sendable {
        /// The pages the connections' caches held.
        package var cachedPages = 0
        /// The statements they had prepared and cached (`statement(_:)`), prepared again at next use.
        package var statements = 0
    }

    /// Gives SQLite's cached pages back (`sqlite3_db_release_memory`) and finalizes the statements it
    /// cached, on every connection the calling thread opened — a connection is used by one thread, so
    /// only its own — for a daemon gone idle: the pages are read again from the file (or the OS's cache
    /// of it) and the statements prepared again when next needed. Statements handed out by `prepare`
    /// stay with their owners. Nothing changes but memory; not to be called inside a transaction of this
    /// thread's, nor while a cached statement is being stepped.
    @discardableResult
    package static func releaseIdleMemory() -> Released {
        let me = pthread_self()
        let mine = openConnections.withLock { $0.values.filter { pthread_equal($0.thread, me) != 0 }.compactMap(\.database) }
        var released = Released()
        for database in mine {
            let (pages, statements) = (database.cachedPageBytes, database.statementBytes)
            sqlite3_db_release_memory(database.handle)
            database.statementCache.removeAll()
            database.literalCache.removeAll()
            released.cachedPages += pages - database.cachedPageBytes
            released.statements += statements - database.statementBytes
        }
        return released
    }

    /// Finalizes every cached statement and closes the connection. Idempotent.
    package func close() {
        guard !isClosed else { return }
        checkpointer?.stop()
        checkpointer = nil
        isClosed = true
        statementCache.removeAll()
        literalCache.removeAll()
        for held in handedOut { held.statement?.finalize() }
        handedOut.removeAll()
        // The last connection's close copies the write-ahead log into the file: not into a damaged store.
        if health.isDamaged { _ = runway_sqlite3_no_checkpoint_on_close(handle) }
        _ = Self.openConnections.withLock { $0.removeValue(forKey: UInt(bitPattern: handle)) }
        sqlite3_close_v2(handle)
    }

    /// From now on the write-ahead log is copied into the file by a thread of its own (`Checkpointer`:
    /// started when the log first needs it, gone after two seconds without work), never inside one of
    /// this connection's commits; `close()` stops it. For a store written in a loop
    /// that must not stall (the session's, an app's).
    package func checkpointInBackground() throws(StorageError) {
        guard checkpointer == nil, !isClosed else { return }
        checkpointer = Checkpointer(owner: self)
    }

    // MARK: - The file

    /// Whether the store file is still the one at `path`. A file unlinked, or renamed over, while we
    /// hold it open still takes every write and commit — into a file nobody will open again. SQLite
    /// answers from its own descriptor's inode and one `stat` of the path (`SQLITE_FCNTL_HAS_MOVED`):
    /// cheap enough for every commit and acknowledgement, and no descriptor of ours (see `hasFile`).
    package var isStillLinked: Bool {
        guard hasFile, !isClosed else { return true }
        var moved: Int32 = 0
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK else { return false }
        return moved == 0
    }

    /// Says once, through `onUnlinked`, that the store file was found unlinked.
    package func reportUnlinked(during operation: String) {
        guard !unlinkReported else { return }
        unlinkReported = true
        onUnlinked?("the store file \(path) was unlinked while open (found while \(operation))")
    }

    /// Throws (and reports) if the store file is no longer linked: a commit into it would be lost.
    package func requireStillLinked(_ operation: String) throws(StorageError) {
        guard isStillLinked else {
            reportUnlinked(during: operation)
            throw StorageError(
                resultCode: SQLITE_IOERR, message: "the store file \(path) was unlinked while open; nothing more is committed to it", operation: operation)
        }
    }

    /// Throws (and reports, once) if the store has been found damaged: nothing more is committed to it.
    package func requireHealthy(_ operation: String) throws(StorageError) {
        guard health.isDamaged else { return }
        let found = health.damage ?? "damage"
        reportDamaged(found)
        throw StorageError(
            resultCode: SQLITE_CORRUPT, message: "the store \(path) was found damaged (\(found)); nothing more is committed to it", operation: operation)
    }

    private func reportDamaged(_ found: String) {
        guard !damageReported else { return }
        damageReported = true
        onDamaged?(found)
    }

    // MARK: - Statements

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws(StorageError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, "execute", sql: sql) }
    }

    /// A new prepared statement, owned by the caller (and finalized by `close()` if still held then).
    package func prepare(_ sql: String) throws(StorageError) -> Statement {
        let statement = try Statement(database: self, sql: sql)
        if handedOut.count >= 64 { handedOut.removeAll { $0.statement == nil } }
        handedOut.append(WeakStatement(statement: statement))
        return statement
    }

    private struct WeakStatement { weak var statement: Statement? }
    /// Statements handed to callers, so that `close()` can finalize those still alive.
    private var handedOut: [WeakStatement] = []

    /// The cached prepared statement for `sql`, reset and ready to bind.
    package func statement(_ sql: String) throws(StorageError) -> Statement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// The cached prepared statement for a literal `sql`: keyed by the literal's address, so the hot
    /// path never hashes the SQL text.
    package func statement(literal sql: StaticString) throws(StorageError) -> Statement {
        let key = Int(bitPattern: sql.utf8Start)
        if let cached = literalCache[key] {
            cached.reset()
            return cached
        }
        let statement = try Statement(database: self, sql: sql.description)
        literalCache[key] = statement
        return statement
    }

    /// The first column of the first row of `sql`, as an integer (0 if there is no row).
    package func scalarInt(_ sql: String) throws(StorageError) -> Int64 {
        let statement = try statement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }

    package func scalarString(_ sql: String) throws(StorageError) -> String {
        let statement = try prepare(sql)
        return try statement.step() ? statement.string(at: 0) : ""
    }

    package var changes: Int { Int(sqlite3_changes(handle)) }
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Transactions

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction and commits; rolls back if anything throws,
    /// including the commit itself (a full disk surfaces there).
    ///
    /// A store found damaged takes no transaction at all; SQLite reporting corruption inside one marks the
    /// store damaged (`health`) before the error goes on.
    package func transaction<R>(_ body: () throws -> R) throws -> R {
        try begin()
        do {
            let result = try body()
            try commit()
            return result
        } catch {
            rollbackIfNeeded()
            noteCorruption((error as? StorageError) ?? lastStatementError)
            throw error
        }
    }

    /// SQLite reporting corruption in a transaction is damage found: marked (`health`) and reported once.
    private func noteCorruption(_ error: StorageError?) {
        guard let error, error.kind == .corrupt, !health.isDamaged else { return }
        health.markDamaged("SQLite reported \(error)")
        reportDamaged("SQLite reported \(error)")
    }

    /// Opens a `BEGIN IMMEDIATE` transaction that spans calls: for a unit of work that starts in one
    /// callback and ends in another (an app's batch of received transfers). Whoever begins it commits
    /// (`commit`) or rolls it back (`rollback`); prefer `transaction` wherever one scope holds the work.
    ///
    /// A store found damaged takes no transaction (`requireHealthy`).
    package func begin() throws(StorageError) {
        try requireHealthy("begin")
        try execute("BEGIN IMMEDIATE")
        transactionsBegun &+= 1
        lastStatementError = nil
    }

    /// Commits the open transaction: checked first that it is still open and the file still linked
    /// (a commit into an unlinked store would be lost); on failure the transaction is rolled back.
    package func commit() throws(StorageError) {
        do {
            try requireTransaction("commit")
            try requireStillLinked("commit")
            try requireHealthy("commit")
            try execute("COMMIT")
        } catch {
            rollbackIfNeeded()
            noteCorruption(error)
            throw error
        }
    }

    /// Rolls the open transaction back, if any.
    package func rollback() { rollbackIfNeeded() }

    /// Throws unless a transaction is open. SQLite rolls a transaction back by itself after some errors
    /// (a full disk, an I/O error); a write that must be part of the transaction checks first, or it
    /// would quietly commit on its own.
    package func requireTransaction(_ operation: String) throws(StorageError) {
        guard isInTransaction else {
            // Carry the cause (a full disk, an I/O error) so callers can tell what happened.
            let cause = lastStatementError
            throw StorageError(
                resultCode: cause?.resultCode ?? SQLITE_ABORT, extendedCode: cause?.extendedCode,
                message: "the transaction was rolled back after an earlier error" + (cause.map { ": \($0.message)" } ?? ""),
                operation: operation)
        }
    }

    /// Rolls back the open transaction, if SQLite has not already done so (it does for some errors).
    package func rollbackIfNeeded() {
        if isInTransaction { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// Runs `body` with commits at `durability`, then back to what it was.
    package func with<R>(_ durability: Durability, _ body: () throws -> R) throws -> R {
        let previous = self.durability
        try setDurability(durability)
        defer { try? setDurability(previous) }
        return try body()
    }

    /// Sets how hard commits push to the disk from now on (see `Durability`).
    package func setDurability(_ durability: Durability) throws(StorageError) {
        guard durability != self.durability else { return }
        try execute("PRAGMA synchronous=\(durability.rawValue)")
        self.durability = durability
    }

    /// Caps the database file at `pages` pages: a commit that needs more fails with `SQLITE_FULL`, as on
    /// a full disk. For fault-injection tests.
    package func setMaximumPageCount(_ pages: Int) throws(StorageError) {
        _ = try scalarString("PRAGMA max_page_count=\(pages)")
    }

    // MARK: - Health

    /// `PRAGMA quick_check` (or `integrity_check` when `thorough`): nil when healthy, else the problems.
    package func check(thorough: Bool = false) throws(StorageError) -> String? {
        let statement = try prepare(thorough ? "PRAGMA integrity_check" : "PRAGMA quick_check")
        var lines: [String] = []
        while try statement.step() { lines.append(statement.string(at: 0)) }
        return lines == ["ok"] ? nil : lines.joined(separator: "; ")
    }

    // MARK: - Errors

    func error(_ code: Int32, _ operation: String, sql: String? = nil) -> StorageError {
        StorageError(
            resultCode: code,
            extendedCode: sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)),
            operation: operation,
            sql: sql)
    }
}
