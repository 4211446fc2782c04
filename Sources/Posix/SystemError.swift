import Glibc

/// A failed system call: which operation, and the `errno` it left.
///
/// The description names the operation and the error, never any payload bytes.
package struct SystemError: Error, Equatable, CustomStringConvertible, Sendable {
    package let operation: String
    package let errno: Int32

    package init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    package var description: String {
        "\(operation): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// The error was a lack of space on the device (`ENOSPC`, `EDQUOT`).
    package var isNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }
}

/// The one funnel for system calls: retries `EINTR`, throws a typed error with the operation's name
/// for any other `-1`. `close` must not go through here (it must never be retried). `EBADF` is a bug
/// (a descriptor used after its owner closed it), not a runtime condition: debug builds stop on it.
@inline(__always)
package func systemCall<T: FixedWidthInteger>(
    _ operation: @autoclosure () -> String,
    retryOnInterrupt: Bool = true,
    _ body: () -> T
) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR && retryOnInterrupt { continue }
        if code == EBADF { assertionFailure("\(operation()): EBADF, a descriptor used after it was closed") }
        throw SystemError(operation(), errno: code)
    }
}

/// The funnel for non-blocking I/O: like `systemCall`, and `EAGAIN` is "would block" (nil), not an error.
@inline(__always)
package func nonBlockingCall(_ operation: @autoclosure () -> String, _ body: () -> Int) throws(SystemError) -> Int? {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        if code == EAGAIN || code == EWOULDBLOCK { return nil }
        if code == EBADF { assertionFailure("\(operation()): EBADF, a descriptor used after it was closed") }
        throw SystemError(operation(), errno: code)
    }
}

/// The outcome of a non-blocking read or write.
package enum IOResult: Equatable, Sendable {
    /// This many bytes moved (never zero for a read: zero is `.endOfFile`).
    case bytes(Int)
    /// The descriptor is not ready (`EAGAIN`): wait for `poll`.
    case wouldBlock
    /// The peer closed its end (read only).
    case endOfFile
}
