import CLinux
import Glibc

/// The systemd socket-activation protocol, read directly (no libsystemd): a supervisor binds the
/// listening sockets, then starts the daemon with them as descriptors 3, 4, … and says so in
/// `LISTEN_FDS` (how many), `LISTEN_PID` (for which process) and `LISTEN_FDNAMES` (their names,
/// colon-separated). Read once at start-up; the three variables are then removed from the environment.
package enum SocketActivation {
    package static let firstDescriptor: Int32 = 3

    /// One descriptor the supervisor passed.
    package struct Passed {
        package let name: String?
        package let descriptor: FileDescriptor
        /// Whether it is listening (`SO_ACCEPTCONN`): a listener, or else one accepted connection.
        package let isListening: Bool
        /// The path it is bound to (a listener) or empty.
        package let path: String
    }

    package struct ActivationError: Error, CustomStringConvertible, Sendable {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// The descriptors passed to this process, each checked to be an open Unix stream socket; nil when
    /// no supervisor passed any (neither `LISTEN_FDS` nor `LISTEN_PID` is set). Each is made
    /// close-on-exec and non-blocking.
    package static func take(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } })
        throws(ActivationError) -> [Passed]?
    {
        let countText = environment("LISTEN_FDS"), pidText = environment("LISTEN_PID")
        let namesText = environment("LISTEN_FDNAMES")
        defer { for name in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] { unsetenv(name) } }
        if countText == nil && pidText == nil { return nil }
        guard let pidText else {
            throw ActivationError("LISTEN_FDS is set but LISTEN_PID is not: refusing descriptors no supervisor addressed to this process")
        }
        guard let pid = Int32(pidText), pid > 0 else { throw ActivationError("LISTEN_PID must be a process id, not \(OneLine.quote(pidText))") }
        guard pid == getpid() else { throw ActivationError("LISTEN_PID=\(pid) names another process (this is \(getpid())): the descriptors are not ours") }
        guard let countText else { throw ActivationError("LISTEN_PID is set but LISTEN_FDS is not: the supervisor passed no sockets") }
        guard let count = Int32(countText), count >= 0, count <= 64 else {
            throw ActivationError("LISTEN_FDS must be a count of descriptors, not \(OneLine.quote(countText))")
        }
        guard count > 0 else { throw ActivationError("LISTEN_FDS=0: the supervisor passed no sockets") }
        var names: [String?] = Array(repeating: nil, count: Int(count))
        if let namesText {
            let given = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard given.count == Int(count) else {
                throw ActivationError("LISTEN_FDNAMES names \(given.count) descriptor(s) but LISTEN_FDS says \(count)")
            }
            names = given.map { $0 == "unknown" || $0.isEmpty ? nil : $0 }
        }
        var passed: [Passed] = []
        for index in 0..<count {
            let fd = firstDescriptor + index
            let label = "descriptor \(fd)" + (names[Int(index)].map { " (\($0))" } ?? "")
            guard fcntl(fd, F_GETFD) >= 0 else { throw ActivationError("\(label) is not open, though LISTEN_FDS=\(count)") }
            var type: Int32 = 0, listening: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 else {
                throw ActivationError("\(label) is not a socket")
            }
            guard type == Int32(SOCK_STREAM.rawValue) else { throw ActivationError("\(label) is not a stream socket") }
            var address = sockaddr_un()
            var addressLength = socklen_t(MemoryLayout<sockaddr_un>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &addressLength) }
            }
            guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { throw ActivationError("\(label) is not a Unix-domain socket") }
            length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length)
            let path = withUnsafeBytes(of: &address.sun_path) { raw -> String in
                let bytes = raw.prefix(max(0, Int(addressLength) - 2)).prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            let descriptor = FileDescriptor(adopting: fd)
            do {
                try descriptor.setCloseOnExec()
                try descriptor.setNonBlocking()
            } catch {
                throw ActivationError("\(label): \(error)")
            }
            passed.append(
                Passed(
                    name: names[Int(index)], descriptor: descriptor, isListening: listening != 0,
                    path: listening != 0 ? path : ""))
        }
        return passed
    }
}

/// The `sd_notify` protocol, written directly: one datagram of `KEY=VALUE` lines to the Unix socket
/// named by `NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace). Silent when it is not set.
package enum ServiceNotifier {
    package static func notify(_ state: String) { send(state, descriptor: nil) }

    /// `state` with a descriptor attached (`SCM_RIGHTS`), as sd_notify's store does (`FDSTORE=1`,
    /// `FDNAME=…`): the receiver holds its own copy of it.
    package static func notify(_ state: String, passing descriptor: Int32) { send(state, descriptor: descriptor) }

    private static func send(_ state: String, descriptor: Int32?) {
        guard let raw = getenv("NOTIFY_SOCKET") else { return }
        var path = String(cString: raw)
        guard !path.isEmpty else { return }
        let abstract = path.hasPrefix("@")
        if abstract { path.removeFirst() }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let offset = abstract ? 1 : 0
        guard bytes.count + offset < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index + offset] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + offset + (abstract ? 0 : 1))
        let message = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBytes { buffer in
                    if let descriptor {
                        runway_send_with_descriptor(fd, buffer.baseAddress, buffer.count, sa, length, descriptor)
                    } else {
                        sendto(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), sa, length)
                    }
                }
            }
        }
    }
}
