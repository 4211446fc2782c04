import Foundation
import Posix

/// A raw Unix-socket client that says whatever it is told: the hostile peer of the hardening tests
/// (garbage, lying length prefixes, one byte a second, silence, floods of connections).
///
/// Blocking and single-threaded on purpose: each call says how long it may wait, so a daemon that
/// never answers makes a test fail on a deadline instead of hanging it.
package final class RawClient {
    package let path: String
    private let descriptor: FileDescriptor
    /// Everything received so far.
    package private(set) var received: [UInt8] = []
    /// Whether the daemon has closed its end (end of file or a reset).
    package private(set) var peerClosed = false

    /// Connects to the Unix socket at `path`.
    package init(path: String) throws {
        self.path = path
        let address: UnixSocketAddress
        do { address = try UnixSocketAddress(path: path) } catch { throw HarnessError("socket path too long: \(path)") }
        do {
            descriptor = try UnixSocket.connect(to: address, nonBlocking: false)
        } catch {
            throw HarnessError("connect(\(path)): \(String(cString: strerror(error.errno)))")
        }
    }

    /// Takes over `descriptor`, a connection accepted elsewhere (`RawListener.accept`): the fake peer's
    /// end of a connection the device under test made.
    package init(adopting descriptor: FileDescriptor, path: String) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Sends `bytes`; false if the daemon has already closed the connection (`EPIPE`, `ECONNRESET`).
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool {
        guard descriptor.isOpen else { return false }
        return (try? descriptor.writeAll(bytes)) != nil
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
        if descriptor.isOpen { shutdown(descriptor.rawValue, Int32(SHUT_WR)) }
    }

    /// Reads what arrives within `seconds` (stopping early at end of file) into `received`; looks at
    /// least once, so a zero wait still collects what is already there.
    package func receive(waitingUpTo seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            guard descriptor.isOpen, !peerClosed else { return }
            let remaining = max(0, deadline.timeIntervalSinceNow)
            if (try? descriptor.waitUntil(.readable, timeoutMilliseconds: Int32(min(remaining * 1000, 1000).rounded(.up)))) == true {
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                let result = try? descriptor.read(into: &buffer)
                switch result {
                case let .bytes(n)?: received.append(contentsOf: buffer[0..<n])
                case .wouldBlock?: break
                case .endOfFile?, nil: peerClosed = true
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
        descriptor.close()
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
