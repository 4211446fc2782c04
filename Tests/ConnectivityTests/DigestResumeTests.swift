import Digest
import Testing

/// SHA-256 resumed from a saved state past 2^32 bits (512 MiB): the count libcrypto keeps in two 32-bit
/// halves is restored whole, so the padding's length is right — the digest matches `sha256sum`'s of the
/// same bytes (513 MiB of zeros), straight through and resumed at 512 MiB.
@Suite struct DigestResumeTests {
    @Test func aStateSavedPast512MiBResumesToTheSameDigest() throws {
        let mebibyte = [UInt8](repeating: 0, count: 1 << 20)
        var straight = SHA256()
        for _ in 0..<512 { straight.update(mebibyte) }
        let saved = try #require(straight.checkpoint)
        #expect(saved.count == 40 && Array(saved[32..<40]) == [0, 0, 0, 0, 0x20, 0, 0, 0], "\(saved)")
        var resumed = try #require(SHA256(checkpoint: saved))
        #expect(resumed.count == 1 << 29)
        straight.update(mebibyte)
        resumed.update(mebibyte)
        let expected = "a3e2acbb469e4e59dde406f912e754c933c1ac0fb0092a3634d61d5073309c0c"
        #expect(straight.finalize().hexString == expected)
        #expect(resumed.finalize().hexString == expected)
    }
}
