import Glibc

/// An owned file descriptor: opened close-on-exec, closed exactly once.
///
/// Whoever holds the `FileDescriptor` owns the descriptor. `close()` is idempotent; if the owner forgot,
/// `deinit` closes it, so a dropped connection never leaks a descriptor into a long-running daemon.
package final class FileDescriptor {
    package private(set) var rawValue: Int32

    package init(adopting rawValue: Int32) {
        precondition(rawValue >= 0, "adopting an invalid descriptor")
        self.rawValue = rawValue
    }

    deinit { close() }

    package var isOpen: Bool { rawValue >= 0 }

    /// Closes the descriptor. Never retried on `EINTR`: on Linux the descriptor is gone either way.
    package func close() {
        guard rawValue >= 0 else { return }
        _ = Glibc.close(rawValue)
        rawValue = -1
    }

    // MARK: - Non-blocking I/O

    /// Reads up to `count` bytes into `buffer`.
    package func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(SystemError) -> IOResult {
        guard let n = try nonBlockingCall("read", { Glibc.read(rawValue, buffer, count) }) else { return .wouldBlock }
        return n == 0 ? .endOfFile : .bytes(n)
    }

    /// Writes up to `count` bytes; on a socket never raises SIGPIPE (`MSG_NOSIGNAL`).
    package func send(_ buffer: UnsafeRawPointer, count: Int) throws(SystemError) -> IOResult {
        guard let n = try nonBlockingCall("send", { Glibc.send(rawValue, buffer, count, Int32(MSG_NOSIGNAL)) }) else { return .wouldBlock }
        return .bytes(n)
    }

    /// Writes every byte, waiting in `poll` while the descriptor is not ready. For plain files and for
    /// the blocking client side only; daemons use `send` from their event loop.
    package func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        var isSocket = true
        while offset < bytes.count {
            let start = bytes.baseAddress! + offset, count = bytes.count - offset
            // On a socket, send without SIGPIPE: a client whose daemon died gets EPIPE and says so.
            let written: Int?
            do throws(SystemError) {
                written =
                    isSocket
                    ? try nonBlockingCall("write", { Glibc.send(rawValue, start, count, Int32(MSG_NOSIGNAL)) })
                    : try nonBlockingCall("write", { Glibc.write(rawValue, start, count) })
            } catch  where error.errno == ENOTSOCK && isSocket {
                isSocket = false
                continue
            }
            guard let written else {
                try waitUntil(.writable, timeoutMilliseconds: -1)
                continue
            }
            offset += written
        }
    }

    package func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        // `withUnsafeBytes` rethrows untyped errors: carry the typed one out by hand.
        var failure: SystemError?
        bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try writeAll(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    package enum Readiness { case readable, writable }

    /// Blocks until the descriptor is ready; returns false on timeout.
    @discardableResult
    package func waitUntil(_ readiness: Readiness, timeoutMilliseconds: Int32) throws(SystemError) -> Bool {
        var pfd = pollfd(fd: rawValue, events: Int16(readiness == .readable ? POLLIN : POLLOUT), revents: 0)
        let n = try systemCall("poll") { Glibc.poll(&pfd, 1, timeoutMilliseconds) }
        return n > 0
    }

    // MARK: - Flags

    package func setNonBlocking(_ on: Bool = true) throws(SystemError) {
        let flags = try systemCall("fcntl(F_GETFL)") { fcntl(rawValue, F_GETFL) }
        let updated = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        _ = try systemCall("fcntl(F_SETFL)") { fcntl(rawValue, F_SETFL, updated) }
    }

    package func setCloseOnExec() throws(SystemError) {
        _ = try systemCall("fcntl(F_SETFD)") { fcntl(rawValue, F_SETFD, FD_CLOEXEC) }
    }
}
