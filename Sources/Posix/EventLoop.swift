import Glibc

/// What a registered descriptor wants to hear about.
package struct Interest: OptionSet, Sendable {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }
    package static let readable = Interest(rawValue: Int16(POLLIN))
    package static let writable = Interest(rawValue: Int16(POLLOUT))
}

/// What `poll` reported for a descriptor.
package struct PollEvents: Sendable {
    package let rawValue: Int16
    package var isReadable: Bool { rawValue & Int16(POLLIN) != 0 }
    package var isWritable: Bool { rawValue & Int16(POLLOUT) != 0 }
    /// Hang-up or error: reading will return end-of-file or the error.
    package var isHangupOrError: Bool { rawValue & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 }
}

/// A single-threaded `poll(2)` loop: descriptors with handlers, one-shot timers, and work deferred to
/// the end of the current iteration.
///
/// Everything a daemon does happens on the thread that calls `run()`: no locks, no actors, and the
/// store's transactions never interleave. Blocking work (an fsync-heavy commit) stalls the loop, which is
/// what makes group commit natural: whatever arrives meanwhile is read and committed together next time.
package final class EventLoop {
    package typealias Handler = (PollEvents) -> Void
    package struct TimerID: Hashable, Sendable { let value: UInt64 }

    private struct Registration {
        var interest: Interest
        var handler: Handler
        var generation: UInt64
    }

    private struct Timer {
        let id: UInt64
        let deadline: UInt64
        let body: () -> Void
    }

    package let clock: MonotonicClock
    private var registrations: [Int32: Registration] = [:]
    private var timers: [Timer] = []
    private var deferred: [() -> Void] = []
    private var nextID: UInt64 = 1
    private var stopped = false

    package init(clock: MonotonicClock = SystemClock()) {
        self.clock = clock
    }

    package var nowNanoseconds: UInt64 { clock.nowNanoseconds }

    // MARK: - Descriptors

    package func register(_ fd: Int32, interest: Interest, handler: @escaping Handler) {
        nextID += 1
        registrations[fd] = Registration(interest: interest, handler: handler, generation: nextID)
    }

    package func setInterest(_ fd: Int32, _ interest: Interest) {
        registrations[fd]?.interest = interest
    }

    package func interest(of fd: Int32) -> Interest? { registrations[fd]?.interest }

    package func unregister(_ fd: Int32) {
        registrations[fd] = nil
    }

    package var registeredCount: Int { registrations.count }

    /// How many iterations some descriptor was ready in (timers alone do not count): a loop whose
    /// count has not moved for a while has heard from nobody — it is idle.
    package private(set) var descriptorWakeups: UInt64 = 0

    // MARK: - Timers and deferred work

    @discardableResult
    package func schedule(afterNanoseconds delay: UInt64, _ body: @escaping () -> Void) -> TimerID {
        nextID += 1
        timers.append(Timer(id: nextID, deadline: nowNanoseconds &+ delay, body: body))
        return TimerID(value: nextID)
    }

    @discardableResult
    package func schedule(afterMilliseconds ms: UInt64, _ body: @escaping () -> Void) -> TimerID {
        schedule(afterNanoseconds: ms * 1_000_000, body)
    }

    package func cancel(_ id: TimerID) {
        timers.removeAll { $0.id == id.value }
    }

    /// Runs `body` once the handlers of the current iteration have all run.
    package func deferToEndOfIteration(_ body: @escaping () -> Void) {
        deferred.append(body)
    }

    // MARK: - Running

    /// Stops `run()` after the current iteration.
    package func stop() { stopped = true }
    package var isStopped: Bool { stopped }

    package func run() throws(SystemError) {
        stopped = false
        while !stopped {
            try runOnce(maximumWaitMilliseconds: -1)
        }
    }

    /// One iteration: wait for readiness or the next timer (at most `maximumWaitMilliseconds`, -1 for no
    /// limit), dispatch, fire due timers, run deferred work.
    package func runOnce(maximumWaitMilliseconds: Int32) throws(SystemError) {
        var pollSet: [pollfd] = []
        var generations: [UInt64] = []
        pollSet.reserveCapacity(registrations.count)
        for (fd, registration) in registrations {
            pollSet.append(pollfd(fd: fd, events: registration.interest.rawValue, revents: 0))
            generations.append(registration.generation)
        }
        var timeout = maximumWaitMilliseconds
        if !deferred.isEmpty { timeout = 0 }
        if let next = timers.map(\.deadline).min() {
            let now = nowNanoseconds
            let waitMs = next <= now ? 0 : Int32(min(UInt64(Int32.max), (next - now + 999_999) / 1_000_000))
            timeout = timeout < 0 ? waitMs : min(timeout, waitMs)
        }
        let ready = try systemCall("poll") {
            pollSet.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeout) }
        }
        if ready > 0 {
            descriptorWakeups &+= 1
            for (index, entry) in pollSet.enumerated() where entry.revents != 0 {
                // A handler earlier in this pass may have closed or replaced this descriptor.
                guard let registration = registrations[entry.fd],
                    registration.generation == generations[index]
                else { continue }
                registration.handler(PollEvents(rawValue: entry.revents))
            }
        }
        fireDueTimers()
        runDeferred()
    }

    private func fireDueTimers() {
        let now = nowNanoseconds
        guard timers.contains(where: { $0.deadline <= now }) else { return }
        let due = timers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
        timers.removeAll { $0.deadline <= now }
        for timer in due { timer.body() }
    }

    private func runDeferred() {
        while !deferred.isEmpty {
            let work = deferred
            deferred.removeAll()
            for body in work { body() }
        }
    }
}
