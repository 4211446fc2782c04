/// SHA-256 (FIPS 180-4), incremental: feed bytes in any pieces, read the digest at the end. The toolchain
/// offers none on Linux (CryptoKit is Apple's, swift-crypto a package), so the file transfers' end-to-end
/// checksum is computed here. The state between blocks can be saved and restored (`checkpoint`,
/// `init(checkpoint:)`): a receiver that made the first N bytes durable resumes hashing at byte N after a
/// crash instead of reading the file again.
public struct SHA256: Sendable {
    public static let digestLength = 32
    public static let blockLength = 64

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes hashed so far (whole blocks and the buffered tail).
    public private(set) var count: UInt64 = 0
    private var buffer: [UInt8] = []

    public init() { buffer.reserveCapacity(Self.blockLength) }

    /// The digest of `bytes` in one call.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(Array(bytes))
        return hasher.finalize()
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        count &+= UInt64(bytes.count)
        var offset = 0
        if !buffer.isEmpty {
            let take = min(Self.blockLength - buffer.count, bytes.count)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<take]))
            offset = take
            guard buffer.count == Self.blockLength else { return }
            buffer.withUnsafeBytes { compress($0.baseAddress!) }
            buffer.removeAll(keepingCapacity: true)
        }
        let base = bytes.baseAddress!
        while bytes.count - offset >= Self.blockLength {
            compress(base + offset)
            offset += Self.blockLength
        }
        if offset < bytes.count { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
    }

    /// The digest (32 bytes). The hasher is spent afterwards.
    public mutating func finalize() -> [UInt8] {
        let bits = count &* 8
        var tail: [UInt8] = [0x80]
        let used = (buffer.count + 1) % Self.blockLength
        tail += [UInt8](repeating: 0, count: (used <= 56 ? 56 - used : 120 - used))
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        let saved = count
        update(tail)
        count = saved
        precondition(buffer.isEmpty, "SHA-256 padding ends on a block boundary")
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestLength)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            digest += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        return digest
    }

    // MARK: - Saving the state between blocks

    /// The state after a whole number of blocks (nil while a partial block is buffered): 32 bytes of
    /// state and 8 of count, big-endian.
    public var checkpoint: [UInt8]? {
        guard buffer.isEmpty else { return nil }
        var bytes: [UInt8] = []
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            bytes += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt64(shift))) }
        return bytes
    }

    /// A hasher resumed from `checkpoint`; nil for bytes that are not one (the wrong length, a count that
    /// is not a whole number of blocks).
    public init?(checkpoint bytes: [UInt8]) {
        guard bytes.count == 40 else { return nil }
        func word(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
        }
        var total: UInt64 = 0
        for index in 32..<40 { total = total << 8 | UInt64(bytes[index]) }
        guard total % UInt64(Self.blockLength) == 0 else { return nil }
        self.init()
        state = (word(0), word(4), word(8), word(12), word(16), word(20), word(24), word(28))
        count = total
    }

    // MARK: - The compression function

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    @inline(__always)
    private static func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 &- n)) }

    private mutating func compress(_ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                let p = block + i * 4
                w[i] =
                    UInt32(p.load(fromByteOffset: 0, as: UInt8.self)) << 24 | UInt32(p.load(fromByteOffset: 1, as: UInt8.self)) << 16
                    | UInt32(p.load(fromByteOffset: 2, as: UInt8.self)) << 8 | UInt32(p.load(fromByteOffset: 3, as: UInt8.self))
            }
            for i in 16..<64 {
                let s0 = Self.rotate(w[i &- 15], 7) ^ Self.rotate(w[i &- 15], 18) ^ (w[i &- 15] >> 3)
                let s1 = Self.rotate(w[i &- 2], 17) ^ Self.rotate(w[i &- 2], 19) ^ (w[i &- 2] >> 10)
                w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.k.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = Self.rotate(e, 6) ^ Self.rotate(e, 11) ^ Self.rotate(e, 25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
                    let s0 = Self.rotate(a, 2) ^ Self.rotate(a, 13) ^ Self.rotate(a, 22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    h = g
                    g = f
                    f = e
                    e = d &+ t1
                    d = c
                    c = b
                    b = a
                    a = t1 &+ t2
                }
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
        }
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hex, as `sha256sum` prints a digest.
    public var hexString: String {
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
