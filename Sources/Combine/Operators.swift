import Foundation

/// The namespace of the operators' publishers.
public enum Publishers {}

extension Publishers {
    /// Each value, transformed.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let transform: (Upstream.Output) -> Output

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let transform = self.transform
            upstream.subscribe(StepSubscriber(AnySubscriber(subscriber)) { .some(transform($0)) })
        }
    }

    /// The values that pass a test.
    public struct Filter<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let isIncluded: (Upstream.Output) -> Bool

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let isIncluded = self.isIncluded
            upstream.subscribe(StepSubscriber(AnySubscriber(subscriber)) { isIncluded($0) ? .some($0) : .none })
        }
    }

    /// The values a transform does not turn into nil.
    public struct CompactMap<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let transform: (Upstream.Output) -> Output?

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(StepSubscriber(AnySubscriber(subscriber), step: transform))
        }
    }

    /// Each value unless it duplicates the one before it.
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let predicate: (Output, Output) -> Bool

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = self.predicate
            let last = LastValue<Output>()
            upstream.subscribe(
                StepSubscriber(AnySubscriber(subscriber)) { value in
                    defer { last.value = value }
                    if let previous = last.value, predicate(previous, value) { return .none }
                    return .some(value)
                })
        }
    }

    /// The same values and completion, delivered on a scheduler, in order.
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let scheduler: Context
        public let options: Context.SchedulerOptions?

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(ReceiveOnSubscriber(AnySubscriber(subscriber), scheduler: scheduler, options: options))
        }
    }
}

extension Publisher {
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> { Publishers.Map(upstream: self, transform: transform) }

    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> { Publishers.Filter(upstream: self, isIncluded: isIncluded) }

    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
        Publishers.CompactMap(upstream: self, transform: transform)
    }

    public func removeDuplicates(by predicate: @escaping (Output, Output) -> Bool) -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }

    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.ReceiveOn<Self, S> {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }

    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> { AnyPublisher(self) }
}

extension Publisher where Output: Equatable {
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> { removeDuplicates(by: ==) }
}

/// A publisher whose type is hidden: what an API returns so that its pipeline may change.
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible {
    private let subscribeBody: (AnySubscriber<Output, Failure>) -> Void

    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        subscribeBody = { publisher.receive(subscriber: $0) }
    }

    public var description: String { "AnyPublisher" }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscribeBody(AnySubscriber(subscriber))
    }
}

// MARK: - The operators' subscribers

/// The value `removeDuplicates` compares the next one with.
final class LastValue<Value>: @unchecked Sendable {
    var value: Value?
}

/// Passes each value through `step` (nil drops it, asking upstream for one more in its place), and the
/// subscription and completion unchanged.
final class StepSubscriber<Input, Output, Failure: Error>: Subscriber, Subscription, @unchecked Sendable {
    private let downstream: AnySubscriber<Output, Failure>
    private let step: (Input) -> Output?
    private let lock = NSLock()
    private var upstream: (any Subscription)?

    init(_ downstream: AnySubscriber<Output, Failure>, step: @escaping (Input) -> Output?) {
        self.downstream = downstream
        self.step = step
    }

    func receive(subscription: any Subscription) {
        lock.withLock { upstream = subscription }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let output = step(input) else { return .max(1) }
        return downstream.receive(output)
    }

    func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }

    func request(_ demand: Subscribers.Demand) { lock.withLock { upstream }?.request(demand) }

    func cancel() {
        let upstream = lock.withLock {
            defer { self.upstream = nil }
            return self.upstream
        }
        upstream?.cancel()
    }
}

/// Hands values and the completion to the downstream subscriber on a scheduler; once cancelled, what
/// was already scheduled is dropped.
final class ReceiveOnSubscriber<Input, Failure: Error, Context: Scheduler>: Subscriber, Subscription, @unchecked Sendable {
    private let downstream: AnySubscriber<Input, Failure>
    private let scheduler: Context
    private let options: Context.SchedulerOptions?
    private let lock = NSLock()
    private var upstream: (any Subscription)?
    private var cancelled = false

    init(_ downstream: AnySubscriber<Input, Failure>, scheduler: Context, options: Context.SchedulerOptions?) {
        self.downstream = downstream
        self.scheduler = scheduler
        self.options = options
    }

    func receive(subscription: any Subscription) {
        lock.withLock { upstream = subscription }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        nonisolated(unsafe) let value = input
        scheduler.schedule(options: options) { [self] in
            guard !lock.withLock({ cancelled }) else { return }
            let more = downstream.receive(value)
            if more > .none { request(more) }
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        scheduler.schedule(options: options) { [self] in
            guard !lock.withLock({ cancelled }) else { return }
            downstream.receive(completion: completion)
        }
    }

    func request(_ demand: Subscribers.Demand) { lock.withLock { upstream }?.request(demand) }

    func cancel() {
        let upstream = lock.withLock {
            defer { cancelled = true; self.upstream = nil }
            return self.upstream
        }
        upstream?.cancel()
    }
}
