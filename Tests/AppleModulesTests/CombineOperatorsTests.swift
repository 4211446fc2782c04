import Combine
import Foundation
import Testing

/// A scheduler whose clock moves only when the test moves it: the time operators' semantics, checked at
/// exact virtual times, with no sleep and no duration asserted.
final class VirtualScheduler: Scheduler, @unchecked Sendable {
    struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral, Hashable {
        var seconds: Double
        init(_ seconds: Double) { self.seconds = seconds }
        init(floatLiteral value: Double) { seconds = value }
        init(integerLiteral value: Int) { seconds = Double(value) }
        init?<T: BinaryInteger>(exactly source: T) { seconds = Double(source) }
        var magnitude: Double { abs(seconds) }
        static func seconds(_ s: Int) -> Stride { Stride(Double(s)) }
        static func seconds(_ s: Double) -> Stride { Stride(s) }
        static func milliseconds(_ ms: Int) -> Stride { Stride(Double(ms) / 1e3) }
        static func microseconds(_ us: Int) -> Stride { Stride(Double(us) / 1e6) }
        static func nanoseconds(_ ns: Int) -> Stride { Stride(Double(ns) / 1e9) }
        static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.seconds < rhs.seconds }
        static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.seconds + rhs.seconds) }
        static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.seconds - rhs.seconds) }
        static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.seconds * rhs.seconds) }
        static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
    }

    struct Time: Strideable, Hashable {
        var seconds: Double
        func distance(to other: Time) -> Stride { Stride(other.seconds - seconds) }
        func advanced(by n: Stride) -> Time { Time(seconds: seconds + n.seconds) }
    }

    typealias SchedulerTimeType = Time
    typealias SchedulerOptions = Never

    private(set) var now = Time(seconds: 0)
    var minimumTolerance: Stride { 0 }
    private var queue: [(at: Time, order: Int, action: () -> Void, every: Stride?, id: Int)] = []
    private var order = 0
    private var cancelled: Set<Int> = []

    func schedule(options: Never?, _ action: @escaping () -> Void) { enqueue(now, action, every: nil) }
    func schedule(after date: Time, tolerance: Stride, options: Never?, _ action: @escaping () -> Void) { enqueue(date, action, every: nil) }
    func schedule(after date: Time, interval: Stride, tolerance: Stride, options: Never?, _ action: @escaping () -> Void) -> any Cancellable {
        let id = enqueue(date, action, every: interval)
        return AnyCancellable { self.cancelled.insert(id) }
    }

    @discardableResult
    private func enqueue(_ at: Time, _ action: @escaping () -> Void, every: Stride?, id: Int? = nil) -> Int {
        order += 1
        let id = id ?? order
        queue.append((at, order, action, every, id))
        return id
    }

    /// Runs everything due up to `seconds`, in time order, then sets the clock there.
    func advance(to seconds: Double) {
        while let next = queue.filter({ $0.at.seconds <= seconds }).min(by: { ($0.at.seconds, $0.order) < ($1.at.seconds, $1.order) }) {
            queue.removeAll { $0.order == next.order }
            guard !cancelled.contains(next.id) else { continue }
            now = Time(seconds: max(now.seconds, next.at.seconds))
            if let every = next.every { enqueue(next.at.advanced(by: every), next.action, every: every, id: next.id) }
            next.action()
        }
        now = Time(seconds: max(now.seconds, seconds))
    }
}

/// Records what a subscriber received, for the operators' tests.
final class Recorder<Value, Failure: Error>: @unchecked Sendable {
    var values: [Value] = []
    var completion: Subscribers.Completion<Failure>?
    var token: AnyCancellable?

    init<P: Publisher>(_ publisher: P) where P.Output == Value, P.Failure == Failure {
        token = publisher.sink(receiveCompletion: { self.completion = $0 }, receiveValue: { self.values.append($0) })
    }

    var finished: Bool { if case .finished? = completion { true } else { false } }
}

/// The operators models use, each against what Apple's documentation says it does (the sentence quoted).
@Suite struct CombineOperatorsTests {
    struct Run {
        var distance: Double
        var pace: Double
    }

    /// Apple, `map(_:)` with a key path: "Publishes the value of a key path."
    @Test func mapKeyPathPublishesTheProperty() {
        let runs = PassthroughSubject<Run, Never>()
        let distances = Recorder(runs.map(\.distance))
        runs.send(Run(distance: 5000, pace: 300))
        runs.send(Run(distance: 10_000, pace: 290))
        runs.send(completion: .finished)
        #expect(distances.values == [5000, 10_000] && distances.finished)
    }

    /// Apple, `combineLatest(_:)`: "Subscribes to an additional publisher and publishes a tuple upon receiving
    /// output from either publisher." — and "The combined publisher doesn't produce elements until each of
    /// its upstream publishers publishes at least one element." — "All upstream publishers need to finish
    /// for this publisher to finish." — "If any of the combined publishers terminates with a failure, this
    /// publisher also fails."
    @Test func combineLatestWaitsForEachThenPublishesEveryChange() {
        let reachable = PassthroughSubject<Bool, Never>()
        let pending = PassthroughSubject<Int, Never>()
        let both = Recorder(reachable.combineLatest(pending).map { "\($0.0)/\($0.1)" })
        reachable.send(false)
        #expect(both.values.isEmpty, "nothing until each has published")
        pending.send(3)
        reachable.send(true)
        pending.send(0)
        #expect(both.values == ["false/3", "true/3", "true/0"])
        reachable.send(completion: .finished)
        #expect(!both.finished, "one finished, the other still runs")
        pending.send(1)
        #expect(both.values.last == "true/1")
        pending.send(completion: .finished)
        #expect(both.finished)

        struct Lost: Error {}
        let a = PassthroughSubject<Int, Lost>(), b = PassthroughSubject<Int, Lost>(), c = PassthroughSubject<Int, Lost>()
        let three = Recorder(a.combineLatest(b, c) { $0 + $1 + $2 })
        a.send(1)
        b.send(2)
        c.send(3)
        b.send(completion: .failure(Lost()))
        a.send(10)
        #expect(three.values == [6])
        if case .failure? = three.completion {} else { Issue.record("a failure fails the combination: \(String(describing: three.completion))") }
    }

    /// Apple, `merge(with:)`: "Combines elements from this publisher with those from another publisher,
    /// delivering an interleaved sequence of elements." — "The merged publisher continues to emit elements
    /// until all upstream publishers finish. If an upstream publisher produces an error, the merged
    /// publisher fails with that error."
    @Test func mergeInterleavesAndEndsWithTheLastOrTheFirstFailure() {
        let watch = PassthroughSubject<String, Never>(), phone = PassthroughSubject<String, Never>()
        let merged = Recorder(watch.merge(with: phone))
        watch.send("w1")
        phone.send("p1")
        watch.send("w2")
        watch.send(completion: .finished)
        phone.send("p2")
        #expect(merged.values == ["w1", "p1", "w2", "p2"] && !merged.finished)
        phone.send(completion: .finished)
        #expect(merged.finished)

        struct Dropped: Error {}
        let a = PassthroughSubject<Int, Dropped>(), b = PassthroughSubject<Int, Dropped>(), c = PassthroughSubject<Int, Dropped>()
        let many = Recorder(Publishers.MergeMany(a, b, c))
        a.send(1)
        c.send(3)
        b.send(completion: .failure(Dropped()))
        a.send(4)
        #expect(many.values == [1, 3])
        if case .failure? = many.completion {} else { Issue.record("the first failure ends it") }
        let pair = Recorder(Publishers.Merge(Just(1), Just(2)))
        #expect(pair.values == [1, 2] && pair.finished)
    }

    /// Apple's own example for `debounce(for:scheduler:options:)` ("Publishes elements only after a
    /// specified time interval elapses between events"): values at 0, 0.25, 1, 1.25, 1.5 and 2 s with a
    /// 0.5 s debounce print "Received index 1", "4", "5".
    @Test func debounceAsApplesExample() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let received = Recorder(subject.debounce(for: .seconds(0.5), scheduler: scheduler))
        for (index, at) in [(0, 0.0), (1, 0.25), (2, 1.0), (3, 1.25), (4, 1.5), (5, 2.0)] {
            scheduler.advance(to: at)
            subject.send(index)
        }
        scheduler.advance(to: 0.74)
        scheduler.advance(to: 10)
        #expect(received.values == [1, 4, 5])
        // A completion goes at once; a value still waiting goes with the stream.
        subject.send(6)
        subject.send(completion: .finished)
        scheduler.advance(to: 20)
        #expect(received.values == [1, 4, 5] && received.finished)
    }

    /// Apple, `throttle(for:scheduler:latest:)`: "Publishes either the most-recent or first element
    /// published by the upstream publisher in the specified time interval." — `latest`: "If false, the
    /// publisher emits the first element received during the interval."
    @Test func throttlePublishesTheLatestOrTheFirstOfEachInterval() {
        for latest in [true, false] {
            let scheduler = VirtualScheduler()
            let subject = PassthroughSubject<Int, Never>()
            let received = Recorder(subject.throttle(for: .seconds(1), scheduler: scheduler, latest: latest))
            subject.send(1)  // at 0: the first goes at once
            scheduler.advance(to: 0)
            for (value, at) in [(2, 0.2), (3, 0.5), (4, 0.8)] {
                scheduler.advance(to: at)
                subject.send(value)
            }
            scheduler.advance(to: 0.99)
            #expect(received.values == [1], "nothing more within the interval")
            scheduler.advance(to: 1.0)
            #expect(received.values == [1, latest ? 4 : 2])
            scheduler.advance(to: 5)
            subject.send(9)  // a quiet interval passed: at once
            scheduler.advance(to: 5)
            subject.send(completion: .finished)
            scheduler.advance(to: 6)
            #expect(received.values == [1, latest ? 4 : 2, 9] && received.finished, "latest=\(latest): \(received.values)")
        }
    }

    /// Apple, `delay(for:tolerance:scheduler:options:)`: "Delays delivery of all output to the downstream
    /// receiver by a specified amount of time on a particular scheduler." — the completion too.
    @Test func delayShiftsEveryValueAndTheCompletion() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<String, Never>()
        let received = Recorder(subject.delay(for: .seconds(2), scheduler: scheduler))
        subject.send("a")
        scheduler.advance(to: 1)
        subject.send("b")
        subject.send(completion: .finished)
        scheduler.advance(to: 1.99)
        #expect(received.values.isEmpty)
        scheduler.advance(to: 2)
        #expect(received.values == ["a"] && !received.finished)
        scheduler.advance(to: 3)
        #expect(received.values == ["a", "b"] && received.finished)
    }

    /// Apple, `Future`: "A publisher that eventually produces a single value and then finishes or fails."
    /// Its closure runs once, when it is made; a subscriber that comes later gets the same result.
    @Test func futureRunsOnceAndEveryoneGetsItsResult() {
        var runs = 0
        var fulfil: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise in
            runs += 1
            fulfil = promise
        }
        #expect(runs == 1, "the closure runs when the future is made")
        let early = Recorder(future)
        fulfil?(.success(42))
        fulfil?(.success(7))
        let late = Recorder(future)
        #expect(early.values == [42] && early.finished)
        #expect(late.values == [42] && late.finished)
        #expect(runs == 1)

        struct Denied: Error {}
        let failing = Recorder(Future<Int, Denied> { $0(.failure(Denied())) })
        #expect(failing.values.isEmpty)
        if case .failure? = failing.completion {} else { Issue.record("a failed future fails") }
    }

    /// Apple, `Timer.publish(every:tolerance:on:in:options:)`: "Returns a publisher that repeatedly emits the
    /// current date on the given interval." — `autoconnect()`: connects with the first subscriber and stops
    /// when the last one leaves. On the main run loop, as apps use it (the main queue is served here by
    /// waiting on it; the test asserts counts and order, never a duration).
    @Test func timerPublishTicksOnceConnectedAndStopsWhenCancelled() async throws {
        let timer = Timer.publish(every: 0.02, on: .main, in: .common)
        let ticks = Recorder(timer)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(ticks.values.isEmpty, "a connectable publisher waits for connect()")
        let auto = Timer.publish(every: 0.02, on: .main, in: .common).autoconnect()
        let received = LockedCount()
        var token: AnyCancellable? = auto.sink { date in received.add(date) }
        for _ in 0..<200 where received.count < 3 { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(received.count >= 3, "ticks once subscribed")
        #expect(received.inOrder)
        token?.cancel()
        token = nil
        try await Task.sleep(nanoseconds: 50_000_000)
        let stopped = received.count
        try await Task.sleep(nanoseconds: 150_000_000)
        #expect(received.count == stopped, "no tick after the last subscriber left")
        _ = ticks
    }

    final class LockedCount: @unchecked Sendable {
        private let lock = NSLock()
        private var dates: [Date] = []
        func add(_ date: Date) { lock.withLock { dates.append(date) } }
        var count: Int { lock.withLock { dates.count } }
        var inOrder: Bool { lock.withLock { zip(dates, dates.dropFirst()).allSatisfy { $0 <= $1 } } }
    }

    /// `receive(on:)` and the time operators take `DispatchQueue` and `RunLoop` as Apple's schedulers do:
    /// their `now`, their strides, `schedule(after:)`.
    @Test func dispatchQueueAndRunLoopAreSchedulers() async throws {
        let queue = DispatchQueue(label: "runway.combine.test")
        #expect(DispatchQueue.SchedulerTimeType.Stride.milliseconds(1500) == .seconds(1.5))
        #expect(RunLoop.SchedulerTimeType.Stride.milliseconds(250).timeInterval == 0.25)
        #expect(queue.now.advanced(by: .seconds(1)) > queue.now)
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedCount()
        let token = subject.debounce(for: .milliseconds(30), scheduler: queue).sink { _ in received.add(Date()) }
        for value in 0..<5 { subject.send(value) }
        for _ in 0..<200 where received.count < 1 { try await Task.sleep(nanoseconds: 10_000_000) }
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(received.count == 1, "a burst debounced to one value")
        token.cancel()
    }
}
