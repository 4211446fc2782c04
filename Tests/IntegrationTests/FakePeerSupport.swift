import Connectivity
import Foundation
import PairTesting
import Posix
import Storage
import Testing

/// A peer on the link that is not the real device: a process of the same user, which can read both
/// homes and so knows everything their stores say (the device ids, the pairing). The link tests use it
/// to forge and replay frames (`ForgedFrameTests`): a fake watch connects to the phone's `link.sock`
/// with the hello the watch would say; a fake phone listens where the phone's socket is while the phone
/// is down, and welcomes the real watch.
final class FakePeer {
    let client: RawClient
    /// Bytes of `client.received` already cut into `frames`.
    private var consumed = 0
    /// Every frame received so far, in order.
    private(set) var frames: [Frame] = []

    init(_ client: RawClient) { self.client = client }

    func send(_ bytes: [UInt8]) { client.send(bytes) }

    /// Cuts what has arrived into frames.
    private func cut() throws {
        let decoder = FrameDecoder()
        while consumed < client.received.count {
            let next = try client.received[consumed...].withUnsafeBytes { raw throws(FrameError) in try decoder.decode(raw) }
            guard let (frame, length) = next else { return }
            frames.append(frame)
            consumed += length
        }
    }

    /// The first frame received (from `index` on) that `match` accepts, waiting up to `timeout` seconds
    /// for it; nil if none came, or the connection closed first.
    func waitForFrame(after index: Int = 0, timeout: Double = 15, where match: (Frame) -> Bool) throws -> Frame? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            try cut()
            if let found = frames.dropFirst(index).first(where: match) { return found }
            if client.peerClosed || deadline.timeIntervalSinceNow <= 0 { return nil }
            client.receive(waitingUpTo: min(0.2, max(0, deadline.timeIntervalSinceNow)))
        }
    }

    /// Whether the device closed the connection within `timeout` seconds.
    func waitUntilClosed(timeout: Double = 15) throws -> Bool {
        let closed = client.waitUntilClosed(timeout: timeout)
        try cut()
        return closed
    }

    // MARK: - Speaking as a device

    /// What the device of `home` would say in its handshake, from its store (read-only, as watch-os does).
    static func handshake(of home: String, role: DeviceRole) throws -> Handshake {
        let database = try Database(path: home + "/store.sqlite", readOnly: true)
        defer { database.close() }
        guard let (handshake, _) = SessionStoreReader(database: database).handshake(role: role) else {
            throw HarnessError("\(home) holds no pairing")
        }
        return handshake
    }

    /// The pair's secret as the home holds it (`HOME/pairing-secrets`): what a process of the same user
    /// can read, and so prove with — the limit of what the secret protects (`docs/hardening.md`).
    static func secret(of home: String, role: DeviceRole) throws -> PairingSecret {
        let database = try Database(path: home + "/store.sqlite", readOnly: true)
        defer { database.close() }
        guard let pairing = try SessionStore.pairing(database) else { throw HarnessError("\(home) holds no pairing") }
        return try PairingSecrets(home: home).read(pairingID: pairing.pairingID)
    }

    /// A fake watch: connects to the phone's link socket, says the watch's hello (with a nonce of its
    /// own) and answers the phone's proof with the secret read from the watch's home. Returns once the
    /// phone took the answer — nil if it refused anything.
    static func watch(_ pair: SimulatedPair, hello: Handshake? = nil) throws -> FakePeer? {
        let peer = FakePeer(try RawClient(path: pair.phoneHome + "/link.sock"))
        var hello = try hello ?? handshake(of: pair.watchHome, role: .watch)
        hello.nonce = LinkProof.freshNonce()
        let helloPayload = hello.encoded
        peer.send(Frame(.hello, helloPayload).encoded)
        guard let welcome = try peer.waitForFrame(where: { $0.type == .welcome || $0.type == .error }), welcome.type == .welcome else { return nil }
        // A phone from before the pairing secret (RUNWAY_BIN_DIR at an older build, to show a test
        // failing there) welcomes without a nonce and asks for no proof: the link is up already.
        if (try? Handshake(decoding: welcome.payload))?.nonce.isEmpty == true { return peer }
        guard try peer.waitForFrame(where: { $0.type == .proof || $0.type == .error })?.type == .proof else { return nil }
        let secret = try secret(of: pair.watchHome, role: .watch)
        peer.send(Frame(.proof, LinkProof.proof(by: .watch, secret: secret, hello: helloPayload, welcome: welcome.payload)).encoded)
        // The phone closes at once on a wrong answer; a right one is followed by nothing in particular.
        if try peer.waitUntilClosed(timeout: 0.5) { return nil }
        return peer
    }

    /// A fake phone: waits for the real watch to connect to `listener` (bound at the phone's link
    /// socket while the phone is down), reads its hello and welcomes it with the phone's own handshake,
    /// from the phone's store — its true resume points, so the watch lets go of nothing the phone lacks
    /// — and the proof made with the secret read from the phone's home; then takes the watch's answer.
    static func phone(_ pair: SimulatedPair, listener: RawListener) throws -> FakePeer {
        guard let client = listener.accept(waitingUpTo: 30) else { throw HarnessError("the watch never connected to the fake phone") }
        let peer = FakePeer(client)
        guard let hello = try peer.waitForFrame(where: { $0.type == .hello }) else { throw HarnessError("the watch said no hello") }
        var welcome = try handshake(of: pair.phoneHome, role: .phone)
        // A watch from before the pairing secret (an older build, as above) says a hello without a
        // nonce and proves nothing: it is welcomed as it was then.
        if (try? Handshake(decoding: hello.payload))?.nonce.isEmpty == true {
            peer.send(Frame(.welcome, welcome.encoded).encoded)
            return peer
        }
        welcome.nonce = LinkProof.freshNonce()
        let welcomePayload = welcome.encoded
        let secret = try secret(of: pair.phoneHome, role: .phone)
        peer.send(
            Frame(.welcome, welcomePayload).encoded
                + Frame(.proof, LinkProof.proof(by: .phone, secret: secret, hello: hello.payload, welcome: welcomePayload)).encoded)
        guard try peer.waitForFrame(where: { $0.type == .proof || $0.type == .error })?.type == .proof else {
            throw HarnessError("the watch did not answer the fake phone's proof")
        }
        return peer
    }
}
