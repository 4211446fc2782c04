import Foundation
import Posix

/// A raw Unix-socket listener: the fake phone of the link tests, bound where the phone's `link.sock`
/// is while the phone is down, so that the real watch connects to it. Blocking, with deadlines.
package final class RawListener {
    package let path: String
    private let descriptor: FileDescriptor

    /// Binds and listens at `path`, removing a stale socket left there (never anything else).
    package init(path: String) throws {
        self.path = path
        let address: UnixSocketAddress
        do { address = try UnixSocketAddress(path: path) } catch { throw HarnessError("socket path too long: \(path)") }
        do {
            try UnixSocket.removeStaleSocket(at: address)
            descriptor = try UnixSocket.listen(at: address, backlog: 16)
        } catch {
            throw HarnessError("listen(\(path)): \(error)")
        }
    }

    deinit { close() }

    /// The next connection (blocking from now on), if one comes within `seconds`.
    package func accept(waitingUpTo seconds: Double) -> RawClient? {
        let deadline = Date().addingTimeInterval(seconds)
        while descriptor.isOpen {
            let remaining = Int32(max(0, min(deadline.timeIntervalSinceNow, 1)) * 1000)
            if (try? descriptor.waitUntil(.readable, timeoutMilliseconds: remaining)) == true,
                let accepted = try? UnixSocket.accept(from: descriptor)
            {
                try? accepted.setNonBlocking(false)
                return RawClient(adopting: accepted, path: path)
            }
            if deadline.timeIntervalSinceNow <= 0 { return nil }
        }
        return nil
    }

    /// Stops listening and removes the socket.
    package func close() {
        guard descriptor.isOpen else { return }
        descriptor.close()
        try? Filesystem.removeDurably(path)
    }
}
