import Glibc
import CLinux

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

// MARK: - Reads at an offset, blocking reads, datagrams, pipes

extension FileDescriptor {
    /// Reads up to `count` bytes at `offset` (`pread`): the bytes read, 0 at the end of the file.
    package func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) throws(SystemError) -> Int {
        let raw = rawValue
        return try systemCall("pread") { pread(raw, buffer, count, off_t(offset)) }
    }

    /// Fills `count` bytes at `offset`, or throws: a file shorter than that is `EIO`, named `operation`.
    package func readFully(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64, _ operation: String) throws(SystemError) {
        var done = 0
        while done < count {
            let n = try read(into: buffer + done, count: count - done, at: offset + Int64(done))
            guard n > 0 else { throw SystemError(operation, errno: EIO) }
            done += n
        }
    }

    /// Reads up to `count` bytes from a blocking descriptor (a file, a pipe): 0 at the end.
    package func readBlocking(into buffer: UnsafeMutableRawPointer, count: Int, _ operation: @autoclosure () -> String = "read") throws(SystemError) -> Int {
        let raw = rawValue
        return try systemCall(operation()) { Glibc.read(raw, buffer, count) }
    }

    /// `readBlocking` into an array's bytes (all of them).
    package func readBlocking(into buffer: inout [UInt8], _ operation: @autoclosure () -> String = "read") throws(SystemError) -> Int {
        var result: Result<Int, SystemError> = .success(0)
        buffer.withUnsafeMutableBytes { raw in
            do throws(SystemError) { result = .success(try readBlocking(into: raw.baseAddress!, count: raw.count, operation())) } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// `read` (non-blocking) into an array's bytes (all of them).
    package func read(into buffer: inout [UInt8]) throws(SystemError) -> IOResult {
        var result: Result<IOResult, SystemError> = .success(.wouldBlock)
        buffer.withUnsafeMutableBytes { raw in
            do throws(SystemError) { result = .success(try read(into: raw.baseAddress!, count: raw.count)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// `receive` into an array's bytes (all of them).
    package func receive(into buffer: inout [UInt8], peek: Bool = false) throws(SystemError) -> IOResult {
        var result: Result<IOResult, SystemError> = .success(.wouldBlock)
        buffer.withUnsafeMutableBytes { raw in
            do throws(SystemError) { result = .success(try receive(into: raw.baseAddress!, count: raw.count, peek: peek)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// Receives what waits on a socket, without blocking: `peek` leaves it there (`MSG_PEEK`).
    package func receive(into buffer: UnsafeMutableRawPointer, count: Int, peek: Bool = false) throws(SystemError) -> IOResult {
        let raw = rawValue
        let flags = Int32(MSG_DONTWAIT) | (peek ? Int32(MSG_PEEK) : 0)
        guard let n = try nonBlockingCall("recv", { recv(raw, buffer, count, flags) }) else { return .wouldBlock }
        return n == 0 ? .endOfFile : .bytes(n)
    }

    /// Sends without blocking and without SIGPIPE, as much as the socket takes now (best effort: what it
    /// does not take is dropped, as a datagram would be).
    @discardableResult
    package func sendNow(_ bytes: [UInt8]) -> Int {
        let raw = rawValue
        return bytes.withUnsafeBytes { Glibc.send(raw, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
    }

    /// Writes what the descriptor takes now (a pipe's one byte of news), best effort.
    @discardableResult
    package func writeNow(_ bytes: [UInt8]) -> Int {
        let raw = rawValue
        return bytes.withUnsafeBytes { Glibc.write(raw, $0.baseAddress, $0.count) }
    }

    /// A pipe, both ends close-on-exec at once (no other thread's spawn inherits them).
    package static func pipe() throws(SystemError) -> (read: FileDescriptor, write: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        _ = try systemCall("pipe2") { pipe2(&ends, O_CLOEXEC) }
        return (FileDescriptor(adopting: ends[0]), FileDescriptor(adopting: ends[1]))
    }

    /// Opens `path` (close-on-exec); `mode` when it creates the file.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError) -> FileDescriptor {
        FileDescriptor(adopting: try systemCall("open(\(path))") { Glibc.open(path, flags | O_CLOEXEC, mode) })
    }

    /// Gives up ownership: the raw descriptor, no longer closed by this object (handed to a `FileHandle`).
    package func release() -> Int32 {
        defer { rawValue = -1 }
        return rawValue
    }
}
