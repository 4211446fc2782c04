import Glibc

/// A thread of its own for `body`, joined by `join`: the device's delegate queue runs on one, so that
/// an app's delegate is never called on the main thread (Apple: "on a background thread").
public final class DedicatedThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    /// Starts `body` on a new thread (it inherits the calling thread's signal mask).
    public init(_ body: @escaping () -> Void) throws(SystemError) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let this = Unmanaged<DedicatedThread>.fromOpaque(raw!).takeRetainedValue()
                this.body()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<DedicatedThread>.fromOpaque(context).release()
            throw SystemError("pthread_create", errno: result)
        }
    }

    /// Waits for `body` to return.
    public func join() {
        pthread_join(thread, nil)
    }

    /// Lets the thread go: nobody joins it, and its resources go when `body` returns.
    public func detach() {
        pthread_detach(thread)
    }
}
