/// Random identifiers without Foundation (the daemons do not load it: it costs start-up time).
package enum Identifier {
    /// A random (version 4) UUID in the canonical upper-case form, as `UUID().uuidString` writes it.
    package static func uuid() -> String {
        var generator = SystemRandomNumberGenerator()
        return uuid(using: &generator)
    }

    package static func uuid<G: RandomNumberGenerator>(using generator: inout G) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return format(bytes)
    }

    /// A time-ordered (version 7, RFC 9562) UUID: 48 bits of Unix milliseconds, a 12-bit counter, then
    /// random bits. Ids made later sort later, so an index on them grows at its end instead of
    /// dirtying pages all over the tree — what keeps the phone's dedup index cheap.
    package static func uuidV7<G: RandomNumberGenerator>(milliseconds: UInt64, counter: UInt16, using generator: inout G) -> String {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for i in 0..<6 { bytes[i] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(i))) }
        bytes[6] = 0x70 | UInt8(truncatingIfNeeded: (counter >> 8) & 0x0F)
        bytes[7] = UInt8(truncatingIfNeeded: counter)
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return format(bytes)
    }

    static func format(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(0x2D) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` has the canonical UUID shape (either case). On the receive path of every flight
    /// (its id): a native string's UTF-8 is read in place, with no copy of it.
    package static func isUUID(_ text: String) -> Bool {
        guard text.utf8.count == 36 else { return false }
        return text.utf8.withContiguousStorageIfAvailable(isUUID) ?? isUUID(Array(text.utf8))
    }

    private static func isUUID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool where Bytes.Index == Int {
        guard bytes.count == 36 else { return false }
        for index in 0..<36 {
            let byte = bytes[bytes.startIndex + index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == 0x2D else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }
}
