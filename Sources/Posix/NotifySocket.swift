import CLinux
import Glibc

/// The receiving end of systemd's `sd_notify` protocol (`ServiceNotifier` is the sending end): a datagram
/// Unix socket bound at a path, made under `umask 0177` (only our uid may send), its datagrams read as
/// `KEY=VALUE` lines. `runway up` hears the daemon it started on one of its own.
package final class NotifySocket {
    package let path: String
    package let descriptor: FileDescriptor

    /// Binds a new socket at `path`. A socket already there is removed first (the caller holds whatever
    /// lock makes the path its own); anything else there is an error, as is a path too long for `sun_path`.
    package init(path: String) throws {
        self.path = path
        let address = try UnixSocketAddress(path: path)
        if Filesystem.kind(of: path) == .socket { unlink(path) }
        descriptor = try Self.bind(address)
    }

    /// A datagram socket bound at `address` (close-on-exec, non-blocking), made under `umask 0177`.
    package static func bind(_ address: UnixSocketAddress) throws(SystemError) -> FileDescriptor {
        let raw = try systemCall("socket") {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        }
        let descriptor = FileDescriptor(adopting: raw)
        let previous = umask(0o177)
        defer { umask(previous) }
        try address.withSockAddr { (sa, length) throws(SystemError) in
            _ = try systemCall("bind(\(address.path))") { Glibc.bind(raw, sa, length) }
        }
        return descriptor
    }

    /// The next datagram waiting on `descriptor`, nil when none is.
    package static func next(from descriptor: FileDescriptor) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let result = try? descriptor.receive(into: &buffer)
        guard case let .bytes(n)? = result else { return nil }
        return Array(buffer[0..<n])
    }

    /// The next datagram waiting on `descriptor` and the descriptor it carries, if any (`SCM_RIGHTS`:
    /// sd_notify's `FDSTORE=1`; close-on-exec, the caller's to close); nil when none is waiting.
    package static func nextWithDescriptor(from descriptor: FileDescriptor) -> ([UInt8], FileDescriptor?)? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var passed: Int32 = -1
        let n = buffer.withUnsafeMutableBytes { runway_receive_with_descriptor(descriptor.rawValue, $0.baseAddress, $0.count, &passed) }
        let attached = passed >= 0 ? FileDescriptor(adopting: passed) : nil
        guard n > 0 else {
            attached?.close()
            return nil
        }
        return (Array(buffer[0..<n]), attached)
    }

    /// The datagrams waiting now, each as its lines (`READY=1`, `MAINPID=812`, `STATUS=…`).
    package func receive() -> [[String]] {
        var messages: [[String]] = []
        while let datagram = Self.next(from: descriptor) {
            messages.append(String(decoding: datagram, as: UTF8.self).split(separator: "\n").map(String.init))
        }
        return messages
    }

    /// Waits up to `milliseconds` for a datagram; true when one is there.
    package func wait(milliseconds: Int32) -> Bool {
        (try? descriptor.waitUntil(.readable, timeoutMilliseconds: milliseconds)) ?? false
    }

    /// Closes the socket and removes its file.
    package func close() {
        descriptor.close()
        unlink(path)
    }
}
