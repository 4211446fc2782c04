/// HMAC-SHA-256 (RFC 2104, FIPS 198-1), built from `SHA256`: the link's handshake proves with it that
/// each side holds the pair's secret (`docs/protocol.md`, "Handshake"). No new C: the two hashes of
/// HMAC over libcrypto's SHA-256, as the standard defines them. Checked against RFC 4231's vectors
/// (`DigestResumeTests`).
package enum HMACSHA256 {
    package static let length = SHA256.digestLength

    /// HMAC-SHA-256 of `message` under `key` (any length: a key longer than the block is hashed first).
    package static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var block = key.count > SHA256.blockLength ? SHA256.hash(key) : key
        block += [UInt8](repeating: 0, count: SHA256.blockLength - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5C })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// Whether `mac` is `message`'s HMAC under `key`, compared in time independent of where they differ.
    package static func verify(_ mac: [UInt8], _ message: [UInt8], key: [UInt8]) -> Bool {
        constantTimeEqual(mac, authenticate(message, key: key))
    }

    /// Byte arrays equal, looked at whole whatever the first difference (a length differing is no secret).
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
