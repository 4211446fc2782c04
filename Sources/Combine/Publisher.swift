import Foundation

// The protocols of Apple's Combine, the part session managers use: a publisher, its subscriber, the
// subscription between them and the demand a subscriber makes. `docs/your-app.md` lists what is here.

/// A type that delivers a sequence of values over time, then perhaps a completion.
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
    /// Attaches `subscriber`: it receives a subscription, then values as it asks for them.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
    /// Attaches `subscriber` to this publisher.
    public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        receive(subscriber: subscriber)
    }
}

/// A type that receives values from a publisher.
public protocol Subscriber<Input, Failure> {
    associatedtype Input
    associatedtype Failure: Error
    func receive(subscription: any Subscription)
    /// A value; the result is how many more the subscriber wants, beyond what it asked for before.
    func receive(_ input: Input) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Failure>)
}

/// Something that can be cancelled: a subscription, or the token `sink` returns.
public protocol Cancellable {
    func cancel()
}

/// The link between a publisher and one subscriber.
public protocol Subscription: Cancellable {
    /// The subscriber wants `demand` more values.
    func request(_ demand: Subscribers.Demand)
}

/// The namespace of the subscribers (`Sink`, `Assign`), demand and completion.
public enum Subscribers {}

extension Subscribers {
    /// How a publisher ended: normally, or with an error.
    public enum Completion<Failure: Error> {
        case finished
        case failure(Failure)
    }

    /// How many values a subscriber wants: a number, or unlimited.
    public struct Demand: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The number of values, or nil for unlimited.
        public let max: Int?

        init(_ max: Int?) { self.max = max }

        public static let unlimited = Demand(nil)
        public static let none = Demand(0)
        public static func max(_ value: Int) -> Demand {
            precondition(value >= 0, "a demand cannot be negative")
            return Demand(value)
        }

        public var description: String { max.map { "max(\($0))" } ?? "unlimited" }

        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            guard let left = lhs.max, let right = rhs.max else { return .unlimited }
            let (sum, overflow) = left.addingReportingOverflow(right)
            return overflow ? .unlimited : Demand(sum)
        }

        public static func += (lhs: inout Demand, rhs: Demand) { lhs = lhs + rhs }

        public static func - (lhs: Demand, rhs: Demand) -> Demand {
            guard let left = lhs.max else { return .unlimited }
            guard let right = rhs.max else { return .none }
            return Demand(Swift.max(0, left - right))
        }

        public static func -= (lhs: inout Demand, rhs: Demand) { lhs = lhs - rhs }

        public static func < (lhs: Demand, rhs: Demand) -> Bool {
            switch (lhs.max, rhs.max) {
            case (nil, _): false
            case (_, nil): true
            case let (left?, right?): left < right
            }
        }
    }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}
extension Subscribers.Completion: Sendable where Failure: Sendable {}

/// A subscriber of any type, for code that must store one.
public struct AnySubscriber<Input, Failure: Error>: Subscriber {
    private let subscriptionBody: (any Subscription) -> Void
    private let valueBody: (Input) -> Subscribers.Demand
    private let completionBody: (Subscribers.Completion<Failure>) -> Void

    public init<S: Subscriber>(_ subscriber: S) where S.Input == Input, S.Failure == Failure {
        subscriptionBody = subscriber.receive(subscription:)
        valueBody = subscriber.receive(_:)
        completionBody = subscriber.receive(completion:)
    }

    public init(
        receiveSubscription: ((any Subscription) -> Void)? = nil, receiveValue: ((Input) -> Subscribers.Demand)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        subscriptionBody = receiveSubscription ?? { _ in }
        valueBody = receiveValue ?? { _ in .none }
        completionBody = receiveCompletion ?? { _ in }
    }

    public func receive(subscription: any Subscription) { subscriptionBody(subscription) }
    public func receive(_ input: Input) -> Subscribers.Demand { valueBody(input) }
    public func receive(completion: Subscribers.Completion<Failure>) { completionBody(completion) }
}
