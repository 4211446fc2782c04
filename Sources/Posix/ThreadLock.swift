import Glibc

/// A mutex between threads of this process, for state that lives outside any loop: a loop's mailbox,
/// the one-time start of an app's device. (`Synchronization.Mutex` owns its value and hands it out as
/// `sending`, which a class's scattered, non-Sendable state cannot be.) The lock is on the heap, so that
/// its address never moves.
package final class ThreadLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
