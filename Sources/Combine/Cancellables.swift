import Foundation

/// A token that cancels its subscription when cancelled or when it is released: keep it (often in a
/// `Set<AnyCancellable>`) as long as the values should arrive.
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
    private let lock = NSLock()
    private var body: (() -> Void)?

    public init(_ cancel: @escaping () -> Void) { body = cancel }

    public init<C: Cancellable>(_ canceller: C) { body = canceller.cancel }

    deinit { cancel() }

    public func cancel() {
        lock.lock()
        let body = self.body
        self.body = nil
        lock.unlock()
        body?()
    }

    public func store(in set: inout Set<AnyCancellable>) { set.insert(self) }

    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        collection.append(self)
    }

    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension Cancellable {
    public func store(in set: inout Set<AnyCancellable>) { AnyCancellable(self).store(in: &set) }

    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        AnyCancellable(self).store(in: &collection)
    }
}

extension Subscribers {
    /// Asks for every value at once and hands each to a closure; cancelled, it hears nothing more.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
        public let receiveValue: (Input) -> Void
        public let receiveCompletion: (Subscribers.Completion<Failure>) -> Void
        private let lock = NSLock()
        private var subscription: (any Subscription)?
        private var done = false

        public init(receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void, receiveValue: @escaping (Input) -> Void) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }

        public func receive(subscription: any Subscription) {
            guard lock.claim(&self.subscription, for: subscription, while: !done) else { return subscription.cancel() }
            subscription.request(.unlimited)
        }

        public func receive(_ input: Input) -> Subscribers.Demand {
            guard lock.withLock({ !done }) else { return .none }
            receiveValue(input)
            return .none
        }

        public func receive(completion: Subscribers.Completion<Failure>) {
            let wasDone = lock.withLock {
                defer { done = true; subscription = nil }
                return done
            }
            if !wasDone { receiveCompletion(completion) }
        }

        public func cancel() {
            let subscription = lock.withLock {
                defer { done = true; self.subscription = nil }
                return self.subscription
            }
            subscription?.cancel()
        }
    }

    /// Writes each value to a property of an object (held strongly until the publisher ends or is cancelled).
    public final class Assign<Root, Input>: Subscriber, Cancellable, @unchecked Sendable {
        public typealias Failure = Never
        public private(set) var object: Root?
        public let keyPath: ReferenceWritableKeyPath<Root, Input>
        private let lock = NSLock()
        private var subscription: (any Subscription)?

        public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
            self.object = object
            self.keyPath = keyPath
        }

        public func receive(subscription: any Subscription) {
            guard lock.claim(&self.subscription, for: subscription, while: object != nil) else { return subscription.cancel() }
            subscription.request(.unlimited)
        }

        public func receive(_ input: Input) -> Subscribers.Demand {
            guard let object = lock.withLock({ self.object }) else { return .none }
            object[keyPath: keyPath] = input
            return .none
        }

        public func receive(completion: Subscribers.Completion<Never>) { cancel() }

        public func cancel() {
            let subscription = lock.withLock {
                defer { object = nil; self.subscription = nil }
                return self.subscription
            }
            subscription?.cancel()
        }
    }
}

extension Publisher {
    /// Hands every value to `receiveValue` and the completion to `receiveCompletion`.
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void, receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(sink)
    }
}

extension Publisher where Failure == Never {
    /// Hands every value to `receiveValue`.
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }

    /// Writes every value to `object[keyPath: keyPath]`.
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable {
        let assign = Subscribers.Assign(object: object, keyPath: keyPath)
        subscribe(assign)
        return AnyCancellable(assign)
    }
}

extension NSLock {
    /// A subscriber's `receive(subscription:)`, under the lock: whether it takes `subscription` — it holds
    /// none yet (`slot`) and `open` (read under the lock) says it still takes one — and if so, kept in
    /// `slot`. The caller then requests values, or cancels a subscription not taken, outside the lock
    /// and outside the access to `slot` (a publisher may call back at once).
    func claim(_ slot: inout (any Subscription)?, for subscription: any Subscription, while open: @autoclosure () -> Bool) -> Bool {
        withLock {
            guard slot == nil, open() else { return false }
            slot = subscription
            return true
        }
    }
}
