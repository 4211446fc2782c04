import Glibc

/// A growable byte queue for socket I/O: bytes are appended at the writer end and consumed from the
/// reader end, and a read from a descriptor goes straight into spare capacity (no temporary array).
///
/// A reference type with one owner (a connection); it compacts when the consumed prefix dominates.
package final class ByteBuffer {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    package private(set) var readerIndex = 0
    package private(set) var writerIndex = 0

    package init(capacity: Int = 64 * 1024) {
        self.capacity = max(capacity, 64)
        storage = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    package var readableCount: Int { writerIndex - readerIndex }
    package var isEmpty: Bool { readerIndex == writerIndex }
    /// Bytes held, including spare capacity: what this buffer costs in memory.
    package var allocatedBytes: Int { capacity }

    package func withReadableBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage + readerIndex, count: readableCount))
    }

    package func consume(_ count: Int) {
        precondition(count <= readableCount)
        readerIndex += count
        if readerIndex == writerIndex { readerIndex = 0; writerIndex = 0 }
    }

    package func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        reserveWritable(bytes.count)
        (storage + writerIndex).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        writerIndex += bytes.count
    }

    package func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Lets `body` write up to `count` bytes into spare capacity; `body` returns how many it wrote.
    package func writeWithSpareCapacity<E: Error>(
        _ count: Int, _ body: (UnsafeMutableRawBufferPointer) throws(E) -> Int
    ) throws(E) -> Int {
        reserveWritable(count)
        let written = try body(UnsafeMutableRawBufferPointer(start: storage + writerIndex, count: count))
        writerIndex += written
        return written
    }

    /// Drops all bytes and shrinks back to `capacity` if the buffer had grown beyond it.
    package func reset(shrinkingTo target: Int = 64 * 1024) {
        readerIndex = 0
        writerIndex = 0
        if capacity > target * 4 {
            storage.deallocate()
            capacity = target
            storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        }
    }

    private func reserveWritable(_ count: Int) {
        if capacity - writerIndex >= count { return }
        // Compact first: slide the unread bytes to the front.
        if readerIndex > 0 {
            let unread = readableCount
            if unread > 0 { storage.copyMemory(from: storage + readerIndex, byteCount: unread) }
            readerIndex = 0
            writerIndex = unread
            if capacity - writerIndex >= count { return }
        }
        var newCapacity = capacity
        while newCapacity - writerIndex < count { newCapacity *= 2 }
        let newStorage = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        newStorage.copyMemory(from: storage, byteCount: writerIndex)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }
}
