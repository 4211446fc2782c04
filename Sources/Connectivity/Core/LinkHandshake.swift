import PropertyLists

/// The link's handshake as a pure state machine: frames in, steps out. It decides; the transport acts.
/// The Unix-socket transport (`UnixLinkConnection`) and the in-memory one (`MemoryLink`) both run it, so
/// a test over memory exercises the same handshake, in the same encoded frames, as the daemons.
///
/// The watch (`initiator`) opens with `hello`; the phone (`acceptor`) checks the hello against its pairing
/// and answers `welcome`, or refuses with an `error` frame; the watch checks the welcome in turn. The
/// session supplies what the handshake depends on: its own handshake (`makeHandshake`) and its verdict
/// on the counterpart's (`validate`), both functions of its durable state.
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

    package let side: Side

    package init(side: Side) {
        self.side = side
    }

    /// What this side says first: the initiator's `hello`; the acceptor waits.
    package func opening(makeHandshake: () throws -> Handshake) -> [Step] {
        guard side == .initiator else { return [] }
        do {
            return [.send(Frame(.hello, try makeHandshake().encoded))]
        } catch {
            return [.abandon("cannot say hello: \(error)")]
        }
    }

    /// The steps for the first frame the counterpart sent.
    package func receive(
        _ frame: Frame, validate: (Handshake) -> WCError?,
        makeHandshake: () throws -> Handshake
    ) -> [Step] {
        switch (side, frame.type) {
        case (.acceptor, .hello):
            guard let hello = try? Handshake(decoding: frame.payload) else {
                return [.refuse(WCError(.invalidParameter, "malformed hello"))]
            }
            if let error = validate(hello) { return [.refuse(error)] }
            do {
                return [.send(Frame(.welcome, try makeHandshake().encoded)), .establish(peer: hello)]
            } catch {
                return [.refuse(WCError(.genericError, "cannot answer the hello: \(error)"))]
            }
        case (.initiator, .welcome):
            guard let welcome = try? Handshake(decoding: frame.payload) else {
                return [.refuse(WCError(.invalidParameter, "malformed welcome"))]
            }
            if let error = validate(welcome) { return [.refuse(error)] }
            return [.establish(peer: welcome)]
        case (_, .error):
            return [.refusedByPeer((try? ErrorFrame.decode(frame.payload)) ?? WCError(.genericError, "undecodable error frame"))]
        case (.initiator, .appState):
            let fields = try? PropertyListCodec.decodeDictionary(frame.payload)
            return [.counterpartState(appInstalled: fields?["appInstalled"]?.boolValue, appActive: fields?["appActive"]?.boolValue)]
        default:
            return [.refuse(WCError(.invalidParameter, "expected a \(side == .acceptor ? "hello" : "welcome") frame, got \(frame.type)"))]
        }
    }
}
