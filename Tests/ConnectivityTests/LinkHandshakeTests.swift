import Connectivity
import Testing

/// The link's handshake, pure: frames in, steps out (`LinkHandshake`). The sessions are stand-ins here
/// (`Party`); the handshake with real sessions runs in `SessionTests` (over `MemoryLink`) and through the
/// daemons (`ForgedFrameTests`, `PairSecretTests`).
@Suite struct LinkHandshakeTests {
    static let watch = Handshake(role: .watch, deviceID: "W", pairingID: "P", appVersion: "1.4", resumeSeq: 0, appInstalled: true, appActive: true)
    static let phone = Handshake(role: .phone, deviceID: "F", pairingID: "P", appVersion: "1.4", resumeSeq: 7, appInstalled: true, appActive: true)
    static let secret = PairingSecret(bytes: [UInt8](repeating: 7, count: 32))!
    static let watchNonce = [UInt8](repeating: 0xAA, count: 32), phoneNonce = [UInt8](repeating: 0xBB, count: 32)

    /// A side as the handshake sees it: what it says, its verdict on the other, its secret.
    final class Party: LinkHandshakeParty {
        var handshake: Handshake
        var verdict: WCError?
        var secret: PairingSecret?
        init(_ handshake: Handshake, secret: PairingSecret? = LinkHandshakeTests.secret) {
            self.handshake = handshake
            self.secret = secret
        }
        struct NoPairing: Error {}
        var paired = true
        func makeHandshake() throws -> Handshake {
            guard paired else { throw NoPairing() }
            return handshake
        }
        func validate(_ handshake: Handshake) -> WCError? { verdict }
        func pairingSecret() throws(WCError) -> PairingSecret {
            guard let secret else { throw WCError(.deviceNotPaired, "no pairing secret: pair the homes again") }
            return secret
        }
    }

    static func withNonce(_ handshake: Handshake, _ nonce: [UInt8]) -> Handshake {
        var copy = handshake
        copy.nonce = nonce
        return copy
    }

    /// The whole exchange between two parties, frame by frame: what each established, or the refusal.
    static func exchange(
        _ watch: Party, _ phone: Party, tamper: (Frame) -> Frame = { $0 }
    ) -> (watch: Handshake?, phone: Handshake?, refusal: WCError?) {
        var initiator = LinkHandshake(side: .initiator, nonce: watchNonce), acceptor = LinkHandshake(side: .acceptor, nonce: phoneNonce)
        var frames: [Frame] = [], toPhone = true
        var watchPeer: Handshake?, phonePeer: Handshake?
        for case let .send(frame) in initiator.opening(watch) { frames.append(frame) }
        while !frames.isEmpty {
            var answers: [Frame] = []
            for frame in frames {
                let steps = toPhone ? acceptor.receive(tamper(frame), phone) : initiator.receive(tamper(frame), watch)
                for step in steps {
                    switch step {
                    case let .send(answer): answers.append(answer)
                    case let .establish(peer): if toPhone { phonePeer = peer } else { watchPeer = peer }
                    case let .refuse(error): return (watchPeer, phonePeer, error)
                    default: Issue.record("\(step)")
                    }
                }
            }
            frames = answers
            toPhone.toggle()
        }
        return (watchPeer, phonePeer, nil)
    }

    @Test func theWatchOpensWithItsNonceTheAcceptorWaits() {
        var initiator = LinkHandshake(side: .initiator, nonce: Self.watchNonce)
        #expect(initiator.opening(Party(Self.watch)) == [.send(Frame(.hello, Self.withNonce(Self.watch, Self.watchNonce).encoded))])
        var acceptor = LinkHandshake(side: .acceptor)
        #expect(acceptor.opening(Party(Self.phone)).isEmpty)
        let unpaired = Party(Self.watch)
        unpaired.paired = false
        var third = LinkHandshake(side: .initiator)
        guard case .abandon? = third.opening(unpaired).first else { Issue.record("no abandon"); return }
    }

    /// A watch without the pair's secret (a home paired by an earlier RunWay) says no hello at all.
    @Test func aWatchWithoutTheSecretSaysNoHello() {
        var initiator = LinkHandshake(side: .initiator)
        let steps = initiator.opening(Party(Self.watch, secret: nil))
        guard case let .abandon(reason)? = steps.first, steps.count == 1 else { Issue.record("\(steps)"); return }
        #expect(reason.contains("pair the homes again"))
    }

    /// hello → welcome and the phone's proof → the watch's answer: both establish, each with the other's
    /// handshake, the nonces in them.
    @Test func bothSidesProveTheSecretAndEstablish() {
        let result = Self.exchange(Party(Self.watch), Party(Self.phone))
        #expect(result.refusal == nil)
        #expect(result.watch == Self.withNonce(Self.phone, Self.phoneNonce))
        #expect(result.phone == Self.withNonce(Self.watch, Self.watchNonce))
    }

    @Test func theAcceptorAnswersAHelloWithItsWelcomeAndProofNotYetTheLink() {
        var acceptor = LinkHandshake(side: .acceptor, nonce: Self.phoneNonce)
        let hello = Self.withNonce(Self.watch, Self.watchNonce).encoded
        let steps = acceptor.receive(Frame(.hello, hello), Party(Self.phone))
        let welcome = Self.withNonce(Self.phone, Self.phoneNonce).encoded
        let proof = LinkProof.proof(by: .phone, secret: Self.secret, hello: hello, welcome: welcome)
        #expect(steps == [.send(Frame(.welcome, welcome)), .send(Frame(.proof, proof))])
        #expect(acceptor.awaiting == "the watch's proof")
    }

    @Test func differentSecretsRefuseOnBothSides() {
        let other = PairingSecret(bytes: [UInt8](repeating: 9, count: 32))!
        // The phone's proof fails at the watch.
        let atWatch = Self.exchange(Party(Self.watch, secret: other), Party(Self.phone))
        #expect(atWatch.refusal?.code == .deviceNotPaired && atWatch.refusal?.message.contains("the phone's proof does not match") == true)
        #expect(atWatch.watch == nil && atWatch.phone == nil)
        // A phone without a secret for the pairing refuses the hello, saying how to pair again.
        let noSecret = Self.exchange(Party(Self.watch), Party(Self.phone, secret: nil))
        #expect(noSecret.refusal?.code == .deviceNotPaired && noSecret.refusal?.message.contains("pair the homes again") == true)
    }

    /// The watch's answer is bound to this exchange: an answer to another welcome (a replay) is refused.
    @Test func aReplayedAnswerIsRefused() {
        var acceptor = LinkHandshake(side: .acceptor, nonce: Self.phoneNonce)
        let hello = Self.withNonce(Self.watch, Self.watchNonce).encoded
        _ = acceptor.receive(Frame(.hello, hello), Party(Self.phone))
        // The answer the watch gave to an earlier connection's welcome, whose nonce was another.
        let earlierWelcome = Self.withNonce(Self.phone, [UInt8](repeating: 0xCC, count: 32)).encoded
        let replayed = LinkProof.proof(by: .watch, secret: Self.secret, hello: hello, welcome: earlierWelcome)
        let steps = acceptor.receive(Frame(.proof, replayed), Party(Self.phone))
        guard case let .refuse(error)? = steps.first, steps.count == 1 else { Issue.record("\(steps)"); return }
        #expect(error.code == .deviceNotPaired)
        #expect(acceptor.phase == .done)
    }

    /// A replayed hello followed by anything but the answer (a transfer, say) is refused at that frame.
    @Test func aHelloWithoutAnAnswerIsRefusedAtTheNextFrame() {
        var acceptor = LinkHandshake(side: .acceptor)
        _ = acceptor.receive(Frame(.hello, Self.withNonce(Self.watch, Self.watchNonce).encoded), Party(Self.phone))
        let steps = acceptor.receive(Frame(.userInfo, [0, 0, 0, 0, 0, 0, 0, 1]), Party(Self.phone))
        guard case let .refuse(error)? = steps.first else { Issue.record("\(steps)"); return }
        #expect(error.code == .deviceNotPaired && error.message.contains("expected its proof, got userInfo"))
    }

    /// A hello without a nonce is a RunWay from before the secret: refused, saying so.
    @Test func aHelloWithoutANonceIsRefused() {
        var acceptor = LinkHandshake(side: .acceptor)
        let steps = acceptor.receive(Frame(.hello, Self.watch.encoded), Party(Self.phone))
        guard case let .refuse(error)? = steps.first else { Issue.record("\(steps)"); return }
        #expect(error.code == .deviceNotPaired && error.message.contains("before the pairing secret"))
    }

    /// Any change to the handshakes in transit (a resume point, say) breaks the proofs, which cover them.
    @Test func aTamperedWelcomeIsRefusedByTheWatch() {
        let result = Self.exchange(Party(Self.watch), Party(Self.phone)) { frame in
            guard frame.type == .welcome, var welcome = try? Handshake(decoding: frame.payload) else { return frame }
            welcome.resumeSeq = 1_000_000
            return Frame(.welcome, welcome.encoded)
        }
        #expect(result.refusal?.message.contains("the phone's proof does not match") == true)
        #expect(result.watch == nil)
    }

    @Test func theAcceptorRefusesWithTheSessionsVerdict() {
        let verdict = WCError(.deviceNotPaired, "not our watch")
        let phone = Party(Self.phone)
        phone.verdict = verdict
        var acceptor = LinkHandshake(side: .acceptor)
        #expect(acceptor.receive(Frame(.hello, Self.withNonce(Self.watch, Self.watchNonce).encoded), phone) == [.refuse(verdict)])
    }

    @Test func malformedAndUnexpectedFramesAreRefused() {
        func first(_ side: LinkHandshake.Side, _ frame: Frame) -> [LinkHandshake.Step] {
            var handshake = LinkHandshake(side: side)
            if side == .initiator { _ = handshake.opening(Party(Self.watch)) }
            return handshake.receive(frame, Party(side == .initiator ? Self.watch : Self.phone))
        }
        for steps in [
            first(.acceptor, Frame(.hello, [0xFF])),
            first(.acceptor, Frame(.welcome, Self.phone.encoded)),
            first(.acceptor, Frame(.proof, [UInt8](repeating: 0, count: 32))),
            first(.initiator, Frame(.welcome, [1, 2])),
            first(.initiator, Frame(.userInfo, [])),
            first(.initiator, Frame(.proof, [UInt8](repeating: 0, count: 32))),
        ] {
            guard case let .refuse(error)? = steps.first, steps.count == 1 else { Issue.record("\(steps)"); continue }
            #expect(error.code == .invalidParameter)
        }
    }

    @Test func theCounterpartsRefusalIsHeardNotAnswered() {
        let error = WCError(.deviceNotPaired, "no")
        var initiator = LinkHandshake(side: .initiator)
        _ = initiator.opening(Party(Self.watch))
        #expect(initiator.receive(Frame(.error, ErrorFrame.encode(error)), Party(Self.watch)) == [.refusedByPeer(error)])
    }
}
