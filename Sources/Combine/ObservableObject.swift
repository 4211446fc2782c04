import Foundation

/// An object whose changes a view can follow: `objectWillChange` emits before any of its `@Published`
/// properties changes.
///
/// Apple's compiler synthesizes `objectWillChange` for a class with `@Published` properties. Linux has no
/// such synthesis, so the default below finds the object's `@Published` properties by reflection
/// (`Mirror`, its superclasses' too) the first time it is read, and links each to one publisher, kept by
/// the properties themselves: every later read returns that publisher, and every set of a `@Published`
/// property sends through it before the value changes. A class with no `@Published` property gets one
/// publisher all the same (held beside the object, for as long as the object lives).
public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher where ObjectWillChangePublisher.Failure == Never
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    public var objectWillChange: ObservableObjectPublisher { ObservableObjectPublisher.of(self) }
}

/// The publisher of an `ObservableObject`'s coming changes: a value-less event, sent before each.
public final class ObservableObjectPublisher: Publisher, @unchecked Sendable {
    public typealias Output = Void
    public typealias Failure = Never
    private let core = SubjectCore<Void, Never>()

    public init() {}

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        core.attach(AnySubscriber(subscriber), current: nil)
    }

    /// Tells the subscribers the object is about to change.
    public func send() { core.send(()) }

    // MARK: - One publisher per object

    private static let lock = NSLock()
    nonisolated(unsafe) private static var unpublished: [ObjectIdentifier: (object: Weak, publisher: ObservableObjectPublisher)] = [:]

    final class Weak {
        weak var value: AnyObject?
        init(_ value: AnyObject) { self.value = value }
    }

    /// The publisher of `object`: the one its `@Published` properties already carry, else a new one
    /// given to all of them.
    static func of(_ object: AnyObject) -> ObservableObjectPublisher {
        var links: [PublishedLink] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                if let property = child.value as? any PublishedProperty { links.append(property.link) }
            }
            mirror = current.superclassMirror
        }
        return lock.withLock {
            if links.isEmpty {
                let key = ObjectIdentifier(object)
                if let entry = unpublished[key], entry.object.value === object { return entry.publisher }
                unpublished = unpublished.filter { $0.value.object.value != nil }
                let publisher = ObservableObjectPublisher()
                unpublished[key] = (Weak(object), publisher)
                return publisher
            }
            let publisher = links.lazy.compactMap(\.publisher).first ?? ObservableObjectPublisher()
            for link in links where link.publisher == nil { link.publisher = publisher }
            return publisher
        }
    }
}

/// Where a `@Published` property keeps the publisher of the object that holds it.
final class PublishedLink: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: ObservableObjectPublisher?
    var publisher: ObservableObjectPublisher? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

protocol PublishedProperty {
    var link: PublishedLink { get }
}

/// A property whose changes are published: `$name` is a publisher of its values (the current one first,
/// then each new one as it is set — before the property holds it, as Apple's does), and in an
/// `ObservableObject` every set first sends `objectWillChange`.
@propertyWrapper
public struct Published<Value>: PublishedProperty {
    final class Storage: @unchecked Sendable {
        let lock = NSLock()
        var value: Value
        let subscribers = SubjectCore<Value, Never>()
        let link = PublishedLink()
        init(_ value: Value) { self.value = value }
    }

    let storage: Storage
    var link: PublishedLink { storage.link }

    public init(wrappedValue: Value) { storage = Storage(wrappedValue) }

    public init(initialValue: Value) { self.init(wrappedValue: initialValue) }

    public var wrappedValue: Value {
        get { storage.lock.withLock { storage.value } }
        nonmutating set {
            storage.link.publisher?.send()
            storage.subscribers.send(newValue)
            storage.lock.withLock { storage.value = newValue }
        }
    }

    /// The property's publisher (`$name`).
    public var projectedValue: Publisher {
        get { Publisher(storage) }
        // Apple's is settable (for `assign(to: &$name)`); this one is the same storage, so a set keeps it.
        set {}
    }

    /// The values of one `@Published` property: the current one to each new subscriber, then each set.
    public struct Publisher: Combine.Publisher {
        public typealias Output = Value
        public typealias Failure = Never
        let storage: Storage

        init(_ storage: Storage) { self.storage = storage }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            storage.subscribers.attach(AnySubscriber(subscriber), current: storage.lock.withLock { storage.value })
        }
    }
}

extension Publisher where Failure == Never {
    /// Republishes every value through a `@Published` property (`assign(to: &$name)`), for as long as the
    /// property lives.
    public func assign(to published: inout Published<Output>.Publisher) {
        let storage = published.storage
        let sink = Subscribers.Sink<Output, Never>(receiveCompletion: { _ in }, receiveValue: { Published(storage).wrappedValue = $0 })
        subscribe(sink)
    }
}

extension Published {
    init(_ storage: Storage) { self.storage = storage }
}
