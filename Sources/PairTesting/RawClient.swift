import Foundation
import Glibc

/// A raw Unix-socket client that says whatever it is told: the hostile peer of the hardening tests
/// (garbage, lying length prefixes, one byte a second, silence, floods of connections).
///
/// Blocking and single-threaded on purpose: each call says how long it may wait, so a daemon that
/// never answers makes a test fail on a deadline instead of hanging it.
package final class RawClient {
    package let path: String
    private var descriptor: Int32
    /// Everything received so far.
    package private(set) var received: [UInt8] = []
    /// Whether the daemon has closed its end (end of file or a reset).
    package private(set) var peerClosed = false

    /// Connects to the Unix socket at `path`.
    package init(path: String) throws {
        self.path = path
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
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw HarnessError("connect(\(path)): \(String(cString: strerror(code)))")
        }
    }

    /// Takes over `descriptor`, a connection accepted elsewhere (`RawListener.accept`): the fake peer's
    /// end of a connection the device under test made.
    package init(adopting descriptor: Int32, path: String) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Sends `bytes`; false if the daemon has already closed the connection (`EPIPE`, `ECONNRESET`).
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool {
        guard descriptor >= 0 else { return false }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    /// Sends `bytes` one at a time, `interval` seconds apart, while reading whatever comes back; stops
    /// early when the daemon closes the connection. Returns how many bytes were sent.
    @discardableResult
    package func trickle(_ bytes: [UInt8], interval: Double) -> Int {
        var sent = 0
        for byte in bytes {
            guard !peerClosed, send([byte]) else { break }
            sent += 1
            receive(waitingUpTo: interval)
        }
        return sent
    }

    /// Says it has nothing more to send (a truncated frame then end of file), keeping the read side open.
    package func shutdownWrite() {
        if descriptor >= 0 { shutdown(descriptor, Int32(SHUT_WR)) }
    }

    /// Reads what arrives within `seconds` (stopping early at end of file) into `received`; looks at
    /// least once, so a zero wait still collects what is already there.
    package func receive(waitingUpTo seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            guard descriptor >= 0, !peerClosed else { return }
            let remaining = max(0, deadline.timeIntervalSinceNow)
            var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(remaining * 1000, 1000).rounded(.up)))
            if ready > 0 {
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                let n = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if n > 0 {
                    received.append(contentsOf: buffer[0..<n])
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    peerClosed = true
                }
            }
        } while deadline.timeIntervalSinceNow > 0
    }

    /// Forgets what has been received so far (before the next exchange on the same connection).
    package func discardReceived() { received.removeAll() }

    /// Waits until the daemon closes the connection; false if it has not within `timeout` seconds.
    package func waitUntilClosed(timeout: Double) -> Bool {
        receive(waitingUpTo: timeout)
        return peerClosed
    }

    /// Waits until the daemon has closed every one of `clients`, all within one deadline; returns how
    /// many it had not closed by then.
    package static func waitUntilClosed(_ clients: [RawClient], timeout: Double) -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var open = 0
        for client in clients where !client.waitUntilClosed(timeout: max(0, deadline.timeIntervalSinceNow)) {
            open += 1
        }
        return open
    }

    package func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}

/// Hex text of bytes (for `runway-probe`'s output and test messages).
package func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// The bytes of a hex text, nil if it is not one.
package func bytes(fromHex text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        bytes.append(byte)
        index += 2
    }
    return bytes
}
