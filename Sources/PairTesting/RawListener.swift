import Foundation
import Glibc

/// A raw Unix-socket listener: the fake phone of the link tests, bound where the phone's `link.sock`
/// is while the phone is down, so that the real watch connects to it. Blocking, with deadlines.
package final class RawListener {
    package let path: String
    private var descriptor: Int32

    /// Binds and listens at `path`, removing a stale socket left there (never anything else).
    package init(path: String) throws {
        self.path = path
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw HarnessError("\(path) exists and is not a socket") }
            unlink(path)
        }
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let utf8 = Array(path.utf8)
        guard utf8.count < MemoryLayout.size(ofValue: address.sun_path) else { throw HarnessError("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: utf8)
            raw[utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw HarnessError("bind/listen(\(path)): \(String(cString: strerror(code)))")
        }
    }

    deinit { close() }

    /// The next connection, if one comes within `seconds`.
    package func accept(waitingUpTo seconds: Double) -> RawClient? {
        let deadline = Date().addingTimeInterval(seconds)
        while descriptor >= 0 {
            var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = max(0, deadline.timeIntervalSinceNow)
            if poll(&pfd, 1, Int32(min(remaining * 1000, 1000).rounded(.up))) > 0 {
                let fd = Glibc.accept(descriptor, nil, nil)
                if fd >= 0 {
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    return RawClient(adopting: fd, path: path)
                }
            }
            if deadline.timeIntervalSinceNow <= 0 { return nil }
        }
        return nil
    }

    /// Stops listening and removes the socket.
    package func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
        unlink(path)
    }
}
