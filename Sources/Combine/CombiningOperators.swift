import Foundation

// MARK: - map(\.keyPath)

extension Publishers {
    /// Each value's property at a key path (Apple's `Publishers.MapKeyPath`).
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure
        public let upstream: Upstream
        public let keyPath: KeyPath<Upstream.Output, Output>

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            nonisolated(unsafe) let keyPath = self.keyPath
            upstream.subscribe(StepSubscriber(AnySubscriber(subscriber)) { .some($0[keyPath: keyPath]) })
        }
    }
}

extension Publisher {
    /// Publishes the value of a key path of each value: `$run.map(\.distance)`.
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> { Publishers.MapKeyPath(upstream: self, keyPath: keyPath) }
}

// MARK: - merge

extension Publishers {
    /// The values of two publishers of the same type, interleaved as they come (Apple's
    /// `Publishers.Merge`): finished when both have finished, failed as soon as one fails.
    public struct Merge<A: Publisher, B: Publisher>: Publisher where A.Output == B.Output, A.Failure == B.Failure {
        public typealias Output = A.Output
        public typealias Failure = A.Failure
        public let a: A
        public let b: B

        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            FanIn.merge([AnyPublisher(a), AnyPublisher(b)], into: AnySubscriber(subscriber))
        }
    }

    /// Three publishers' values, interleaved (Apple's `Publishers.Merge3`).
    public struct Merge3<A: Publisher, B: Publisher, C: Publisher>: Publisher
    where A.Output == B.Output, B.Output == C.Output, A.Failure == B.Failure, B.Failure == C.Failure {
        public typealias Output = A.Output
        public typealias Failure = A.Failure
        public let a: A
        public let b: B
        public let c: C

        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            FanIn.merge([AnyPublisher(a), AnyPublisher(b), AnyPublisher(c)], into: AnySubscriber(subscriber))
        }
    }

    /// Any number of publishers of one type, interleaved (Apple's `Publishers.MergeMany`).
    public struct MergeMany<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure
        public let publishers: [Upstream]

        public init(_ upstream: Upstream...) { publishers = upstream }
        public init<S: Swift.Sequence>(_ upstream: S) where S.Element == Upstream { publishers = Array(upstream) }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            FanIn.merge(publishers.map { AnyPublisher($0) }, into: AnySubscriber(subscriber))
        }

        public func merge(with other: Upstream) -> MergeMany<Upstream> { MergeMany(publishers + [other]) }
    }
}

extension Publisher {
    /// Combines this publisher's values with another's, "delivering an interleaved sequence of elements".
    public func merge<P: Publisher>(with other: P) -> Publishers.Merge<Self, P> where P.Output == Output, P.Failure == Failure {
        Publishers.Merge(self, other)
    }

    public func merge<B: Publisher, C: Publisher>(with b: B, _ c: C) -> Publishers.Merge3<Self, B, C>
    where B.Output == Output, B.Failure == Failure, C.Output == Output, C.Failure == Failure {
        Publishers.Merge3(self, b, c)
    }
}

// MARK: - combineLatest

extension Publishers {
    /// A tuple of the latest value of each of two publishers, each time either publishes once both have
    /// (Apple's `Publishers.CombineLatest`): finished when both have finished, failed as soon as one fails.
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure {
        public typealias Output = (A.Output, B.Output)
        public typealias Failure = A.Failure
        public let a: A
        public let b: B

        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            FanIn.combineLatest(
                [a.map { $0 as Any }.eraseToAnyPublisher(), b.map { $0 as Any }.eraseToAnyPublisher()], into: AnySubscriber(subscriber)
            ) { ($0[0] as! A.Output, $0[1] as! B.Output) }
        }
    }

    /// The latest values of three publishers (Apple's `Publishers.CombineLatest3`).
    public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher where A.Failure == B.Failure, B.Failure == C.Failure {
        public typealias Output = (A.Output, B.Output, C.Output)
        public typealias Failure = A.Failure
        public let a: A
        public let b: B
        public let c: C

        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            FanIn.combineLatest(
                [a.map { $0 as Any }.eraseToAnyPublisher(), b.map { $0 as Any }.eraseToAnyPublisher(), c.map { $0 as Any }.eraseToAnyPublisher()],
                into: AnySubscriber(subscriber)
            ) { ($0[0] as! A.Output, $0[1] as! B.Output, $0[2] as! C.Output) }
        }
    }
}

extension Publisher {
    /// "Subscribes to an additional publisher and publishes a tuple upon receiving output from either publisher."
    public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P> where P.Failure == Failure {
        Publishers.CombineLatest(self, other)
    }

    public func combineLatest<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
        -> Publishers.Map<
            Publishers.CombineLatest<Self, P>, T
        > where P.Failure == Failure
    {
        Publishers.CombineLatest(self, other).map(transform)
    }

    public func combineLatest<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.CombineLatest3<Self, P, Q>
    where P.Failure == Failure, Q.Failure == Failure {
        Publishers.CombineLatest3(self, publisher1, publisher2)
    }

    public func combineLatest<P: Publisher, Q: Publisher, T>(
        _ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T> where P.Failure == Failure, Q.Failure == Failure {
        Publishers.CombineLatest3(self, publisher1, publisher2).map(transform)
    }
}

// MARK: - The fan-in both share

/// Several upstreams into one downstream: each value (merge) or each new combination of the latest
/// values (combineLatest) is handed on, one at a time; the downstream's demand goes to every upstream.
/// Finished when every upstream has finished; failed, and the others cancelled, when one fails.
final class FanIn<Output, Failure: Error>: Subscription, @unchecked Sendable {
    private let downstream: AnySubscriber<Output, Failure>
    /// Merge: the value itself; combineLatest: the latest values once each upstream gave one.
    private let combine: ((Int, Any) -> Output?)?
    private let lock = NSLock()
    /// One delivery at a time, re-entrant (a downstream may request more from inside `receive`).
    private let delivery = NSRecursiveLock()
    private var subscriptions: [(any Subscription)?]
    private var finished: Set<Int> = []
    private var requested = Subscribers.Demand.none
    private var terminated = false

    private init(count: Int, downstream: AnySubscriber<Output, Failure>, combine: ((Int, Any) -> Output?)?) {
        self.downstream = downstream
        self.combine = combine
        subscriptions = Array(repeating: nil, count: count)
    }

    static func merge(_ upstreams: [AnyPublisher<Output, Failure>], into downstream: AnySubscriber<Output, Failure>) {
        let fan = FanIn(count: upstreams.count, downstream: downstream, combine: nil)
        fan.start(upstreams.enumerated().map { index, upstream in { upstream.subscribe(Child(fan, index) { $0 }) } })
    }

    static func combineLatest(
        _ upstreams: [AnyPublisher<Any, Failure>], into downstream: AnySubscriber<Output, Failure>, make: @escaping ([Any]) -> Output
    ) {
        var latest: [Any?] = Array(repeating: nil, count: upstreams.count)
        let fan = FanIn(count: upstreams.count, downstream: downstream) { index, value in
            latest[index] = value
            let all = latest.compactMap { $0 }
            return all.count == latest.count ? make(all) : nil
        }
        fan.start(upstreams.enumerated().map { index, upstream in { upstream.subscribe(Child<Any>(fan, index) { $0 }) } })
    }

    private func start(_ subscribes: [() -> Void]) {
        downstream.receive(subscription: self)
        if subscribes.isEmpty { return deliver(.finished) }
        for subscribe in subscribes { subscribe() }
    }

    /// One upstream's end of the fan.
    final class Child<Input>: Subscriber, @unchecked Sendable {
        let fan: FanIn
        let index: Int
        let wrap: (Input) -> Any

        init(_ fan: FanIn, _ index: Int, wrap: @escaping (Input) -> Any) {
            self.fan = fan
            self.index = index
            self.wrap = wrap
        }

        func receive(subscription: any Subscription) { fan.attach(subscription, at: index) }
        func receive(_ input: Input) -> Subscribers.Demand { fan.value(wrap(input), from: index) }
        func receive(completion: Subscribers.Completion<Failure>) { fan.completion(completion, from: index) }
    }

    private func attach(_ subscription: any Subscription, at index: Int) {
        let (cancelled, demand) = lock.withLock { () -> (Bool, Subscribers.Demand) in
            guard !terminated else { return (true, .none) }
            subscriptions[index] = subscription
            return (false, requested)
        }
        if cancelled { return subscription.cancel() }
        if demand > .none { subscription.request(demand) }
    }

    private func value(_ value: Any, from index: Int) -> Subscribers.Demand {
        delivery.lock()
        defer { delivery.unlock() }
        guard !lock.withLock({ terminated }) else { return .none }
        let output: Output?
        if let combine { output = combine(index, value) } else { output = value as? Output }
        // Nothing to hand on yet (combineLatest waiting for every upstream): this upstream may send another.
        guard let output else { return .max(1) }
        let more = downstream.receive(output)
        if more > .none {
            // The downstream wants more: from every upstream, as its first request went to every one.
            request(more)
        }
        return .none
    }

    private func completion(_ completion: Subscribers.Completion<Failure>, from index: Int) {
        switch completion {
        case .failure:
            let others = lock.withLock { () -> [any Subscription] in
                guard !terminated else { return [] }
                terminated = true
                defer { subscriptions = subscriptions.map { _ in nil } }
                return subscriptions.enumerated().filter { $0.offset != index }.compactMap(\.element)
            }
            guard lock.withLock({ terminated }) else { return }
            for other in others { other.cancel() }
            deliver(completion)
        case .finished:
            let done = lock.withLock { () -> Bool in
                guard !terminated else { return false }
                finished.insert(index)
                subscriptions[index] = nil
                if finished.count == subscriptions.count {
                    terminated = true
                    return true
                }
                return false
            }
            if done { deliver(.finished) }
        }
    }

    private func deliver(_ completion: Subscribers.Completion<Failure>) {
        delivery.lock()
        defer { delivery.unlock() }
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let upstream = lock.withLock { () -> [any Subscription] in
            requested += demand
            return terminated ? [] : subscriptions.compactMap { $0 }
        }
        for subscription in upstream { subscription.request(demand) }
    }

    func cancel() {
        let upstream = lock.withLock { () -> [any Subscription] in
            terminated = true
            defer { subscriptions = subscriptions.map { _ in nil } }
            return subscriptions.compactMap { $0 }
        }
        for subscription in upstream { subscription.cancel() }
    }
}
