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
/// the automatic checkpoint); past `thresholdFrames` it wakes this thread, which copies the log. The
/// thread sleeps on a condition variable in between — an idle store costs no wake-ups, which matters
/// with two thousand daemons on one host. Should it ever fall far behind, the owner checkpoints inline
/// past `fallbackFrames`, which bounds the log's size.
///
/// Every store a device writes in a loop gets one (`Database.checkpointInBackground()`): the
/// WatchConnectivity service's and the app's own.
public final class Checkpointer: @unchecked Sendable {
    public static let thresholdFrames: Int32 = 1000
    public static let fallbackFrames: Int32 = 16_384

    private let path: String
    /// A store found damaged is not checkpointed: its committed pages stay in the log, not in the file.
    private let health: StoreHealth
    /// Guards `pendingFrames` and `stopping`; the thread waits on `wake`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var stopping = false
    private var pendingFrames: Int32 = 0
    private var thread = pthread_t()
    private var started = false
    private weak var owner: Database?

    /// Starts checkpointing `owner`'s database on its own thread.
    public init(owner: Database) throws(StorageError) {
        self.path = owner.path
        self.health = owner.health
        self.owner = owner
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            owner.handle,
            { context, db, _, frames in
                let checkpointer = Unmanaged<Checkpointer>.fromOpaque(context!).takeUnretainedValue()
                if checkpointer.health.isDamaged { return SQLITE_OK }
                if frames >= Checkpointer.fallbackFrames {
                    sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else if frames >= Checkpointer.thresholdFrames {
                    checkpointer.signal(frames)
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

    deinit {
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(mutex)
        wake.deallocate()
        mutex.deallocate()
    }

    /// Stops the thread and waits for it (a checkpoint in progress completes first); the owner's
    /// connection goes back to checkpointing by itself.
    public func stop() {
        guard started else { return }
        started = false
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_signal(wake)
        pthread_mutex_unlock(mutex)
        pthread_join(thread, nil)
        if let owner, owner.isOpen { sqlite3_wal_autocheckpoint(owner.handle, 1000) }
    }

    /// On the owner's thread, after a commit left `frames` in the log: wake the thread.
    private func signal(_ frames: Int32) {
        pthread_mutex_lock(mutex)
        pendingFrames = frames
        pthread_cond_signal(wake)
        pthread_mutex_unlock(mutex)
    }

    private func run() {
        SQLiteLibrary.prepare()
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            return
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 100)
        sqlite3_exec(db, "PRAGMA synchronous=FULL", nil, nil, nil)
        while true {
            pthread_mutex_lock(mutex)
            while !stopping && pendingFrames < Self.thresholdFrames { pthread_cond_wait(wake, mutex) }
            let stop = stopping
            pendingFrames = 0
            pthread_mutex_unlock(mutex)
            if stop { return }
            if health.isDamaged { continue }
            sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }
}
