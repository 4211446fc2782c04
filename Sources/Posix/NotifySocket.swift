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
