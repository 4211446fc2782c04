import CCrypto

/// SHA-256 (FIPS 180-4), incremental: feed bytes in any pieces, read the digest at the end. The toolchain
/// offers none on Linux (CryptoKit is Apple's, swift-crypto a package), so the file transfers' end-to-end
/// checksum comes from the system's libcrypto (OpenSSL), through the `CCrypto` system-library target: the
/// hardware SHA instructions where the CPU has them, in debug builds as in release ones, and no compiler
/// flag for the package's users to refuse. The state between blocks can be saved and restored
/// (`checkpoint`, `init(checkpoint:)`): a receiver that made the first N bytes durable resumes hashing at
/// byte N after a crash instead of reading the file again.
package struct SHA256: Sendable {
    package static let digestLength = 32
    package static let blockLength = 64

    private var context = SHA256_CTX()
    /// Bytes hashed so far (whole blocks and the buffered tail).
    package private(set) var count: UInt64 = 0

    package init() { runway_sha256_init(&context) }

    /// The digest of `bytes` in one call.
    package static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(Array(bytes))
        return hasher.finalize()
    }

    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        count &+= UInt64(bytes.count)
        runway_sha256_update(&context, base, bytes.count)
    }

    /// The digest (32 bytes). The hasher is spent afterwards.
    package mutating func finalize() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.digestLength) { digest, initialized in
            runway_sha256_final(&context, digest.baseAddress!)
            initialized = Self.digestLength
        }
    }

    // MARK: - Saving the state between blocks

    /// The state after a whole number of blocks (nil while a partial block is buffered): 32 bytes of
    /// state and 8 of count, big-endian.
    package var checkpoint: [UInt8]? {
        guard count % UInt64(Self.blockLength) == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        withUnsafePointer(to: context) { context in
            for index in 0..<8 {
                let word = runway_sha256_word(context, Int32(index))
                bytes += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
            }
        }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt64(shift))) }
        return bytes
    }

    /// A hasher resumed from `checkpoint`; nil for bytes that are not one (the wrong length, a count that
    /// is not a whole number of blocks).
    package init?(checkpoint bytes: [UInt8]) {
        guard bytes.count == 40 else { return nil }
        let words = (0..<8).map { index in
            let at = index * 4
            return UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        var total: UInt64 = 0
        for index in 32..<40 { total = total << 8 | UInt64(bytes[index]) }
        guard total % UInt64(Self.blockLength) == 0 else { return nil }
        runway_sha256_resume(&context, words, total)
        count = total
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hex, as `sha256sum` prints a digest.
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
