import CLinux
import Glibc

/// A Unix-domain socket path, checked against `sun_path` before any system call sees it.
package struct UnixSocketAddress: Sendable, Equatable, CustomStringConvertible {
    /// `sun_path` is 108 bytes on Linux; one is the terminating NUL.
    package static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    package let path: String

    package enum AddressError: Error, CustomStringConvertible, Sendable {
        case pathTooLong(path: String, bytes: Int, limit: Int)
        case emptyPath

        package var description: String {
            switch self {
            case let .pathTooLong(path, bytes, limit):
                return "socket path is \(bytes) bytes, longer than the \(limit) bytes sun_path allows: \(path)"
            case .emptyPath:
                return "socket path is empty"
            }
        }
    }

    package init(path: String) throws(AddressError) {
        let bytes = path.utf8.count
        guard bytes > 0 else { throw .emptyPath }
        guard bytes <= Self.maximumPathBytes else {
            throw .pathTooLong(path: path, bytes: bytes, limit: Self.maximumPathBytes)
        }
        self.path = path
    }

    package var description: String { path }

    /// Calls `body` with a filled `sockaddr_un` and its length.
    package func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R) throws(SystemError) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let utf8 = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: utf8)
            raw[utf8.count] = 0
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + utf8.count + 1)
        return try withUnsafePointer(to: &address) { (pointer) throws(SystemError) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(SystemError) -> R in
                try body(sa, length)
            }
        }
    }
}

/// The credentials of the process at the other end of a Unix socket (`SO_PEERCRED`).
package struct PeerCredentials: Sendable, Equatable {
    package let pid: Int32
    package let uid: UInt32
    package let gid: UInt32
}

/// Creating, binding, connecting and accepting Unix stream sockets. Every descriptor returned is
/// close-on-exec and non-blocking (the event loop polls it).
package enum UnixSocket {
    static func makeStreamSocket() throws(SystemError) -> FileDescriptor {
        let raw = try systemCall("socket") {
            Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        }
        return FileDescriptor(adopting: raw)
    }

    /// Binds and listens at `address`, creating the socket file with mode 0600. The caller must hold the
    /// home's lock and have removed any stale socket first (`removeStaleSocket`).
    package static func listen(at address: UnixSocketAddress, backlog: Int32 = 128) throws(SystemError) -> FileDescriptor {
        let fd = try makeStreamSocket()
        let previous = umask(0o177)
        defer { umask(previous) }
        try address.withSockAddr { (sa, length) throws(SystemError) in
            _ = try systemCall("bind(\(address.path))") { Glibc.bind(fd.rawValue, sa, length) }
        }
        _ = try systemCall("chmod(\(address.path))") { chmod(address.path, 0o600) }
        _ = try systemCall("listen(\(address.path))") { Glibc.listen(fd.rawValue, backlog) }
        return fd
    }

    /// Accepts one pending connection, or nil when none is waiting.
    package static func accept(from listener: FileDescriptor) throws(SystemError) -> FileDescriptor? {
        while true {
            do throws(SystemError) {
                let listening = listener.rawValue
                guard let raw = try nonBlockingCall("accept", { Int(Glibc.accept(listening, nil, nil)) }) else { return nil }
                let fd = FileDescriptor(adopting: Int32(raw))
                try fd.setCloseOnExec()
                try fd.setNonBlocking()
                return fd
            } catch  where error.errno == ECONNABORTED {
                continue  // the client gave up before we got to it: take the next one
            }
        }
    }

    /// Connects to `address`. Unix-domain connects complete at once or fail at once (`ECONNREFUSED` or
    /// `ENOENT` while the peer is down, `EAGAIN` on a non-blocking socket whose listener's backlog is
    /// full), so this never waits.
    package static func connect(to address: UnixSocketAddress, nonBlocking: Bool = true) throws(SystemError) -> FileDescriptor {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let raw = try systemCall("socket") { Glibc.socket(AF_UNIX, type, 0) }
        let fd = FileDescriptor(adopting: raw)
        try address.withSockAddr { (sa, length) throws(SystemError) in
            _ = try systemCall("connect(\(address.path))") { Glibc.connect(fd.rawValue, sa, length) }
        }
        return fd
    }

    /// The peer's pid, uid and gid, as the kernel recorded them at `connect`.
    package static func peerCredentials(of fd: FileDescriptor) throws(SystemError) -> PeerCredentials {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — Glibc only exports it under _GNU_SOURCE.
        var raw: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: raw))
        _ = try systemCall("getsockopt(SO_PEERCRED)") {
            getsockopt(fd.rawValue, SOL_SOCKET, SO_PEERCRED, &raw, &length)
        }
        return PeerCredentials(pid: raw.0, uid: raw.1, gid: raw.2)
    }

    /// Enlarges the kernel buffers (best effort; the kernel caps them at its `*mem_max`).
    package static func setBufferSizes(of fd: FileDescriptor, bytes: Int32) {
        var size = bytes
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Removes a socket file left behind by a process that died. Only the holder of the home's lock may
    /// call this, and only a socket is removed: any other kind of file at that path is an error.
    package static func removeStaleSocket(at address: UnixSocketAddress) throws(SystemError) {
        var info = stat()
        if lstat(address.path, &info) != 0 {
            let code = Glibc.errno
            if code == ENOENT { return }
            throw SystemError("lstat(\(address.path))", errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SystemError("refusing to remove non-socket \(address.path)", errno: EEXIST)
        }
        _ = try systemCall("unlink(\(address.path))") { unlink(address.path) }
    }
}
