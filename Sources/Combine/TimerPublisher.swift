import Foundation

/// A publisher that starts when told to (`connect()`), not when subscribed (Apple's `ConnectablePublisher`).
public protocol ConnectablePublisher<Output, Failure>: Publisher {
    /// Starts it; cancelling the result stops it.
    func connect() -> any Cancellable
}

extension ConnectablePublisher {
    /// Connects when the first subscriber attaches and disconnects when the last one leaves (Apple:
    /// "Automates the process of connecting or disconnecting from this connectable publisher").
    public func autoconnect() -> Publishers.Autoconnect<Self> { Publishers.Autoconnect(self) }
}

extension Publishers {
    /// A connectable publisher connected by its subscribers (Apple's `Publishers.Autoconnect`).
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher, @unchecked Sendable {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public final let upstream: Upstream
        private let lock = NSLock()
        private var connection: (any Cancellable)?
        private var subscribers = 0

        public init(_ upstream: Upstream) { self.upstream = upstream }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(AutoconnectSubscriber(AnySubscriber(subscriber), owner: self))
            let connect = lock.withLock { () -> Bool in
                subscribers += 1
                return connection == nil
            }
            if connect {
                let made = upstream.connect()
                lock.withLock { connection = made }
            }
        }

        /// A subscriber left (cancelled, or its stream ended): the last one disconnects.
        fileprivate func left() {
            let connection = lock.withLock { () -> (any Cancellable)? in
                subscribers -= 1
                guard subscribers == 0 else { return nil }
                defer { self.connection = nil }
                return self.connection
            }
            connection?.cancel()
        }
    }
}

/// Passes everything through and tells the `Autoconnect` once, when its subscriber leaves.
private final class AutoconnectSubscriber<Upstream: ConnectablePublisher>: Subscriber, Subscription, @unchecked Sendable {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure
    private let downstream: AnySubscriber<Input, Failure>
    private let owner: Publishers.Autoconnect<Upstream>
    private let lock = NSLock()
    private var upstream: (any Subscription)?
    private var gone = false

    init(_ downstream: AnySubscriber<Input, Failure>, owner: Publishers.Autoconnect<Upstream>) {
        self.downstream = downstream
        self.owner = owner
    }

    func receive(subscription: any Subscription) {
        lock.withLock { upstream = subscription }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }

    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
        leave()
    }

    func request(_ demand: Subscribers.Demand) { lock.withLock { upstream }?.request(demand) }

    func cancel() {
        lock.withLock { upstream }?.cancel()
        leave()
    }

    private func leave() {
        let first = lock.withLock { () -> Bool in
            defer { gone = true }
            return !gone
        }
        if first { owner.left() }
    }
}

extension Timer {
    /// A publisher of the current date every `interval` on `runLoop`, once connected (Apple's
    /// `Timer.publish(every:tolerance:on:in:options:)`: "Returns a publisher that repeatedly emits the
    /// current date on the given interval"). The main run loop's ticks come through the main dispatch
    /// queue, which `RunLoop.main.run()` and `dispatchMain()` both serve; `mode` is accepted and not
    /// applied there.
    public static func publish(
        every interval: TimeInterval, tolerance: TimeInterval? = nil, on runLoop: RunLoop, in mode: RunLoop.Mode,
        options: RunLoop.SchedulerOptions? = nil
    ) -> TimerPublisher {
        TimerPublisher(interval: interval, tolerance: tolerance, runLoop: runLoop, mode: mode, options: options)
    }

    /// Apple's `Timer.TimerPublisher`: every subscriber gets the same ticks, from `connect()` on.
    public final class TimerPublisher: ConnectablePublisher, @unchecked Sendable {
        public typealias Output = Date
        public typealias Failure = Never
        public let interval: TimeInterval
        public let tolerance: TimeInterval?
        public let runLoop: RunLoop
        public let mode: RunLoop.Mode
        public let options: RunLoop.SchedulerOptions?
        private let ticks = PassthroughSubject<Date, Never>()

        public init(interval: TimeInterval, tolerance: TimeInterval? = nil, runLoop: RunLoop, mode: RunLoop.Mode, options: RunLoop.SchedulerOptions? = nil) {
            self.interval = interval
            self.tolerance = tolerance
            self.runLoop = runLoop
            self.mode = mode
            self.options = options
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never { ticks.receive(subscriber: subscriber) }

        public func connect() -> any Cancellable {
            let every = RunLoop.SchedulerTimeType.Stride(max(interval, 1e-6))
            let ticks = self.ticks
            return runLoop.schedule(
                after: runLoop.now.advanced(by: every), interval: every, tolerance: .init(tolerance ?? 0), options: options
            ) { ticks.send(Date()) }
        }
    }
}
