import Connectivity
import Testing

/// The link's handshake, pure: frames in, steps out (`LinkHandshake`). The session's verdicts are
/// stand-ins here; the handshake with real sessions runs in `SessionTests` (over `MemoryLink`) and through
/// the daemons.
@Suite struct LinkHandshakeTests {
    static let watch = Handshake(role: .watch, deviceID: "W", pairingID: "P", appVersion: "1.4", resumeSeq: 0, appInstalled: true, appActive: true)
    static let phone = Handshake(role: .phone, deviceID: "F", pairingID: "P", appVersion: "1.4", resumeSeq: 7, appInstalled: true, appActive: true)

    @Test func theWatchOpensTheAcceptorWaits() {
        #expect(LinkHandshake(side: .initiator).opening { Self.watch } == [.send(Frame(.hello, Self.watch.encoded))])
        #expect(LinkHandshake(side: .acceptor).opening { Self.phone }.isEmpty)
        struct NoPairing: Error {}
        let steps = LinkHandshake(side: .initiator).opening { throw NoPairing() }
        guard case .abandon? = steps.first else { Issue.record("\(steps)"); return }
    }

    @Test func theAcceptorWelcomesAHelloItValidates() {
        let steps = LinkHandshake(side: .acceptor).receive(Frame(.hello, Self.watch.encoded), validate: { _ in nil }) { Self.phone }
        #expect(steps == [.send(Frame(.welcome, Self.phone.encoded)), .establish(peer: Self.watch)])
    }

    @Test func theAcceptorRefusesWithTheSessionsVerdict() {
        let verdict = WCError(.deviceNotPaired, "not our watch")
        let steps = LinkHandshake(side: .acceptor).receive(Frame(.hello, Self.watch.encoded), validate: { _ in verdict }) { Self.phone }
        #expect(steps == [.refuse(verdict)])
    }

    @Test func malformedAndUnexpectedFramesAreRefused() {
        let acceptor = LinkHandshake(side: .acceptor), initiator = LinkHandshake(side: .initiator)
        for steps in [
            acceptor.receive(Frame(.hello, [0xFF]), validate: { _ in nil }) { Self.phone },
            acceptor.receive(Frame(.welcome, Self.phone.encoded), validate: { _ in nil }) { Self.phone },
            initiator.receive(Frame(.welcome, [1, 2]), validate: { _ in nil }) { Self.watch },
            initiator.receive(Frame(.userInfo, []), validate: { _ in nil }) { Self.watch },
        ] {
            guard case let .refuse(error)? = steps.first, steps.count == 1 else { Issue.record("\(steps)"); continue }
            #expect(error.code == .invalidParameter)
        }
    }

    @Test func theCounterpartsRefusalIsHeardNotAnswered() {
        let error = WCError(.deviceNotPaired, "no")
        let steps = LinkHandshake(side: .initiator).receive(Frame(.error, ErrorFrame.encode(error)), validate: { _ in nil }) { Self.watch }
        #expect(steps == [.refusedByPeer(error)])
    }

    @Test func theInitiatorEstablishesOnAWelcomeItValidates() {
        let steps = LinkHandshake(side: .initiator).receive(Frame(.welcome, Self.phone.encoded), validate: { _ in nil }) { Self.watch }
        #expect(steps == [.establish(peer: Self.phone)])
    }
}
