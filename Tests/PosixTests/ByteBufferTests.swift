import Testing
@testable import Posix

@Suite struct ByteBufferTests {
    @Test func appendConsumeAndCompact() {
        let buffer = ByteBuffer(capacity: 64)
        buffer.append(Array(0..<50))
        buffer.consume(40)
        #expect(buffer.readableCount == 10)
        // Needs compaction (40 consumed) and then growth.
        buffer.append(Array(repeating: 7, count: 100))
        #expect(buffer.readableCount == 110)
        let first = buffer.withReadableBytes { Array($0.prefix(10)) }
        #expect(first == Array(40..<50))
        buffer.consume(110)
        #expect(buffer.isEmpty)
    }

    @Test func writeIntoSpareCapacity() {
        let buffer = ByteBuffer(capacity: 64)
        let written = buffer.writeWithSpareCapacity(1000) { raw in
            for i in 0..<300 { raw[i] = UInt8(i % 256) }
            return 300
        }
        #expect(written == 300)
        #expect(buffer.readableCount == 300)
        #expect(buffer.withReadableBytes { $0[299] } == UInt8(299 % 256))
    }

    @Test func resetShrinksAGrownBuffer() {
        let buffer = ByteBuffer(capacity: 1024)
        buffer.append(Array(repeating: 1, count: 1 << 20))
        #expect(buffer.allocatedBytes >= 1 << 20)
        buffer.reset(shrinkingTo: 1024)
        #expect(buffer.allocatedBytes == 1024)
        #expect(buffer.isEmpty)
    }
}
