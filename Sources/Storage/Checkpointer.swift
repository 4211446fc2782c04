import CSQLite
import Posix
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
/// the automatic checkpoint); past `thresholdBytes` of pages it wakes this thread, which copies the log.
/// Should it ever fall far behind, the owner checkpoints inline past `fallbackBytes`, which bounds the
/// log's size. Both are counted in bytes, whatever the store's page size (4 KiB, or the app's 16 KiB).
///
/// The thread exists only while there is copying to do: the first commit past the threshold starts it,
/// and once it has waited `linger` seconds with nothing to copy it closes its connection and exits — an
/// idle store costs no thread, no connection and no wake-ups, which matters with two thousand daemons on
/// one host (each such thread held ~60 kB: its stack, its connection, its share of the heap). The next
/// commit past the threshold starts another.
///
/// Every store a device writes in a loop gets one (`Database.checkpointInBackground()`): the
/// WatchConnectivity service's and the app's own.
package final class Checkpointer: @unchecked Sendable {
    /// 1,000 pages of 4 KiB, SQLite's own automatic threshold.
    package static let thresholdBytes = 4_096_000
    package static let fallbackBytes = 16_384 * 4096
    /// The thresholds in this store's pages.
    let thresholdFrames: Int32
    let fallbackFrames: Int32
    /// Seconds the thread waits for more work before it exits.
    package static let defaultLinger = 2.0

    private let path: String
    /// A store found damaged is not checkpointed: its committed pages stay in the log, not in the file.
    private let health: StoreHealth
    private let linger: Double
    /// Guards everything below it; the thread waits on `wake` (on the monotonic clock).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var stopping = false
    private var pendingFrames: Int32 = 0
    /// The thread is alive and will see `wake`; false once it has decided to exit.
    private var running = false
    /// A thread created and not yet joined: running, or exited and waiting for the next start or `stop`.
    private var thread: pthread_t?
    private var threadsStarted = 0
    private weak var owner: Database?

    /// Checkpoints `owner`'s database from now on, on a thread started when the log first needs it.
    package init(owner: Database, linger: Double = Checkpointer.defaultLinger) {
        self.path = owner.path
        self.health = owner.health
        self.owner = owner
        self.linger = linger
        let pageSize = Int(max(512, min(65536, (try? owner.scalarInt("PRAGMA page_size")) ?? 4096)))
        thresholdFrames = Int32(Self.thresholdBytes / pageSize)
        fallbackFrames = Int32(Self.fallbackBytes / pageSize)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wake, &attributes)
        pthread_condattr_destroy(&attributes)
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            owner.handle,
            { context, db, _, frames in
                let checkpointer = Unmanaged<Checkpointer>.fromOpaque(context!).takeUnretainedValue()
                if checkpointer.health.isDamaged { return SQLITE_OK }
                if frames >= checkpointer.fallbackFrames {
                    sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else if frames >= checkpointer.thresholdFrames, !checkpointer.signal(frames) {
                    // No thread could be started: copy the log here rather than let it grow.
                    sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, context)
    }

    deinit {
        // A thread still running holds this object, so one left here has exited: join it.
        if let thread { pthread_join(thread, nil) }
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(mutex)
        wake.deallocate()
        mutex.deallocate()
    }

    /// Whether the thread is alive now, and how many were started so far (tests).
    var state: (running: Bool, threadsStarted: Int) { locked { (running, threadsStarted) } }

    /// Stops the thread if it runs and waits for it (a checkpoint in progress completes first); none
    /// starts again, and the owner's connection goes back to checkpointing by itself.
    package func stop() {
        let joining: pthread_t? = locked {
            guard !stopping else { return nil }
            stopping = true
            pthread_cond_signal(wake)
            defer { thread = nil }
            return thread
        }
        if let joining { pthread_join(joining, nil) }
        if let owner, owner.isOpen { sqlite3_wal_autocheckpoint(owner.handle, 1000) }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// On the owner's thread, after a commit left `frames` in the log: wake the thread, or start one.
    /// False if none could be started.
    private func signal(_ frames: Int32) -> Bool {
        locked {
            pendingFrames = frames
            if running {
                pthread_cond_signal(wake)
                return true
            }
            if stopping { return true }
            // The last thread decided to exit (it no longer needs the lock): reap it first.
            if let exited = thread {
                pthread_join(exited, nil)
                thread = nil
            }
            let retained = Unmanaged.passRetained(self).toOpaque()
            var created = pthread_t()
            let result = pthread_create(
                &created, nil,
                { context in
                    Unmanaged<Checkpointer>.fromOpaque(context!).takeRetainedValue().run()
                    return nil
                }, retained)
            guard result == 0 else {
                Unmanaged<Checkpointer>.fromOpaque(retained).release()
                return false
            }
            thread = created
            running = true
            threadsStarted += 1
            return true
        }
    }

    private func run() {
        SQLiteLibrary.prepare()
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            locked { running = false }
            return
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_busy_timeout(db, 100)
        sqlite3_exec(db, "PRAGMA synchronous=FULL", nil, nil, nil)
        while true {
            let work: Bool = locked {
                var deadline = MonotonicDeadline.after(seconds: linger)
                while !stopping && pendingFrames < thresholdFrames {
                    if pthread_cond_timedwait(wake, mutex, &deadline) == ETIMEDOUT { break }
                }
                guard !stopping, pendingFrames >= thresholdFrames else {
                    running = false
                    return false
                }
                pendingFrames = 0
                return true
            }
            if !work { return }
            if health.isDamaged { continue }
            sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }
}

/// A `timespec` on the monotonic clock, `seconds` from now: what `pthread_cond_timedwait` takes once the
/// condition is set to that clock.
enum MonotonicDeadline {
    static func after(seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = now.tv_sec * 1_000_000_000 + now.tv_nsec + Int(seconds * 1_000_000_000)
        return timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
    }
}
