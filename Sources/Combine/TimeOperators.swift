import Foundation

// MARK: - debounce, throttle, delay

extension Publishers {
    /// Publishes a value only once `dueTime` has passed with no newer one (Apple's `Publishers.Debounce`).
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let dueTime: Context.SchedulerTimeType.Stride
        public let scheduler: Context
        public let options: Context.SchedulerOptions?

        public init(upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(DebounceInner(AnySubscriber(subscriber), dueTime: dueTime, scheduler: scheduler, options: options))
        }
    }

    /// Publishes at most one value per interval: the first value at once, then the latest (or the first)
    /// received in each interval, at its end (Apple's `Publishers.Throttle`).
    public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let interval: Context.SchedulerTimeType.Stride
        public let scheduler: Context
        public let latest: Bool

        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(ThrottleInner(AnySubscriber(subscriber), interval: interval, scheduler: scheduler, latest: latest))
        }
    }

    /// Every value and the completion, each `interval` later, in order (Apple's `Publishers.Delay`).
    public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let interval: Context.SchedulerTimeType.Stride
        public let tolerance: Context.SchedulerTimeType.Stride
        public let scheduler: Context
        public let options: Context.SchedulerOptions?

        public init(
            upstream: Upstream, interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions? = nil
        ) {
            self.upstream = upstream
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(DelayInner(AnySubscriber(subscriber), interval: interval, tolerance: tolerance, scheduler: scheduler, options: options))
        }
    }
}

extension Publisher {
    /// "Publishes elements only after a specified time interval elapses between events."
    public func debounce<S: Scheduler>(for dueTime: S.SchedulerTimeType.Stride, scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.Debounce<
            Self, S
        >
    {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }

    /// "Publishes either the most-recent or first element published by the upstream publisher in the
    /// specified time interval."
    public func throttle<S: Scheduler>(for interval: S.SchedulerTimeType.Stride, scheduler: S, latest: Bool) -> Publishers.Throttle<Self, S> {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }

    /// "Delays delivery of all output to the downstream receiver by a specified amount of time on a
    /// particular scheduler."
    public func delay<S: Scheduler>(
        for interval: S.SchedulerTimeType.Stride, tolerance: S.SchedulerTimeType.Stride? = nil, scheduler: S, options: S.SchedulerOptions? = nil
    ) -> Publishers.Delay<Self, S> {
        Publishers.Delay(upstream: self, interval: interval, tolerance: tolerance ?? scheduler.minimumTolerance, scheduler: scheduler, options: options)
    }
}

// MARK: - Their subscribers

/// What the time operators share: the upstream subscription, the downstream's demand, one delivery at a
/// time, and nothing after cancel or the end.
class TimedInner<Input, Failure: Error>: Subscriber, Subscription, @unchecked Sendable {
    let downstream: AnySubscriber<Input, Failure>
    let lock = NSRecursiveLock()
    var upstream: (any Subscription)?
    var demand = Subscribers.Demand.none
    var terminated = false

    init(_ downstream: AnySubscriber<Input, Failure>) { self.downstream = downstream }

    func receive(subscription: any Subscription) {
        lock.withLock { upstream = subscription }
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Failure>) {}

    /// Hands `value` on if the downstream asked for it (a value it did not ask for is dropped, as Apple's are).
    func emit(_ value: Input) {
        lock.lock()
        defer { lock.unlock() }
        guard !terminated, demand > .none else { return }
        demand -= .max(1)
        demand += downstream.receive(value)
    }

    func finish(_ completion: Subscribers.Completion<Failure>) {
        lock.lock()
        defer { lock.unlock() }
        guard !terminated else { return }
        terminated = true
        upstream = nil
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) { lock.withLock { self.demand += demand } }

    func cancel() {
        let upstream = lock.withLock { () -> (any Subscription)? in
            terminated = true
            defer { self.upstream = nil }
            return self.upstream
        }
        upstream?.cancel()
    }
}

/// Each value restarts the wait; when it ends with no newer value, the value goes. The completion goes
/// at once (on the scheduler), dropping a value still waiting, as Apple's debounce does.
final class DebounceInner<Input, Failure: Error, Context: Scheduler>: TimedInner<Input, Failure>, @unchecked Sendable {
    let dueTime: Context.SchedulerTimeType.Stride
    let scheduler: Context
    let options: Context.SchedulerOptions?
    private var generation: UInt64 = 0
    private var pending: Input?

    init(_ downstream: AnySubscriber<Input, Failure>, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context, options: Context.SchedulerOptions?) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        self.options = options
        super.init(downstream)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        let current = lock.withLock { () -> UInt64? in
            guard !terminated else { return nil }
            generation += 1
            pending = input
            return generation
        }
        guard let current else { return .none }
        scheduler.schedule(after: scheduler.now.advanced(by: dueTime), tolerance: scheduler.minimumTolerance, options: options) { [self] in
            let value = lock.withLock { () -> Input? in
                guard current == generation, let value = pending else { return nil }
                pending = nil
                return value
            }
            if let value { emit(value) }
        }
        return .none
    }

    override func receive(completion: Subscribers.Completion<Failure>) {
        lock.withLock { pending = nil }
        scheduler.schedule(options: options) { [self] in finish(completion) }
    }
}

/// The first value goes at once; the next one no sooner than `interval` after the last that went: the
/// latest (or the first) received meanwhile. A completion goes after the value it follows.
final class ThrottleInner<Input, Failure: Error, Context: Scheduler>: TimedInner<Input, Failure>, @unchecked Sendable {
    let interval: Context.SchedulerTimeType.Stride
    let scheduler: Context
    let latest: Bool
    private var lastEmission: Context.SchedulerTimeType?
    private var pending: Input?
    private var scheduled = false
    private var pendingCompletion: Subscribers.Completion<Failure>?

    init(_ downstream: AnySubscriber<Input, Failure>, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
        self.interval = interval
        self.scheduler = scheduler
        self.latest = latest
        super.init(downstream)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        let at = lock.withLock { () -> Context.SchedulerTimeType?? in
            guard !terminated, pendingCompletion == nil else { return .none }
            if scheduled {
                if latest { pending = input }
                return .some(nil)
            }
            pending = input
            scheduled = true
            let now = scheduler.now
            guard let lastEmission else { return .some(now) }
            let earliest = lastEmission.advanced(by: interval)
            return .some(earliest > now ? earliest : now)
        }
        guard case .some(.some(let date)) = at else { return .none }
        scheduler.schedule(after: date, tolerance: scheduler.minimumTolerance, options: nil) { [self] in fire() }
        return .none
    }

    override func receive(completion: Subscribers.Completion<Failure>) {
        let waits = lock.withLock { () -> Bool in
            pendingCompletion = completion
            return scheduled
        }
        if !waits { scheduler.schedule(options: nil) { [self] in fire() } }
    }

    private func fire() {
        let (value, completion) = lock.withLock { () -> (Input?, Subscribers.Completion<Failure>?) in
            defer {
                pending = nil
                scheduled = false
            }
            if pending != nil { lastEmission = scheduler.now }
            return (pending, pendingCompletion)
        }
        if let value { emit(value) }
        if let completion { finish(completion) }
    }
}

/// Each value and the completion scheduled `interval` after it came, in the order they came.
final class DelayInner<Input, Failure: Error, Context: Scheduler>: TimedInner<Input, Failure>, @unchecked Sendable {
    let interval: Context.SchedulerTimeType.Stride
    let tolerance: Context.SchedulerTimeType.Stride
    let scheduler: Context
    let options: Context.SchedulerOptions?

    init(
        _ downstream: AnySubscriber<Input, Failure>, interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride,
        scheduler: Context, options: Context.SchedulerOptions?
    ) {
        self.interval = interval
        self.tolerance = tolerance
        self.scheduler = scheduler
        self.options = options
        super.init(downstream)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        nonisolated(unsafe) let value = input
        scheduler.schedule(after: scheduler.now.advanced(by: interval), tolerance: tolerance, options: options) { [self] in emit(value) }
        return .none
    }

    override func receive(completion: Subscribers.Completion<Failure>) {
        scheduler.schedule(after: scheduler.now.advanced(by: interval), tolerance: tolerance, options: options) { [self] in finish(completion) }
    }
}
