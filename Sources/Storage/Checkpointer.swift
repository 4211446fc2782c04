import CSQLite
import Glibc
import Synchronization

/// Moves committed pages from the write-ahead log into the database file on a thread of its own, with
/// a connection of its own, so the event loop never stops for it.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold: on the phone that
/// stalls receiving while the log is copied (a quarter of a drain's time here). A passive checkpoint
/// from another connection runs alongside the writer instead. Committed data is already durable in the
/// log (`synchronous=FULL`), so durability does not change — only when the copy happens.
///
/// The owner's connection reports the log's size after each commit (`sqlite3_wal_hook`, which replaces
/// the automatic checkpoint); past `thresholdFrames` this thread copies the log. Should it ever fall far
/// behind, the owner checkpoints inline past `fallbackFrames`, which bounds the log's size.
public final class Checkpointer: @unchecked Sendable {
    public static let thresholdFrames: Int32 = 1000
    public static let fallbackFrames: Int32 = 16_384

    private let path: String
    /// A store found damaged is not checkpointed: its committed pages stay in the log, not in the file.
    private let health: StoreHealth
    private let stopping = Atomic<Bool>(false)
    private let pendingFrames = Atomic<Int32>(0)
    private var thread = pthread_t()
    private var started = false
    private weak var owner: Database?

    /// Starts checkpointing `owner`'s database on its own thread.
    public init(owner: Database) throws(StorageError) {
        self.path = owner.path
        self.health = owner.health
        self.owner = owner
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            owner.handle,
            { context, db, _, frames in
                let checkpointer = Unmanaged<Checkpointer>.fromOpaque(context!).takeUnretainedValue()
                if checkpointer.health.isDamaged { return SQLITE_OK }
                if frames >= Checkpointer.fallbackFrames {
                    sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else {
                    checkpointer.pendingFrames.store(frames, ordering: .releasing)
                }
                return SQLITE_OK
            }, context)
        let retained = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Checkpointer>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, retained)
        if result != 0 {
            Unmanaged<Checkpointer>.fromOpaque(retained).release()
            sqlite3_wal_autocheckpoint(owner.handle, 1000)
            throw StorageError(resultCode: SQLITE_ERROR, message: "cannot start the checkpoint thread (\(result))", operation: "checkpoint")
        }
        started = true
    }

    /// Stops the thread and waits for it (a checkpoint in progress completes first); the owner's
    /// connection goes back to checkpointing by itself.
    public func stop() {
        guard started else { return }
        started = false
        stopping.store(true, ordering: .releasing)
        pthread_join(thread, nil)
        if let owner, owner.isOpen { sqlite3_wal_autocheckpoint(owner.handle, 1000) }
    }

    private func run() {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            return
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 100)
        sqlite3_exec(db, "PRAGMA synchronous=FULL", nil, nil, nil)
        while !stopping.load(ordering: .acquiring) {
            guard pendingFrames.load(ordering: .acquiring) >= Self.thresholdFrames else {
                usleep(2_000)
                continue
            }
            pendingFrames.store(0, ordering: .releasing)
            if health.isDamaged { continue }
            sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }
}
