import Foundation

/// A publisher the code sends values through by hand.
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    func send(_ value: Output)
    func send(completion: Subscribers.Completion<Failure>)
    func send(subscription: any Subscription)
}

extension Subject where Output == Void {
    public func send() { send(()) }
}

/// Sends each value to the subscribers it has when the value is sent; a late subscriber hears only
/// what comes after it.
public final class PassthroughSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    let core = SubjectCore<Output, Failure>()

    public init() {}

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.attach(AnySubscriber(subscriber), current: nil)
    }

    public func send(_ value: Output) { core.send(value) }
    public func send(completion: Subscribers.Completion<Failure>) { core.finish(completion) }
    public func send(subscription: any Subscription) { subscription.request(.unlimited) }
}

/// Holds a value and sends it to each new subscriber first, then every change.
public final class CurrentValueSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    let core = SubjectCore<Output, Failure>()
    private let lock = NSLock()
    private var stored: Output

    public init(_ value: Output) { stored = value }

    /// The current value; setting it sends it.
    public var value: Output {
        get { lock.withLock { stored } }
        set { send(newValue) }
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.attach(AnySubscriber(subscriber), current: lock.withLock { stored })
    }

    public func send(_ value: Output) {
        lock.withLock { stored = value }
        core.send(value)
    }

    public func send(completion: Subscribers.Completion<Failure>) { core.finish(completion) }
    public func send(subscription: any Subscription) { subscription.request(.unlimited) }
}

/// Sends one value, then finishes.
public struct Just<Output>: Publisher {
    public typealias Failure = Never
    public let output: Output

    public init(_ output: Output) { self.output = output }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        let core = SubjectCore<Output, Never>()
        core.attach(AnySubscriber(subscriber), current: output, finishAfterCurrent: true)
    }
}

// MARK: - The subscribers of a subject

/// The subscribers of one subject (or of a `@Published` property) and what each still wants. Values
/// are handed over outside the lock: a subscriber may send, subscribe or cancel from its closure.
final class SubjectCore<Output, Failure: Error>: @unchecked Sendable {
    private let lock = NSLock()
    private var conduits: [Conduit] = []
    private var completion: Subscribers.Completion<Failure>?

    func attach(_ subscriber: AnySubscriber<Output, Failure>, current: Output?, finishAfterCurrent: Bool = false) {
        let conduit = Conduit(core: self, downstream: subscriber, pending: current, finishAfterPending: finishAfterCurrent)
        let finished: Subscribers.Completion<Failure>? = lock.withLock {
            if completion == nil { conduits.append(conduit) }
            return completion
        }
        subscriber.receive(subscription: conduit)
        if let finished { conduit.finish(finished) }
    }

    func send(_ value: Output) {
        for conduit in lock.withLock({ completion == nil ? conduits : [] }) { conduit.offer(value) }
    }

    func finish(_ completion: Subscribers.Completion<Failure>) {
        let all: [Conduit] = lock.withLock {
            guard self.completion == nil else { return [] }
            self.completion = completion
            defer { conduits.removeAll() }
            return conduits
        }
        for conduit in all { conduit.finish(completion) }
    }

    func detach(_ conduit: Conduit) {
        lock.withLock { conduits.removeAll { $0 === conduit } }
    }

    var hasSubscribers: Bool { lock.withLock { !conduits.isEmpty } }

    final class Conduit: Subscription, @unchecked Sendable {
        private let lock = NSRecursiveLock()
        private weak var core: SubjectCore?
        private var downstream: AnySubscriber<Output, Failure>?
        private var demand = Subscribers.Demand.none
        private var pending: Output?
        private let finishAfterPending: Bool

        init(core: SubjectCore, downstream: AnySubscriber<Output, Failure>, pending: Output?, finishAfterPending: Bool) {
            self.core = core
            self.downstream = downstream
            self.pending = pending
            self.finishAfterPending = finishAfterPending
        }

        func request(_ more: Subscribers.Demand) {
            let first: (AnySubscriber<Output, Failure>, Output)? = lock.withLock {
                demand += more
                guard demand > .none, let value = pending, let downstream else { return nil }
                pending = nil
                demand -= .max(1)
                return (downstream, value)
            }
            guard let (downstream, value) = first else { return }
            let extra = downstream.receive(value)
            if finishAfterPending { return finish(.finished) }
            lock.withLock { demand += extra }
        }

        /// A newer value: to the subscriber if it asked for one, else it replaces the initial value
        /// still waiting for demand (a current-value subject's newest), else it is dropped.
        func offer(_ value: Output) {
            let target: AnySubscriber<Output, Failure>? = lock.withLock {
                guard let downstream else { return nil }
                if pending != nil {
                    pending = value
                    return nil
                }
                guard demand > .none else { return nil }
                demand -= .max(1)
                return downstream
            }
            guard let target else { return }
            let extra = target.receive(value)
            lock.withLock { demand += extra }
        }

        func finish(_ completion: Subscribers.Completion<Failure>) {
            let target: AnySubscriber<Output, Failure>? = lock.withLock {
                defer { downstream = nil }
                return downstream
            }
            target?.receive(completion: completion)
        }

        func cancel() {
            lock.withLock { downstream = nil }
            core?.detach(self)
        }
    }
}
