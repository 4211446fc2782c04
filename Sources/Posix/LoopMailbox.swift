import CLinux
import Dispatch
import Glibc

/// Work handed to an `EventLoop` from other threads: queued under a lock, the loop woken through an
/// `eventfd`, run on the loop's thread in the order it was posted.
///
/// The loop itself stays single-threaded — everything it owns is touched only on its thread. An API
/// that may be called from any thread (`WCSession`'s, as Apple documents it) hops onto the loop with
/// `sync`: run inline when already there (a delegate callback calling back into the API), else posted
/// and waited for.
package final class LoopMailbox: @unchecked Sendable {
    private let loop: EventLoop
    private let wake: FileDescriptor
    private let lock = ThreadLock()
    private var queue: [() -> Void] = []
    /// The thread running the loop (`run`), if one is.
    private var owner: pthread_t?
    /// Claimed and not yet open: posted work waits.
    private var held = false

    package init(loop: EventLoop) throws(SystemError) {
        self.loop = loop
        wake = FileDescriptor(adopting: try systemCall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) })
        loop.register(wake.rawValue, interest: .readable) { [unowned self] _ in self.drain() }
    }

    private func locked<R>(_ body: () -> R) -> R { lock.withLock(body) }

    /// Whether the calling thread may touch the loop's state directly: it is the loop's thread, or no
    /// thread runs the loop (start-up, before `run`).
    package var isOnLoopThread: Bool {
        locked { owner.map { pthread_equal($0, pthread_self()) != 0 } ?? true }
    }

    /// Makes the calling thread the loop's before it runs it: from now on, other threads' `sync` is
    /// posted and waits for `run`, rather than running inline (the device still starting on this thread).
    ///
    /// Until `open`, posted work waits even if the loop turns (a start-up step that runs the loop for a
    /// moment, waiting for an answer, must not run work meant for the finished device).
    package func claim() {
        locked {
            owner = pthread_self()
            held = true
        }
    }

    /// Lets posted work run from the loop's next turn (after `claim`).
    package func open() {
        locked { held = false }
        var one: UInt64 = 1
        _ = Glibc.write(wake.rawValue, &one, 8)
    }

    /// Runs the loop on the calling thread until it stops; work posted meanwhile runs on it.
    package func run() throws(SystemError) {
        locked { owner = pthread_self() }
        defer {
            locked {
                owner = nil
                held = false
            }
            drain()
        }
        try loop.run()
    }

    /// Queues `body` for the loop's thread and returns at once.
    package func post(_ body: @escaping () -> Void) {
        locked { queue.append(body) }
        var one: UInt64 = 1
        _ = Glibc.write(wake.rawValue, &one, 8)
    }

    /// Runs `body` on the loop's thread and returns its result: inline when already there, else posted
    /// and waited for.
    package func sync<R>(_ body: () throws -> R) throws -> R {
        if isOnLoopThread { return try body() }
        let done = DispatchSemaphore(value: 0)
        let work = PostedWork<R>()
        withoutActuallyEscaping(body) { escapable in
            work.body = escapable
            post {
                work.run()
                done.signal()
            }
            done.wait()
        }
        return try work.result!.get()
    }

    /// `sync` for work that cannot throw.
    package func sync<R>(_ body: () -> R) -> R {
        // A non-throwing body cannot make `sync` throw.
        try! sync { () throws -> R in body() }
    }

    private func drain() {
        var count: UInt64 = 0
        _ = Glibc.read(wake.rawValue, &count, 8)
        while true {
            let work = locked { () -> [() -> Void] in
                guard !held else { return [] }
                defer { queue.removeAll() }
                return queue
            }
            guard !work.isEmpty else { return }
            for body in work { body() }
        }
    }
}

/// One `sync` call's work, handed to the loop's thread. The body is let go of as soon as it has run —
/// before the caller is woken — so that nothing still holds the non-escaping closure when `sync`
/// returns (the drain's batch outlives the call).
private final class PostedWork<R>: @unchecked Sendable {
    var body: (() throws -> R)?
    var result: Result<R, Error>?

    func run() {
        result = Result { try body!() }
        body = nil
    }
}
