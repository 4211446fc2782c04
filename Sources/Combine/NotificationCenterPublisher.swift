import Foundation

extension NotificationCenter {
    /// The notifications named `name` (from `object`, when given), as a publisher: each subscriber is an
    /// observer of the centre until it cancels.
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
        Publisher(center: self, name: name, object: object)
    }

    /// The publisher `publisher(for:object:)` returns.
    public struct Publisher: Combine.Publisher {
        public typealias Output = Notification
        public typealias Failure = Never
        public let center: NotificationCenter
        public let name: Notification.Name
        public let object: AnyObject?

        public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
            self.center = center
            self.name = name
            self.object = object
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Notification, S.Failure == Never {
            let subject = PassthroughSubject<Notification, Never>()
            nonisolated(unsafe) let token = center.addObserver(forName: name, object: object, queue: nil) { subject.send($0) }
            let center = self.center
            subject.receive(subscriber: Removing(AnySubscriber(subscriber)) { center.removeObserver(token) })
        }
    }
}

/// Passes everything on and runs `onCancel` when its subscriber cancels: the observer it came from goes.
private final class Removing<Input>: Subscriber, Subscription, @unchecked Sendable {
    typealias Failure = Never
    private let downstream: AnySubscriber<Input, Never>
    private let lock = NSLock()
    private var onCancel: (() -> Void)?
    private var upstream: (any Subscription)?

    init(_ downstream: AnySubscriber<Input, Never>, onCancel: @escaping () -> Void) {
        self.downstream = downstream
        self.onCancel = onCancel
    }

    func receive(subscription: any Subscription) {
        lock.withLock { upstream = subscription }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }
    func receive(completion: Subscribers.Completion<Never>) { downstream.receive(completion: completion) }
    func request(_ demand: Subscribers.Demand) { lock.withLock { upstream }?.request(demand) }

    func cancel() {
        let (upstream, onCancel) = lock.withLock {
            defer { self.upstream = nil; self.onCancel = nil }
            return (self.upstream, self.onCancel)
        }
        upstream?.cancel()
        onCancel?()
    }
}
