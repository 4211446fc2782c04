import Glibc

/// A non-blocking stream socket on an `EventLoop`, with buffered reads and writes.
///
/// Reads: on readiness, up to `maximumReadPerWakeup` bytes are appended to `inbound` and `onRead` runs;
/// the consumer takes what it can (whole frames) and leaves the rest. Reading pauses while `inbound`
/// holds more than `maximumInboundBytes` (a slow consumer bounds memory, the kernel buffer pushes back).
/// Writes: `write` sends at once what the kernel takes and buffers the rest; `onWritable` runs when the
/// buffer has drained, so a producer can refill at its own pace.
package final class SocketStream {
    package enum CloseReason: Sendable, Equatable, CustomStringConvertible {
        case endOfFile
        case localClose(String)
        case error(SystemError)

        package var description: String {
            switch self {
            case .endOfFile: "peer closed the connection"
            case let .localClose(why): why
            case let .error(error): error.description
            }
        }
    }

    package let descriptor: FileDescriptor
    private unowned let loop: EventLoop
    package let inbound = ByteBuffer()
    private let outbound = ByteBuffer()
    package var maximumReadPerWakeup = 4 << 20
    package var maximumInboundBytes = 4 << 20
    package private(set) var isClosed = false
    private var readingPaused = false
    private var failing = false

    package var onRead: ((SocketStream) -> Void)?
    package var onWritable: ((SocketStream) -> Void)?
    package var onClose: ((SocketStream, CloseReason) -> Void)?

    package init(descriptor: FileDescriptor, loop: EventLoop) {
        self.descriptor = descriptor
        self.loop = loop
    }

    /// Starts delivering events. Call after the callbacks are set.
    package func start() {
        loop.register(descriptor.rawValue, interest: .readable) { [unowned self] events in
            self.handle(events)
        }
    }

    package var pendingOutboundBytes: Int { outbound.readableCount }
    /// Bytes this stream's buffers hold in memory.
    package var bufferedBytes: Int { inbound.allocatedBytes + outbound.allocatedBytes }

    // MARK: - Writing

    package func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    package func write(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed, !failing, bytes.count > 0 else { return }
        var offset = 0
        if outbound.isEmpty {
            do throws(SystemError) {
                while offset < bytes.count {
                    guard case let .bytes(n) = try descriptor.send(bytes.baseAddress! + offset, count: bytes.count - offset) else { break }
                    offset += n
                }
            } catch {
                fail(error)
                return
            }
        }
        if offset < bytes.count {
            outbound.append(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            updateInterest()
        }
    }

    private func flush() {
        do throws(SystemError) {
            while !outbound.isEmpty {
                let result = try outbound.withReadableBytes { (raw) throws(SystemError) -> IOResult in
                    try descriptor.send(raw.baseAddress!, count: raw.count)
                }
                guard case let .bytes(n) = result else { break }
                outbound.consume(n)
            }
        } catch {
            fail(error)
            return
        }
        if outbound.isEmpty { outbound.reset() }
        updateInterest()
    }

    // MARK: - Reading

    /// Resumes reading after the consumer has made room in `inbound`.
    package func resumeReadingIfRoom() {
        if readingPaused && inbound.readableCount <= maximumInboundBytes {
            readingPaused = false
            updateInterest()
        }
    }

    /// Fault injection (`runway … receive-hold`): nothing is read until it is let go, so what the
    /// counterpart sends waits in the socket (`readWhatArrived` still reads it).
    package var readingHeld = false {
        didSet { updateInterest() }
    }

    /// Reads now, without waiting for the loop, whatever the counterpart has already written (up to
    /// `limit` bytes), handing it to `onRead` as usual: a watch switch delivers what the old watch sent.
    package func readWhatArrived(limit: Int = 64 << 20) {
        var total = 0
        while !isClosed, total < limit {
            let read = readAvailable()
            if read.done { return }
            total += read.bytes
        }
    }

    @discardableResult
    private func readAvailable() -> (bytes: Int, done: Bool) {
        var total = 0
        while total < maximumReadPerWakeup {
            let result: IOResult
            do throws(SystemError) {
                var outcome = IOResult.wouldBlock
                _ = try inbound.writeWithSpareCapacity(256 * 1024) { (raw) throws(SystemError) -> Int in
                    outcome = try descriptor.read(into: raw.baseAddress!, count: raw.count)
                    if case let .bytes(n) = outcome { return n }
                    return 0
                }
                result = outcome
            } catch {
                // A peer that closed with our bytes unread resets the connection: what it wrote before
                // (its last frames, an error frame saying why) is read before the reset is reported, and
                // is delivered like the bytes before an end of file.
                deliverRead(total)
                close(.error(error))
                return (total, true)
            }
            switch result {
            case let .bytes(n): total += n
            case .wouldBlock:
                deliverRead(total)
                return (total, true)
            case .endOfFile:
                deliverRead(total)
                close(.endOfFile)
                return (total, true)
            }
        }
        deliverRead(total)
        return (total, false)
    }

    private func deliverRead(_ count: Int) {
        guard count > 0, !isClosed else { return }
        onRead?(self)
        if !isClosed && inbound.readableCount > maximumInboundBytes {
            readingPaused = true
            updateInterest()
        }
    }

    // MARK: - Events and closing

    private func handle(_ events: PollEvents) {
        if events.isWritable { flush() }
        if isClosed { return }
        if events.isReadable || events.isHangupOrError {
            if readingHeld && !events.isHangupOrError { return }
            if readingPaused && !events.isReadable { return }
            readAvailable()
        }
        if !isClosed && events.isWritable && outbound.isEmpty { onWritable?(self) }
    }

    private func updateInterest() {
        guard !isClosed else { return }
        var interest: Interest = []
        if !readingPaused && !readingHeld { interest.insert(.readable) }
        if !outbound.isEmpty || onWritable != nil && wantsWritable { interest.insert(.writable) }
        loop.setInterest(descriptor.rawValue, interest)
    }

    /// Set by a producer that has more to send once the buffer drains.
    package var wantsWritable = false {
        didSet { updateInterest() }
    }

    /// A write failed (the peer is gone: `EPIPE`, `ECONNRESET`). What the peer sent before it went may
    /// still be waiting in the kernel — an acknowledgement, say — so it is read and delivered first.
    private func fail(_ error: SystemError) {
        guard !isClosed, !failing else { return }
        failing = true
        readAvailable()
        close(.error(error))
    }

    /// Closes the socket (pending output is dropped) and reports `reason` to `onClose` once.
    package func close(_ reason: CloseReason) {
        guard !isClosed else { return }
        isClosed = true
        loop.unregister(descriptor.rawValue)
        // The peer sees the end now even if another process holds a copy of this socket (the device's
        // OS keeps one of the app's link to watch it while the app is suspended: sd_notify's FDSTORE).
        _ = Glibc.shutdown(descriptor.rawValue, Int32(SHUT_RDWR))
        descriptor.close()
        let handler = onClose
        onRead = nil
        onWritable = nil
        onClose = nil
        handler?(self, reason)
    }

    /// Sends what is buffered (waiting up to `timeoutMilliseconds` in all), then closes: for error frames
    /// that should reach the peer before the connection goes. The peer's buffer may take the bytes in
    /// several pieces as it reads: one wait and one flush could send half a frame and close on the rest.
    package func closeAfterFlushing(_ reason: CloseReason, timeoutMilliseconds: Int32 = 200) {
        let deadline = SystemClock.now() + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        while !isClosed && !failing && !outbound.isEmpty {
            let now = SystemClock.now()
            guard now < deadline else { break }
            _ = try? descriptor.waitUntil(.writable, timeoutMilliseconds: Int32(max(1, (deadline - now) / 1_000_000)))
            flush()
        }
        close(reason)
    }
}
