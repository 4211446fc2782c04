import CSQLite
import Posix
import Synchronization

/// `PRAGMA quick_check` on a thread of its own, with a read-only connection of its own, while the owner
/// goes on (in WAL mode the check reads one snapshot; the owner's commits are not held up).
///
/// The check reads the whole store, so its cost grows with it (~2–3 ms per 1,000 flights on the build
/// machine): a daemon starting after an unclean stop runs it here rather than before it is ready, so
/// that start-up takes the same time at any size. The moment the check finds damage it marks the store's
/// `StoreHealth` — from then on nothing is committed, checkpointed or acknowledged — before the owner's
/// thread has even heard. `descriptor` becomes readable when the check is over (one byte on a pipe, for
/// the owner's event loop); `outcome` then says how it went.
package final class BackgroundCheck: @unchecked Sendable {
    package enum Outcome: Sendable, Equatable {
        case healthy(milliseconds: Double)
        case damaged(String)
        /// The check could not finish (stopped at shutdown, or SQLite failed): it vouches for nothing.
        case unfinished(String)
    }

    /// Readable once the check is over.
    package var descriptor: Int32 { readEnd.rawValue }
    private let readEnd: FileDescriptor
    private let writeEnd: FileDescriptor
    private let path: String
    private let health: StoreHealth
    private let result = Mutex<Outcome?>(nil)
    /// The check's connection while it runs, so that `stop` can interrupt it (`sqlite3_interrupt` is
    /// safe from another thread while the connection is open; the lock keeps it open meanwhile).
    /// (Its address, as a plain number: a connection is not `Sendable`.)
    private let running = Mutex<UInt>(0)
    private let stopping = Atomic<Bool>(false)
    private var thread = pthread_t()
    private var started = false

    /// Starts checking the store at `path`; damage found is recorded in `health` at once.
    package init(path: String, health: StoreHealth) throws(StorageError) {
        self.path = path
        self.health = health
        do {
            (readEnd, writeEnd) = try FileDescriptor.pipe()
            try readEnd.setNonBlocking()
            try writeEnd.setNonBlocking()
        } catch {
            throw StorageError(resultCode: SQLITE_ERROR, message: "cannot make a pipe (\(error))", operation: "background check")
        }
        let retained = Unmanaged.passRetained(self).toOpaque()
        let code = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<BackgroundCheck>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, retained)
        guard code == 0 else {
            Unmanaged<BackgroundCheck>.fromOpaque(retained).release()
            readEnd.close()
            writeEnd.close()
            throw StorageError(resultCode: SQLITE_ERROR, message: "cannot start the check's thread (\(code))", operation: "background check")
        }
        started = true
    }

    /// How the check went; nil while it runs.
    package var outcome: Outcome? { result.withLock { $0 } }

    /// Interrupts the check if it still runs, waits for its thread and closes the pipe. Idempotent.
    package func stop() {
        guard started else { return }
        started = false
        stopping.store(true, ordering: .releasing)
        running.withLock { address in
            if let connection = OpaquePointer(bitPattern: address) { sqlite3_interrupt(connection) }
        }
        pthread_join(thread, nil)
        readEnd.close()
        writeEnd.close()
    }

    private func run() {
        let outcome = check()
        if case let .damaged(problems) = outcome { health.markDamaged("quick_check: \(problems)") }
        result.withLock { $0 = outcome }
        writeEnd.writeNow([1])
    }

    private func check() -> Outcome {
        let started = Self.nanoseconds()
        SQLiteLibrary.prepare()
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            return .unfinished("open: \(message)")
        }
        sqlite3_busy_timeout(db, 5000)
        running.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(db))) }
        defer {
            running.withLock { $0 = 0 }
            sqlite3_close_v2(db)
        }
        if stopping.load(ordering: .acquiring) { return .unfinished("stopped before it began") }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &statement, nil) == SQLITE_OK, let statement else {
            return Self.failure(db, "prepare")
        }
        defer { sqlite3_finalize(statement) }
        var lines: [String] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                if code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB { return .damaged(String(cString: sqlite3_errmsg(db))) }
                return Self.failure(db, "quick_check")
            }
            if lines.count < 20, let text = sqlite3_column_text(statement, 0) { lines.append(String(cString: text)) }
        }
        guard lines == ["ok"] else { return .damaged(String(lines.joined(separator: "; ").prefix(300))) }
        return .healthy(milliseconds: Double(Self.nanoseconds() - started) / 1e6)
    }

    private static func failure(_ db: OpaquePointer, _ operation: String) -> Outcome {
        .unfinished("\(operation): \(String(cString: sqlite3_errmsg(db))) (SQLite \(sqlite3_extended_errcode(db)))")
    }

    private static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
