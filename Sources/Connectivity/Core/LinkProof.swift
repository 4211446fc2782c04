import Digest

/// The handshake's challenge and answer, pure: each side proves it holds the pair's secret by an
/// HMAC-SHA-256 over the whole exchange — the `hello` and the `welcome` as they travelled, each carrying
/// a fresh 32-byte nonce of its sender's — so a proof is good for this connection only: a replayed
/// `hello` meets a new nonce in the `welcome`, and its old answer is not the answer to it.
///
///     proof(by role) = HMAC-SHA-256(secret, "RunWay link proof 1 " + role + 0x00 + SHA-256(hello) + SHA-256(welcome))
///
/// The phone proves first (its `proof` frame follows its `welcome`); the watch checks it before it takes
/// anything from the welcome, then answers with its own. Unit tests: `LinkProofTests`.
package enum LinkProof {
    package static let nonceLength = 32
    package static let length = HMACSHA256.length

    /// A new nonce from the system's random source.
    package static func freshNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<nonceLength).map { _ in generator.next() as UInt8 }
    }

    /// What `role` signs: the label, then the digests of the two handshake payloads as they travelled.
    static func message(by role: DeviceRole, hello: [UInt8], welcome: [UInt8]) -> [UInt8] {
        Array("RunWay link proof 1 \(role.rawValue)".utf8) + [0] + SHA256.hash(hello) + SHA256.hash(welcome)
    }

    /// `role`'s proof for the exchange of `hello` and `welcome` (their payloads).
    package static func proof(by role: DeviceRole, secret: PairingSecret, hello: [UInt8], welcome: [UInt8]) -> [UInt8] {
        HMACSHA256.authenticate(message(by: role, hello: hello, welcome: welcome), key: secret.bytes)
    }

    /// Whether `proof` is `role`'s for this exchange.
    package static func verify(_ proof: [UInt8], by role: DeviceRole, secret: PairingSecret, hello: [UInt8], welcome: [UInt8]) -> Bool {
        HMACSHA256.verify(proof, message(by: role, hello: hello, welcome: welcome), key: secret.bytes)
    }
}
