import Posix

/// The entries of an encoded property-list dictionary, read in place: no `Dictionary`, no `String` per
/// key. For apps that decode their own typed payloads on the hot path (the phone turns every received
/// flight into a row this way); everything else uses `PropertyListCodec.decodeDictionary`.
package enum EncodedDictionary {
    /// One value, borrowed from the encoded bytes (valid only inside the callback).
    package enum Value {
        case string(UnsafeRawBufferPointer)
        case integer(Int64)
        case real(Double)
        case bool(Bool)
        case date(Double)
        case data(UnsafeRawBufferPointer)
        /// An array or a dictionary (already checked): its encoded bytes, tag included. Borrowed like the
        /// rest, so a `Value` stays trivial to copy on the hot path; `decodedContainer` decodes it.
        case container(UnsafeRawBufferPointer)

        package var number: Double? {
            switch self {
            case let .real(value), let .date(value): value
            case let .integer(value): Double(value)
            default: nil
            }
        }
    }

    /// Calls `body` with each key's bytes and its value, in encoded (sorted) order. Checks the whole
    /// encoding as it goes, as strictly as `PropertyListCodec` does, and more: keys must be ASCII and in
    /// strictly increasing order (as the encoder writes them), so there can be no duplicate — whatever
    /// this accepts, `PropertyListCodec.decodeDictionary` accepts too, with the same entries. Anything
    /// else (a hand-made encoding) is refused here, and the caller takes the general path.
    package static func forEachEntry(
        _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Value) -> Void
    ) throws(DecodeError) {
        var reader = ByteReader(bytes)
        guard try reader.readUInt8() == PropertyListCodec.Tag.dictionary.rawValue else {
            throw .invalid("payload is not a dictionary")
        }
        let count = Int(try reader.readUInt32())
        guard count <= reader.remaining / 5 else { throw .truncated(needed: count * 5, available: reader.remaining) }
        var previous: UnsafeRawBufferPointer?
        for _ in 0..<count {
            let keyLength = Int(try reader.readUInt32())
            let key = try reader.readBytes(keyLength)
            guard key.allSatisfy({ $0 < 0x80 }) else { throw .invalid("a key is not ASCII") }
            if let previous, !Self.precedes(previous, key) { throw .invalid("keys are not in strictly increasing order") }
            previous = key
            let tagOffset = reader.offset
            let rawTag = try reader.readUInt8()
            guard let tag = PropertyListCodec.Tag(rawValue: rawTag) else { throw .invalid("unknown value tag \(rawTag)") }
            let value: Value
            switch tag {
            case .string:
                let raw = try reader.readBytes(Int(try reader.readUInt32()))
                guard ByteReader.isValidUTF8(raw) else { throw .invalid("string is not valid UTF-8") }
                value = .string(raw)
            case .integer: value = .integer(try reader.readInt64())
            case .real: value = .real(try reader.readDouble())
            case .falseValue: value = .bool(false)
            case .trueValue: value = .bool(true)
            case .date: value = .date(try reader.readDouble())
            case .data: value = .data(try reader.readBytes(Int(try reader.readUInt32())))
            case .array, .dictionary:
                var nested = ByteReader(UnsafeRawBufferPointer(rebasing: bytes[tagOffset...]))
                _ = try PropertyListCodec.decode(from: &nested, depth: 1)
                _ = try reader.readBytes(nested.offset - 1)
                value = .container(UnsafeRawBufferPointer(rebasing: bytes[tagOffset..<tagOffset + nested.offset]))
            }
            body(key, value)
        }
        guard reader.isAtEnd else { throw .invalid("\(reader.remaining) trailing bytes after the dictionary") }
    }
}

extension EncodedDictionary.Value {
    /// The array or dictionary of a `.container`, decoded as `PropertyListCodec` decodes it (nil for any
    /// other value). Only a field that holds a container pays for this (a flight's alerts).
    package var decodedContainer: PropertyListValue? {
        guard case let .container(raw) = self else { return nil }
        var reader = ByteReader(raw)
        return try? PropertyListCodec.decode(from: &reader, depth: 1)
    }
}

extension EncodedDictionary {
    /// Byte order, as the encoder sorts ASCII keys.
    static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let common = Swift.min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return order < 0 || (order == 0 && a.count < b.count)
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes spell `text` (ASCII keys).
    @inline(__always)
    package func equals(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        return count == 0 || memcmp(baseAddress!, text.utf8Start, count) == 0
    }
}
