import Foundation

// MARK: - Schedulers, as Apple's Combine declares them

/// A time interval a scheduler counts in, made from seconds and their fractions.
public protocol SchedulerTimeIntervalConvertible {
    static func seconds(_ s: Int) -> Self
    static func seconds(_ s: Double) -> Self
    static func milliseconds(_ ms: Int) -> Self
    static func microseconds(_ us: Int) -> Self
    static func nanoseconds(_ ns: Int) -> Self
}

/// When and how to run work: now, after a date, or repeatedly (Apple's `Scheduler`). `DispatchQueue`,
/// `RunLoop` and `ImmediateScheduler` are schedulers, as on Apple's platforms.
public protocol Scheduler<SchedulerTimeType> {
    associatedtype SchedulerTimeType: Strideable where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
    associatedtype SchedulerOptions

    /// This scheduler's idea of now.
    var now: SchedulerTimeType { get }
    /// The least tolerance it allows.
    var minimumTolerance: SchedulerTimeType.Stride { get }

    /// Runs `action` soon.
    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)
    /// Runs `action` at `date` or after it, within `tolerance`.
    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?, _ action: @escaping () -> Void)
    /// Runs `action` at `date`, then every `interval`, until the result is cancelled.
    func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable
}

extension Scheduler {
    public func schedule(_ action: @escaping () -> Void) { schedule(options: nil, action) }

    public func schedule(after date: SchedulerTimeType, _ action: @escaping () -> Void) {
        schedule(after: date, tolerance: minimumTolerance, options: nil, action)
    }

    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, _ action: @escaping () -> Void) {
        schedule(after: date, tolerance: tolerance, options: nil, action)
    }

    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, _ action: @escaping () -> Void) -> any Cancellable {
        schedule(after: date, interval: interval, tolerance: minimumTolerance, options: nil, action)
    }

    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, _ action: @escaping () -> Void
    ) -> any Cancellable {
        schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
    }
}

/// A repeating timer on a dispatch queue, cancelled by `cancel()` (the `Cancellable` a repeating
/// schedule returns).
final class DispatchRepeat: Cancellable, @unchecked Sendable {
    private let timer: any DispatchSourceTimer

    init(queue: DispatchQueue, first: DispatchTime, every nanoseconds: Int, leeway: Int, _ action: @escaping () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        nonisolated(unsafe) let work = action
        timer.setEventHandler { work() }
        timer.schedule(deadline: first, repeating: .nanoseconds(max(1, nanoseconds)), leeway: .nanoseconds(max(0, leeway)))
        timer.resume()
    }

    func cancel() { timer.cancel() }
}

// MARK: - DispatchQueue

extension DispatchQueue: Scheduler {
    /// Dispatch's options (quality of service, flags, group) are accepted and not applied.
    public struct SchedulerOptions: @unchecked Sendable {
        public var qos: DispatchQoS
        public var flags: DispatchWorkItemFlags
        public var group: DispatchGroup?
        public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
            self.qos = qos
            self.flags = flags
            self.group = group
        }
    }

    /// A moment on the dispatch clock (Apple's `DispatchQueue.SchedulerTimeType`).
    public struct SchedulerTimeType: Strideable, Hashable, Sendable {
        public var dispatchTime: DispatchTime
        public init(_ time: DispatchTime) { dispatchTime = time }

        public func distance(to other: SchedulerTimeType) -> Stride {
            Stride(.nanoseconds(Int(clamping: Int64(bitPattern: other.dispatchTime.uptimeNanoseconds &- dispatchTime.uptimeNanoseconds))))
        }

        public func advanced(by n: Stride) -> SchedulerTimeType {
            let moved = Int64(clamping: Int64(bitPattern: dispatchTime.uptimeNanoseconds)) &+ Int64(n.magnitude)
            return SchedulerTimeType(DispatchTime(uptimeNanoseconds: UInt64(max(1, moved))))
        }

        public static func == (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool { lhs.dispatchTime == rhs.dispatchTime }
        public func hash(into hasher: inout Hasher) { hasher.combine(dispatchTime.uptimeNanoseconds) }

        /// A length of time in nanoseconds (Apple's `DispatchQueue.SchedulerTimeType.Stride`).
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral, Hashable, Sendable {
            /// Nanoseconds.
            public var magnitude: Int

            public init(_ timeInterval: DispatchTimeInterval) {
                switch timeInterval {
                case .seconds(let s): magnitude = s.multipliedReportingOverflow(by: 1_000_000_000).overflow ? Int.max : s * 1_000_000_000
                case .milliseconds(let ms): magnitude = ms.multipliedReportingOverflow(by: 1_000_000).overflow ? Int.max : ms * 1_000_000
                case .microseconds(let us): magnitude = us.multipliedReportingOverflow(by: 1_000).overflow ? Int.max : us * 1_000
                case .nanoseconds(let ns): magnitude = ns
                case .never: magnitude = .max
                @unknown default: magnitude = .max
                }
            }

            public init(floatLiteral value: Double) { self = .seconds(value) }
            public init(integerLiteral value: Int) { self = .seconds(value) }
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                self = .seconds(value)
            }

            public var timeInterval: DispatchTimeInterval { .nanoseconds(magnitude) }

            public static func seconds(_ s: Int) -> Stride { Stride(.seconds(s)) }
            public static func seconds(_ s: Double) -> Stride {
                let ns = s * 1e9
                return Stride(.nanoseconds(ns.isFinite ? Int(max(Double(Int.min), min(Double(Int.max), ns))) : (ns > 0 ? .max : .min)))
            }
            public static func milliseconds(_ ms: Int) -> Stride { Stride(.milliseconds(ms)) }
            public static func microseconds(_ us: Int) -> Stride { Stride(.microseconds(us)) }
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(.nanoseconds(ns)) }

            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            public static func == (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude == rhs.magnitude }
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(.nanoseconds(lhs.magnitude.addingReportingOverflow(rhs.magnitude).partialValue))
            }
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(.nanoseconds(lhs.magnitude.subtractingReportingOverflow(rhs.magnitude).partialValue))
            }
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(.nanoseconds(lhs.magnitude.multipliedReportingOverflow(by: rhs.magnitude).partialValue))
            }
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
        }
    }

    public var now: SchedulerTimeType { SchedulerTimeType(DispatchTime.now()) }
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        nonisolated(unsafe) let work = action
        async { work() }
    }

    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?, _ action: @escaping () -> Void) {
        nonisolated(unsafe) let work = action
        asyncAfter(deadline: date.dispatchTime) { work() }
    }

    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        DispatchRepeat(queue: self, first: date.dispatchTime, every: interval.magnitude, leeway: tolerance.magnitude, action)
    }
}

// MARK: - RunLoop

extension RunLoop: Scheduler {
    public struct SchedulerOptions: Sendable {
        public init() {}
    }

    /// A moment on the run loop's clock: a date (Apple's `RunLoop.SchedulerTimeType`).
    public struct SchedulerTimeType: Strideable, Hashable, Sendable {
        public var date: Date
        public init(_ date: Date) { self.date = date }

        public func distance(to other: SchedulerTimeType) -> Stride { Stride(other.date.timeIntervalSince(date)) }
        public func advanced(by n: Stride) -> SchedulerTimeType { SchedulerTimeType(date.addingTimeInterval(n.magnitude)) }

        /// A length of time in seconds (Apple's `RunLoop.SchedulerTimeType.Stride`).
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral, Hashable, Sendable {
            /// Seconds.
            public var magnitude: TimeInterval
            public var timeInterval: TimeInterval { magnitude }

            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
            public init(floatLiteral value: Double) { magnitude = value }
            public init(integerLiteral value: Int) { magnitude = TimeInterval(value) }
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = TimeInterval(exactly: source) else { return nil }
                magnitude = value
            }

            public static func seconds(_ s: Int) -> Stride { Stride(TimeInterval(s)) }
            public static func seconds(_ s: Double) -> Stride { Stride(s) }
            public static func milliseconds(_ ms: Int) -> Stride { Stride(TimeInterval(ms) / 1e3) }
            public static func microseconds(_ us: Int) -> Stride { Stride(TimeInterval(us) / 1e6) }
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(TimeInterval(ns) / 1e9) }

            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude + rhs.magnitude) }
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude - rhs.magnitude) }
            public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude * rhs.magnitude) }
            public static func += (lhs: inout Stride, rhs: Stride) { lhs.magnitude += rhs.magnitude }
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs.magnitude -= rhs.magnitude }
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs.magnitude *= rhs.magnitude }
        }
    }

    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// The main run loop's work goes through the main dispatch queue, which `RunLoop.main.run()` and
    /// `dispatchMain()` both serve on Linux; another run loop performs it in its default mode.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        nonisolated(unsafe) let work = action
        if self === RunLoop.main { return DispatchQueue.main.async { work() } }
        perform { work() }
    }

    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?, _ action: @escaping () -> Void) {
        nonisolated(unsafe) let work = action
        if self === RunLoop.main {
            return DispatchQueue.main.asyncAfter(deadline: .now() + max(0, date.date.timeIntervalSinceNow)) { work() }
        }
        let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in work() }
        add(timer, forMode: .default)
    }

    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        if self === RunLoop.main {
            return DispatchRepeat(
                queue: .main, first: .now() + max(0, date.date.timeIntervalSinceNow), every: Int(max(1e-9, interval.magnitude) * 1e9),
                leeway: Int(tolerance.magnitude * 1e9), action)
        }
        nonisolated(unsafe) let work = action
        let timer = Timer(fire: date.date, interval: max(1e-6, interval.magnitude), repeats: true) { _ in work() }
        add(timer, forMode: .default)
        return AnyCancellable { timer.invalidate() }
    }
}

// MARK: - ImmediateScheduler

/// Runs everything at once, on the calling thread (Apple's `ImmediateScheduler`): a scheduled date is
/// not waited for.
public struct ImmediateScheduler: Scheduler, Sendable {
    public typealias SchedulerOptions = Never

    /// Apple's: a step counter, not a clock.
    public struct SchedulerTimeType: Strideable, Sendable {
        public func distance(to other: SchedulerTimeType) -> Stride { 0 }
        public func advanced(by n: Stride) -> SchedulerTimeType { self }

        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral, Sendable {
            public var magnitude: Int
            public init(_ value: Int) { magnitude = value }
            public init(integerLiteral value: Int) { magnitude = value }
            public init(floatLiteral value: Double) { magnitude = Int(value.isFinite ? max(Double(Int.min), min(Double(Int.max), value)) : 0) }
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                magnitude = value
            }
            public static func seconds(_ s: Int) -> Stride { Stride(s) }
            public static func seconds(_ s: Double) -> Stride { Stride(floatLiteral: s) }
            public static func milliseconds(_ ms: Int) -> Stride { Stride(ms) }
            public static func microseconds(_ us: Int) -> Stride { Stride(us) }
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(ns) }
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &+ rhs.magnitude) }
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &- rhs.magnitude) }
            public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &* rhs.magnitude) }
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
        }
    }

    public static let shared = ImmediateScheduler()
    public var now: SchedulerTimeType { SchedulerTimeType() }
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }
    public func schedule(options: Never?, _ action: @escaping () -> Void) { action() }
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Never?, _ action: @escaping () -> Void) {
        action()
    }
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride, options: Never?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        action()
        return AnyCancellable {}
    }
}
