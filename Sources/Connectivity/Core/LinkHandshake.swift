import PropertyLists

/// What a side of the link brings to the handshake, all functions of its durable state: what it says
/// (`makeHandshake`), its verdict on the counterpart's handshake (`validate`: nil if it may talk to us),
/// and the pair's secret it proves with (`pairingSecret`). The session is one; watch-os, which says the
/// watch's hello from its store while the app is not running, is another.
package protocol LinkHandshakeParty: AnyObject {
    func makeHandshake() throws -> Handshake
    func validate(_ handshake: Handshake) -> WCError?
    func pairingSecret() throws(WCError) -> PairingSecret
}

/// The link's handshake as a pure state machine: frames in, steps out. It decides; the transport acts.
/// The Unix-socket transport (`UnixLinkConnection`), the in-memory one (`MemoryLink`) and watch-os all run
/// it, so a test over memory exercises the same handshake, in the same encoded frames, as the daemons.
///
/// The watch (`initiator`) opens with `hello` (its nonce in it); the phone (`acceptor`) checks the hello
/// against its pairing and answers `welcome` (its own nonce) and its `proof`, or refuses with an `error`
/// frame; the watch checks the welcome and the phone's proof, then answers with its own `proof` and the
/// link is up on its side; the phone takes the link once that answer checks. Each proof covers both
/// handshakes as they travelled (`LinkProof`): a replayed `hello` cannot answer a fresh `welcome`, and a
/// process without the pair's secret can prove nothing (`docs/protocol.md`, "Handshake").
package struct LinkHandshake: Sendable {
    package enum Side: Sendable { case initiator, acceptor }

    /// What the transport does next.
    package enum Step: Equatable, Sendable {
        /// Write this frame.
        case send(Frame)
        /// The link is up with this counterpart: hand the channel to the session.
        case establish(peer: Handshake)
        /// Refuse the counterpart: send an `error` frame with this error, then close.
        case refuse(WCError)
        /// The counterpart refused us (its `error` frame): close without answering.
        case refusedByPeer(WCError)
        /// Before turning the watch away without a word, the phone's system said what its app is (an
        /// `appState` frame from `phone-os`: installed, not running): tell the session, keep waiting.
        case counterpartState(appInstalled: Bool?, appActive: Bool?)
        /// Close without a word (we could not even say hello).
        case abandon(String)
    }

    /// Where the exchange stands.
    package enum Phase: Equatable, Sendable {
        /// The initiator has said nothing yet; the acceptor waits for the `hello`.
        case opening
        /// The initiator said `hello` (its payload) and waits for the `welcome`.
        case awaitingWelcome(hello: [UInt8])
        /// The initiator has the `welcome` and waits for the phone's `proof`.
        case awaitingPhoneProof(hello: [UInt8], welcome: Handshake, welcomePayload: [UInt8])
        /// The acceptor answered `welcome` and its `proof` and waits for the watch's.
        case awaitingAnswer(hello: Handshake, helloPayload: [UInt8], welcome: [UInt8], secret: PairingSecret)
        /// Established (or refused): nothing more is the handshake's.
        case done
    }

    package let side: Side
    /// This side's challenge for this connection.
    package let nonce: [UInt8]
    package private(set) var phase = Phase.opening

    package init(side: Side, nonce: [UInt8] = LinkProof.freshNonce()) {
        self.side = side
        self.nonce = nonce
    }

    /// What the handshake is waiting for, for the time-out's log line.
    package var awaiting: String {
        switch phase {
        case .opening: side == .acceptor ? "hello" : "-"
        case .awaitingWelcome: "welcome"
        case .awaitingPhoneProof: "the phone's proof"
        case .awaitingAnswer: "the watch's proof"
        case .done: "-"
        }
    }

    /// What this side says first: the initiator's `hello`; the acceptor waits. A watch without the
    /// pair's secret does not say hello: it could not tell the phone from anyone.
    package mutating func opening(_ party: some LinkHandshakeParty) -> [Step] {
        guard side == .initiator, phase == .opening else { return [] }
        do {
            _ = try party.pairingSecret()
            var hello = try party.makeHandshake()
            hello.nonce = nonce
            let payload = hello.encoded
            phase = .awaitingWelcome(hello: payload)
            return [.send(Frame(.hello, payload))]
        } catch {
            phase = .done
            return [.abandon("cannot say hello: \(error)")]
        }
    }

    /// The steps for a frame the counterpart sent while the handshake is not done.
    package mutating func receive(_ frame: Frame, _ party: some LinkHandshakeParty) -> [Step] {
        if frame.type == .error {
            phase = .done
            return [.refusedByPeer((try? ErrorFrame.decode(frame.payload)) ?? WCError(.genericError, "undecodable error frame"))]
        }
        let steps: [Step]
        switch (phase, frame.type) {
        case (.opening, .hello) where side == .acceptor:
            steps = hello(frame.payload, party)
        case let (.awaitingWelcome(hello), .welcome):
            steps = welcome(frame.payload, hello: hello, party)
        case (.awaitingWelcome, .appState):
            let fields = try? PropertyListCodec.decodeDictionary(frame.payload)
            return [.counterpartState(appInstalled: fields?["appInstalled"]?.boolValue, appActive: fields?["appActive"]?.boolValue)]
        case let (.awaitingPhoneProof(hello, welcome, welcomePayload), .proof):
            steps = phoneProof(frame.payload, hello: hello, welcome: welcome, welcomePayload: welcomePayload, party)
        case let (.awaitingAnswer(hello, helloPayload, welcome, secret), .proof):
            guard LinkProof.verify(frame.payload, by: .watch, secret: secret, hello: helloPayload, welcome: welcome) else {
                steps = [.refuse(Self.unproven("the watch's proof does not match this pairing's secret"))]
                break
            }
            steps = [.establish(peer: hello)]
        case (.awaitingAnswer, _):
            steps = [.refuse(Self.unproven("the watch did not prove the pairing's secret: expected its proof, got \(frame.type) (a replayed hello?)"))]
        case (.awaitingPhoneProof, _):
            steps = [.refuse(Self.unproven("the phone did not prove the pairing's secret: expected its proof, got \(frame.type)"))]
        default:
            steps = [.refuse(WCError(.invalidParameter, "expected a \(awaiting) frame, got \(frame.type)"))]
        }
        if steps.contains(where: { if case .send = $0 { false } else { true } }) { phase = .done }
        return steps
    }

    /// The acceptor's answer to a `hello`: checked against the pairing, then `welcome` and the phone's proof.
    private mutating func hello(_ payload: [UInt8], _ party: some LinkHandshakeParty) -> [Step] {
        guard let hello = try? Handshake(decoding: payload) else {
            return [.refuse(WCError(.invalidParameter, "malformed hello"))]
        }
        if let error = party.validate(hello) { return [.refuse(error)] }
        guard !hello.nonce.isEmpty else {
            return [.refuse(Self.unproven("the watch's hello carries no challenge: it runs a RunWay from before the pairing secret"))]
        }
        let secret: PairingSecret
        do {
            secret = try party.pairingSecret()
        } catch {
            return [.refuse(error)]
        }
        var welcome: Handshake
        do {
            welcome = try party.makeHandshake()
        } catch {
            return [.refuse(WCError(.genericError, "cannot answer the hello: \(error)"))]
        }
        welcome.nonce = nonce
        let welcomePayload = welcome.encoded
        phase = .awaitingAnswer(hello: hello, helloPayload: payload, welcome: welcomePayload, secret: secret)
        let proof = LinkProof.proof(by: .phone, secret: secret, hello: payload, welcome: welcomePayload)
        return [.send(Frame(.welcome, welcomePayload)), .send(Frame(.proof, proof))]
    }

    /// The initiator's look at the `welcome`: checked against the pairing; nothing of it is taken before
    /// the phone's proof.
    private mutating func welcome(_ payload: [UInt8], hello: [UInt8], _ party: some LinkHandshakeParty) -> [Step] {
        guard let welcome = try? Handshake(decoding: payload) else {
            return [.refuse(WCError(.invalidParameter, "malformed welcome"))]
        }
        if let error = party.validate(welcome) { return [.refuse(error)] }
        guard !welcome.nonce.isEmpty else {
            return [.refuse(Self.unproven("the phone's welcome carries no challenge: it runs a RunWay from before the pairing secret"))]
        }
        phase = .awaitingPhoneProof(hello: hello, welcome: welcome, welcomePayload: payload)
        return []
    }

    /// The phone's proof checked: the watch answers with its own and the link is up on its side.
    private mutating func phoneProof(
        _ proof: [UInt8], hello: [UInt8], welcome: Handshake, welcomePayload: [UInt8], _ party: some LinkHandshakeParty
    ) -> [Step] {
        let secret: PairingSecret
        do {
            secret = try party.pairingSecret()
        } catch {
            return [.refuse(error)]
        }
        guard LinkProof.verify(proof, by: .phone, secret: secret, hello: hello, welcome: welcomePayload) else {
            return [.refuse(Self.unproven("the phone's proof does not match this pairing's secret"))]
        }
        let answer = LinkProof.proof(by: .watch, secret: secret, hello: hello, welcome: welcomePayload)
        return [.send(Frame(.proof, answer)), .establish(peer: welcome)]
    }

    /// The refusal of a counterpart that did not prove the pair's secret: `deviceNotPaired`, with what to do.
    static func unproven(_ why: String) -> WCError {
        WCError(.deviceNotPaired, "\(why); only the pair's two homes hold its secret (runway pair --phone P --watch W pairs them again)")
    }
}
