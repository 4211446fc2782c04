/// Big-endian binary writing and bounds-checked reading: the building blocks of frames and of the
/// property-list codec. A reader never trusts a declared length: it checks it against what is there.

/// Appends binary values to a byte array.
package struct ByteWriter {
    package var bytes: [UInt8]

    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always) package mutating func write(_ value: UInt8) { bytes.append(value) }

    @inline(__always) package mutating func write(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always) package mutating func write(_ value: UInt64) {
        write(UInt32(truncatingIfNeeded: value >> 32))
        write(UInt32(truncatingIfNeeded: value))
    }

    @inline(__always) package mutating func write(_ value: Int64) { write(UInt64(bitPattern: value)) }
    @inline(__always) package mutating func write(_ value: Double) { write(value.bitPattern) }

    package mutating func write<C: Collection>(contentsOf data: C) where C.Element == UInt8 {
        bytes.append(contentsOf: data)
    }

    /// A string as a 32-bit length and UTF-8 bytes.
    package mutating func writeString(_ string: String) {
        var copy = string
        copy.withUTF8 { utf8 in
            write(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}

/// Why bytes could not be decoded. Descriptions never include the bytes themselves.
package enum DecodeError: Error, Equatable, CustomStringConvertible, Sendable {
    case truncated(needed: Int, available: Int)
    case invalid(String)
    case tooDeep(limit: Int)

    package var description: String {
        switch self {
        case let .truncated(needed, available): "truncated: needed \(needed) bytes, \(available) left"
        case let .invalid(why): why
        case let .tooDeep(limit): "nested deeper than \(limit) levels"
        }
    }
}

/// Reads binary values from a borrowed buffer, checking every length before using it.
package struct ByteReader {
    package let buffer: UnsafeRawBufferPointer
    package private(set) var offset = 0

    package init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    package var remaining: Int { buffer.count - offset }
    package var isAtEnd: Bool { offset == buffer.count }

    @inline(__always) mutating func require(_ count: Int) throws(DecodeError) {
        guard count >= 0, count <= remaining else { throw .truncated(needed: count, available: remaining) }
    }

    package mutating func readUInt8() throws(DecodeError) -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return buffer[offset]
    }

    /// Big-endian, as the encoder writes it: one load, not four bounds-checked bytes (every key's and
    /// value's length on the receive path).
    package mutating func readUInt32() throws(DecodeError) -> UInt32 {
        try require(4)
        let value = UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        offset += 4
        return value
    }

    package mutating func readUInt64() throws(DecodeError) -> UInt64 {
        let high = try readUInt32()
        let low = try readUInt32()
        return UInt64(high) << 32 | UInt64(low)
    }

    package mutating func readInt64() throws(DecodeError) -> Int64 { Int64(bitPattern: try readUInt64()) }
    package mutating func readDouble() throws(DecodeError) -> Double { Double(bitPattern: try readUInt64()) }

    /// `count` bytes, borrowed from the buffer.
    package mutating func readBytes(_ count: Int) throws(DecodeError) -> UnsafeRawBufferPointer {
        try require(count)
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
    }

    /// A 32-bit length and that many bytes of valid UTF-8.
    package mutating func readString() throws(DecodeError) -> String {
        let count = Int(try readUInt32())
        return try Self.string(try readBytes(count))
    }

    /// Bytes as a string, rejecting invalid UTF-8. ASCII — nearly every key and most values — skips
    /// the general validator, which is several times slower.
    /// Whether `raw` is valid UTF-8, without making a string of it (ASCII is checked byte by byte).
    package static func isValidUTF8(_ raw: UnsafeRawBufferPointer) -> Bool {
        for byte in raw where byte >= 0x80 {
            return String(validating: raw, as: UTF8.self) != nil
        }
        return true
    }

    package static func string(_ raw: UnsafeRawBufferPointer) throws(DecodeError) -> String {
        if raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
        guard let string = String(validating: raw, as: UTF8.self) else {
            throw .invalid("string is not valid UTF-8")
        }
        return string
    }
}
