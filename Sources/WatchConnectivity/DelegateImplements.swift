import Foundation

/// Whether the app's delegate implements a method: Apple's session asks the Objective-C runtime
/// (`respondsToSelector:`); here there is none, so each optional method's default in the protocol's
/// extension says it was reached (`delegateLacks`), and the adapter, calling the delegate on the
/// delegate queue, reads what was reached during that one call (`callingDelegate`). A delegate that
/// implements the method never reaches the default — also when a subclass implements a method its
/// superclass, the one that declared the conformance, did not: Swift then calls the default, and so
/// the method counts as missing, as the app's own call through the protocol would find it.
final class DelegateReach: @unchecked Sendable {
    private let lock = NSLock()
    private var reached: DelegateMethod?

    func note(_ method: DelegateMethod) { lock.withLock { reached = method } }

    /// Runs `call` and says which default it reached, if any.
    func during(_ call: () -> Void) -> DelegateMethod? {
        lock.withLock { reached = nil }
        call()
        return lock.withLock {
            defer { reached = nil }
            return reached
        }
    }
}

extension WCSession {
    /// A default of `WCSessionDelegate` was reached: the delegate lacks `method`.
    func delegateLacks(_ method: DelegateMethod) { delegateReach.note(method) }

    /// Calls the delegate (`call`) and returns the method it lacks, if the call reached its default.
    func callingDelegate(_ call: () -> Void) -> DelegateMethod? { delegateReach.during(call) }
}
