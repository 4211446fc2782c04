import Digest
import Testing

/// HMAC-SHA-256 built from SHA-256 (`HMACSHA256`) against RFC 4231's test cases: a short key, a key
/// shorter than the block, keys longer than the block (hashed first), and a key exactly a block long.
@Suite struct HMACTests {
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test(arguments: [
        ([UInt8](repeating: 0x0B, count: 20), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (ascii("Jefe"), "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (
            [UInt8](repeating: 0xAA, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            [UInt8](repeating: 0xAA, count: 131),
            "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
        (ascii(String(repeating: "k", count: 64)), "", "83026a325aaee70e36cfe607536aa1054104ad1077c36134810d4ccded1ccd3b"),
    ])
    func matchesRFC4231(key: [UInt8], message: String, expected: String) {
        let mac = HMACSHA256.authenticate(Self.ascii(message), key: key)
        #expect(mac.hexString == expected)
        #expect(HMACSHA256.verify(mac, Self.ascii(message), key: key))
        var flipped = mac
        flipped[31] ^= 1
        #expect(!HMACSHA256.verify(flipped, Self.ascii(message), key: key))
        #expect(!HMACSHA256.verify(Array(mac.dropLast()), Self.ascii(message), key: key), "a shorter MAC is no match")
    }
}
