import Foundation

// Key-value observing with Apple's names, for the objects of this project's Apple-named modules: Linux
// has no Objective-C runtime, and corelibs Foundation declares none of these (neither
// `NSKeyValueObservation` nor `observe(_:options:changeHandler:)`). An observed object here announces
// that its values may have changed (`KeyValueObservingCenter.valuesMayHaveChanged(of:)`); each
// observation then reads its key path again and calls its handler if the value differs, on the thread
// that announced — for `WCSession` (at each delegate call, a link coming up, a complication transfer)
// and a file transfer's `Progress` (as the counterpart's acknowledgements move it), the session's
// delegate queue; `outstandingFileTransfers` bringing a progress up to date does it on its caller's.
// Any other object can be observed, but only `.initial` is ever delivered for it.

/// What a change handler is given: `.new` and `.old` ask for the values.
public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let new = NSKeyValueObservingOptions(rawValue: 0x01)
    public static let old = NSKeyValueObservingOptions(rawValue: 0x02)
    /// Calls the handler once at once, before `observe` returns.
    public static let initial = NSKeyValueObservingOptions(rawValue: 0x04)
    /// Accepted; no notification before a change is sent here (changes are seen once they happened).
    public static let prior = NSKeyValueObservingOptions(rawValue: 0x08)
}

/// The kind of a change: always `.setting` here (no observed collection).
public enum NSKeyValueChange: UInt, Sendable {
    case setting = 1
    case insertion = 2
    case removal = 3
    case replacement = 4
}

/// One change of an observed value.
public struct NSKeyValueObservedChange<Value> {
    public typealias Kind = NSKeyValueChange
    public let kind: Kind
    /// The value after the change, if `.new` was asked for.
    public let newValue: Value?
    /// The value before the change, if `.old` was asked for (nil in the `.initial` call).
    public let oldValue: Value?
    public let indexes: IndexSet?
    public let isPrior: Bool
}

/// The token `observe` returns: observation lasts until `invalidate()` or the token's release, and after
/// either the handler is never called again (a call already running finishes first).
public class NSKeyValueObservation: NSObject, @unchecked Sendable {
    private let check: () -> Void
    private let stop: () -> Void

    init(check: @escaping () -> Void, stop: @escaping () -> Void) {
        self.check = check
        self.stop = stop
        super.init()
    }

    deinit { stop() }

    public func invalidate() { stop() }

    func valuesMayHaveChanged() { check() }
}

/// Types whose properties can be observed by key path: every `NSObject`.
public protocol _KeyValueCodingAndObserving: AnyObject {}

extension NSObject: _KeyValueCodingAndObserving {}

extension _KeyValueCodingAndObserving {
    /// Calls `changeHandler` each time the value at `keyPath` changes, until the returned token is
    /// invalidated or released.
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>, options: NSKeyValueObservingOptions = [], changeHandler: @escaping (Self, NSKeyValueObservedChange<Value>) -> Void
    ) -> NSKeyValueObservation {
        let state = ObservationState(object: self, keyPath: keyPath, options: options, handler: changeHandler)
        let observation = NSKeyValueObservation(check: state.check, stop: state.invalidate)
        KeyValueObservingCenter.register(observation, for: self)
        state.start()
        return observation
    }
}

/// One observation's state: the object (weakly), the last value seen, and whether it still runs. The
/// lock is held while the handler runs, so `invalidate()` returns only once no call is running (a
/// handler may invalidate its own observation: the lock is recursive).
final class ObservationState<Root: AnyObject, Value>: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private weak var object: Root?
    private let keyPath: KeyPath<Root, Value>
    private let options: NSKeyValueObservingOptions
    private let handler: (Root, NSKeyValueObservedChange<Value>) -> Void
    private var last: Value?
    private var valid = true

    init(object: Root, keyPath: KeyPath<Root, Value>, options: NSKeyValueObservingOptions, handler: @escaping (Root, NSKeyValueObservedChange<Value>) -> Void) {
        self.object = object
        self.keyPath = keyPath
        self.options = options
        self.handler = handler
    }

    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard valid, let object else { return }
        let value = object[keyPath: keyPath]
        last = value
        guard options.contains(.initial) else { return }
        handler(object, NSKeyValueObservedChange(kind: .setting, newValue: options.contains(.new) ? value : nil, oldValue: nil, indexes: nil, isPrior: false))
    }

    func check() {
        lock.lock()
        defer { lock.unlock() }
        guard valid, let object else { return }
        let value = object[keyPath: keyPath]
        if let last, Self.same(last, value) { return }
        let old = last
        last = value
        handler(
            object,
            NSKeyValueObservedChange(
                kind: .setting, newValue: options.contains(.new) ? value : nil, oldValue: options.contains(.old) ? old : nil, indexes: nil, isPrior: false))
    }

    func invalidate() {
        lock.lock()
        valid = false
        lock.unlock()
    }

    /// Equal values are no change; values that cannot be compared always are one.
    static func same(_ a: Value, _ b: Value) -> Bool {
        guard let a = a as? any Equatable else { return false }
        return a.isEqual(to: b)
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool { (other as? Self) == self }
}

/// The observations of each observed object, held weakly: what an object's module tells when the
/// object's values may have changed. Not Apple's: the mechanism behind `observe` on Linux.
@_spi(RunWayPair)
public enum KeyValueObservingCenter {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var observations: [ObjectIdentifier: [WeakObservation]] = [:]

    final class WeakObservation {
        weak var value: NSKeyValueObservation?
        init(_ value: NSKeyValueObservation) { self.value = value }
    }

    static func register(_ observation: NSKeyValueObservation, for object: AnyObject) {
        lock.withLock {
            let key = ObjectIdentifier(object)
            observations[key] = (observations[key] ?? []).filter { $0.value != nil } + [WeakObservation(observation)]
        }
    }

    /// Whether anything observes `object` (so that an object spares itself the reads when nothing does).
    public static func isObserved(_ object: AnyObject) -> Bool {
        lock.withLock { observations[ObjectIdentifier(object)]?.contains { $0.value != nil } ?? false }
    }

    /// `object`'s values may have changed: each of its observations reads its key path again and calls
    /// its handler if the value differs, on this thread.
    public static func valuesMayHaveChanged(of object: AnyObject) {
        let live: [NSKeyValueObservation] = lock.withLock {
            let key = ObjectIdentifier(object)
            let live = (observations[key] ?? []).compactMap(\.value)
            observations[key] = live.isEmpty ? nil : live.map(WeakObservation.init)
            return live
        }
        for observation in live { observation.valuesMayHaveChanged() }
    }
}
