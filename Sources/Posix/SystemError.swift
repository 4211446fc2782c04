import Glibc

/// A failed system call: which operation, and the `errno` it left.
///
/// The description names the operation and the error, never any payload bytes.
public struct SystemError: Error, Equatable, CustomStringConvertible, Sendable {
    public let operation: String
    public let errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    public var description: String {
        "\(operation): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// The error was a lack of space on the device (`ENOSPC`, `EDQUOT`).
    public var isNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }
}

/// The one funnel for system calls: retries `EINTR`, throws a typed error with the operation's name
/// for any other `-1`. `close` must not go through here (it must never be retried).
@inline(__always)
public func systemCall<T: FixedWidthInteger>(
    _ operation: @autoclosure () -> String,
    retryOnInterrupt: Bool = true,
    _ body: () -> T
) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR && retryOnInterrupt { continue }
        throw SystemError(operation(), errno: code)
    }
}

/// The outcome of a non-blocking read or write.
public enum IOResult: Equatable, Sendable {
    /// This many bytes moved (never zero for a read: zero is `.endOfFile`).
    case bytes(Int)
    /// The descriptor is not ready (`EAGAIN`): wait for `poll`.
    case wouldBlock
    /// The peer closed its end (read only).
    case endOfFile
}
