import Foundation
import Glibc
import Testing
@testable import Posix

@Suite struct EventLoopTests {
    @Test func timersFireInDeadlineOrderWhenTheClockMoves() throws {
        let clock = ManualClock()
        let loop = EventLoop(clock: clock)
        var fired: [String] = []
        loop.schedule(afterMilliseconds: 30) { fired.append("c") }
        loop.schedule(afterMilliseconds: 10) { fired.append("a") }
        let cancelled = loop.schedule(afterMilliseconds: 20) { fired.append("never") }
        loop.schedule(afterMilliseconds: 20) { fired.append("b") }
        loop.cancel(cancelled)
        try loop.runOnce(maximumWaitMilliseconds: 0)
        #expect(fired.isEmpty)
        clock.advance(byMilliseconds: 25)
        try loop.runOnce(maximumWaitMilliseconds: 0)
        #expect(fired == ["a", "b"])
        clock.advance(byMilliseconds: 10)
        try loop.runOnce(maximumWaitMilliseconds: 0)
        #expect(fired == ["a", "b", "c"])
    }

    @Test func deferredWorkRunsAfterHandlers() throws {
        let loop = EventLoop(clock: ManualClock())
        var order: [Int] = []
        loop.deferToEndOfIteration {
            order.append(1)
            loop.deferToEndOfIteration { order.append(2) }
        }
        try loop.runOnce(maximumWaitMilliseconds: 0)
        #expect(order == [1, 2])
    }

    @Test func socketStreamsCarryBytesBothWays() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let loop = EventLoop()
        let left = FileDescriptor(adopting: fds[0]), right = FileDescriptor(adopting: fds[1])
        try left.setNonBlocking()
        try right.setNonBlocking()
        let a = SocketStream(descriptor: left, loop: loop)
        let b = SocketStream(descriptor: right, loop: loop)
        var received: [UInt8] = []
        var closedWith: SocketStream.CloseReason?
        b.onRead = { stream in
            stream.inbound.withReadableBytes { received.append(contentsOf: $0) }
            stream.inbound.consume(stream.inbound.readableCount)
        }
        b.onClose = { _, reason in closedWith = reason }
        a.start()
        b.start()
        // More than a socket buffer holds: the rest waits in the stream's outbound buffer.
        let payload = (0..<3_000_000).map { UInt8($0 % 251) }
        a.write(payload)
        var rounds = 0
        while received.count < payload.count && rounds < 10_000 {
            try loop.runOnce(maximumWaitMilliseconds: 100)
            rounds += 1
        }
        #expect(received == payload)
        a.close(.localClose("done"))
        while closedWith == nil && rounds < 20_000 {
            try loop.runOnce(maximumWaitMilliseconds: 100)
            rounds += 1
        }
        #expect(closedWith == .endOfFile)
    }

    /// A peer that writes its last bytes and closes with ours unread resets the connection
    /// (`ECONNRESET` on our next read), after its last bytes: those are delivered before the close. The
    /// stream used to close at the reset and drop what the same wake-up had read — the phone's 7015 error
    /// frame, which the watch then never logged ("reset by peer in the middle of a frame (152 bytes
    /// discarded)", one run of `StorageFaultTests`' full-disk test in twenty).
    @Test func theLastBytesBeforeAResetAreDelivered() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let loop = EventLoop()
        let left = FileDescriptor(adopting: fds[0])
        try left.setNonBlocking()
        let stream = SocketStream(descriptor: left, loop: loop)
        var received: [UInt8] = []
        var closedWith: SocketStream.CloseReason?
        var readBeforeClose = false
        stream.onRead = { stream in
            stream.inbound.withReadableBytes { received.append(contentsOf: $0) }
            stream.inbound.consume(stream.inbound.readableCount)
            readBeforeClose = closedWith == nil
        }
        stream.onClose = { _, reason in closedWith = reason }
        stream.start()
        // Ours, which the peer never reads; then its last words, and its close: a reset.
        stream.write(Array("unread".utf8))
        try loop.runOnce(maximumWaitMilliseconds: 0)
        let lastWords = Array("the phone could not store transfers 401...: database or disk is full".utf8)
        #expect(lastWords.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == lastWords.count)
        close(fds[1])
        var rounds = 0
        while closedWith == nil && rounds < 100 {
            try loop.runOnce(maximumWaitMilliseconds: 100)
            rounds += 1
        }
        #expect(received == lastWords)
        #expect(readBeforeClose)
        guard case .error? = closedWith else {
            Issue.record("expected the reset to close the stream, got \(String(describing: closedWith))")
            return
        }
    }

    /// An error frame written just before closing reaches a peer that reads it in pieces: more than the
    /// socket buffers hold is left in the stream when `closeAfterFlushing` is called, and the peer (a
    /// thread reading as fast as it can) gets every byte before the close. With one wait and one flush,
    /// the peer got only what fitted at that moment and then the end of the stream: a frame cut in half
    /// (watch-agent logged it as "Connection reset … in the middle of a frame").
    @Test func closeAfterFlushingSendsEverythingThePeerReadsInTime() throws {
        let loop = EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let left = FileDescriptor(adopting: fds[0])
        try left.setNonBlocking()
        let stream = SocketStream(descriptor: left, loop: loop)
        stream.start()
        let payload = (0..<2_000_000).map { UInt8($0 % 251) }
        stream.write(payload)
        #expect(stream.pendingOutboundBytes > 0, "more than the socket buffers hold")
        let peer = fds[1]
        final class Received: @unchecked Sendable { var bytes: [UInt8] = []; var done = false; let lock = NSLock() }
        let received = Received()
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            var all: [UInt8] = []
            while true {
                let n = buffer.withUnsafeMutableBytes { read(peer, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                all.append(contentsOf: buffer[0..<n])
            }
            received.lock.withLock {
                received.bytes = all; received.done = true
            }
        }
        stream.closeAfterFlushing(.localClose("error frame sent"), timeoutMilliseconds: 5000)
        let deadline = Date().addingTimeInterval(30)
        while !received.lock.withLock({ received.done }) && Date() < deadline { usleep(1000) }
        #expect(received.lock.withLock { received.done }, "the peer saw the end of the stream")
        close(peer)
        // Compared first: an expectation on two 2 MB arrays would print them both when it fails.
        let count = received.bytes.count, same = received.bytes == payload
        #expect(count == payload.count)
        #expect(same, "the bytes arrived as they were sent")
    }
}
