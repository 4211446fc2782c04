import Foundation

/// A publisher that eventually produces one value and finishes, or fails (Apple's `Future`). The closure
/// runs once, when the future is made; every subscriber, early or late, gets its result.
public final class Future<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// What the closure calls with the result (the first call counts).
    public typealias Promise = (Result<Output, Failure>) -> Void

    private let lock = NSRecursiveLock()
    private var result: Result<Output, Failure>?
    private var waiting: [FutureSubscription] = []

    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        attemptToFulfill { [self] result in fulfil(result) }
    }

    private func fulfil(_ result: Result<Output, Failure>) {
        let subscribers = lock.withLock { () -> [FutureSubscription] in
            guard self.result == nil else { return [] }
            self.result = result
            defer { waiting = [] }
            return waiting
        }
        for subscription in subscribers { subscription.deliver(result) }
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = FutureSubscription(AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
        let known = lock.withLock { () -> Result<Output, Failure>? in
            if result == nil { waiting.append(subscription) }
            return result
        }
        if let known { subscription.deliver(known) }
    }

    /// One subscriber's: its value goes once it asked for one and the result is known.
    final class FutureSubscription: Subscription, @unchecked Sendable {
        private let lock = NSRecursiveLock()
        private var downstream: AnySubscriber<Output, Failure>?
        private var asked = false
        private var result: Result<Output, Failure>?

        init(_ downstream: AnySubscriber<Output, Failure>) { self.downstream = downstream }

        func deliver(_ result: Result<Output, Failure>) {
            lock.withLock { self.result = result }
            flush()
        }

        func request(_ demand: Subscribers.Demand) {
            guard demand > .none else { return }
            lock.withLock { asked = true }
            flush()
        }

        private func flush() {
            lock.lock()
            defer { lock.unlock() }
            guard let downstream, let result else { return }
            switch result {
            case .success(let value):
                guard asked else { return }
                self.downstream = nil
                _ = downstream.receive(value)
                downstream.receive(completion: .finished)
            case .failure(let error):
                self.downstream = nil
                downstream.receive(completion: .failure(error))
            }
        }

        func cancel() { lock.withLock { downstream = nil } }
    }
}
