import Foundation

// What Apple's Combine has and this subset does not, declared so that the compiler says so — and where to
// read what is here — rather than "has no member". Each is unavailable: no code calls it.

@usableFromInline let absent = "not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"

extension Publisher {
    @available(*, unavailable, message: "flatMap is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func flatMap<T, P: Publisher>(maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P) -> AnyPublisher<T, Failure>
    where P.Output == T, P.Failure == Failure { fatalError(absent) }

    @available(*, unavailable, message: "zip is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func zip<P: Publisher>(_ other: P) -> AnyPublisher<(Output, P.Output), Failure> where P.Failure == Failure { fatalError(absent) }

    @available(*, unavailable, message: "scan is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> AnyPublisher<T, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "reduce is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> AnyPublisher<T, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "collect is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func collect() -> AnyPublisher<[Output], Failure> { fatalError(absent) }

    @available(*, unavailable, message: "collect is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func collect(_ count: Int) -> AnyPublisher<[Output], Failure> { fatalError(absent) }

    @available(*, unavailable, message: "prepend is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func prepend(_ elements: Output...) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "append is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func append(_ elements: Output...) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "first is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func first() -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(
        *, unavailable, message: "first(where:) is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public func first(where predicate: @escaping (Output) -> Bool) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "last is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func last() -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(
        *, unavailable, message: "dropFirst is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public func dropFirst(_ count: Int = 1) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "prefix is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func prefix(_ maxLength: Int) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(
        *, unavailable, message: "handleEvents is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public func handleEvents(
        receiveSubscription: ((any Subscription) -> Void)? = nil, receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil, receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "catch is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> AnyPublisher<Output, P.Failure> where P.Output == Output {
        fatalError(absent)
    }

    @available(
        *, unavailable, message: "replaceError is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public func replaceError(with output: Output) -> AnyPublisher<Output, Never> { fatalError(absent) }

    @available(*, unavailable, message: "retry is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func retry(_ retries: Int) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(
        *, unavailable, message: "mapError is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E) -> AnyPublisher<Output, E> { fatalError(absent) }

    @available(*, unavailable, message: "tryMap is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> AnyPublisher<T, any Error> { fatalError(absent) }

    @available(*, unavailable, message: "share is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func share() -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "timeout is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public func timeout<S: Scheduler>(
        _ interval: S.SchedulerTimeType.Stride, scheduler: S, options: S.SchedulerOptions? = nil, customError: (() -> Failure)? = nil
    ) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(
        *, unavailable, message: "subscribe(on:) is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> AnyPublisher<Output, Failure> { fatalError(absent) }

    @available(*, unavailable, message: "values is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is")
    public var values: AsyncStream<Output> { fatalError(absent) }
}

extension Publisher where Output: Publisher, Output.Failure == Failure {
    @available(
        *, unavailable, message: "switchToLatest is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public func switchToLatest() -> AnyPublisher<Output.Output, Failure> { fatalError(absent) }
}

extension Publisher where Failure == Never {
    @available(
        *, unavailable, message: "setFailureType is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public func setFailureType<E: Error>(to failureType: E.Type) -> AnyPublisher<Output, E> { fatalError(absent) }
}

extension Sequence {
    @available(
        *, unavailable,
        message: "Sequence.publisher is not in RunWay Pair's Combine subset: docs/your-app.md, 'What each Apple module offers here', lists what is"
    )
    public var publisher: AnyPublisher<Element, Never> { fatalError(absent) }
}
