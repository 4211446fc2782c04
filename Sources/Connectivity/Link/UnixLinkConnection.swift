import Posix

/// One connection of the link over a Unix socket: the handshake, then frames to and from the session.
///
/// The watch side (`initiator`) sends `hello` and waits for `welcome`; the phone side (`acceptor`) waits
/// for `hello`, checks it against the pairing and answers `welcome` or an `error` frame
/// (`deviceNotPaired`) before closing. Any malformed frame closes the connection with a logged reason, and
/// so does a counterpart that goes away before the handshake is done or in the middle of a frame.
final class UnixLinkConnection: LinkChannel {
    typealias Side = LinkHandshake.Side
    enum State { case handshaking, established, closed }

    let stream: SocketStream
    let side: Side
    private unowned let session: Session
    let logger: Logger
    unowned let loop: EventLoop
    private(set) var state = State.handshaking
    /// The handshake's exchange (`hello`, `welcome`, the two proofs) until the link is up.
    private var handshake: LinkHandshake
    /// The order the listener accepted connections in (the oldest pending handshake is evicted first).
    var serial: UInt64 = 0
    private var handshakeTimer: EventLoop.TimerID?
    /// Told once when the connection closes: whether it had been established, and why it closed.
    var onClose: ((UnixLinkConnection, Bool, String) -> Void)?
    /// The error the counterpart sent before closing, if any.
    private(set) var peerError: WCError?
    /// Whether this side's `hello` said messages were waiting (`Handshake.pendingMessages`).
    private(set) var helloCarriedMessages = false

    /// The air this connection's frames travel through (the watch's side): nil, or clear air with
    /// nothing in it, and frames go straight to the socket.
    private let air: LinkAir?
    /// The frames to and from the socket, through the air.
    private let aired: AiredFrameStream

    init(stream: SocketStream, side: Side, session: Session, loop: EventLoop, logger: Logger, air: LinkAir? = nil) {
        self.stream = stream
        self.side = side
        self.session = session
        self.loop = loop
        self.logger = logger
        self.air = air
        aired = AiredFrameStream(stream: stream, loop: loop, air: air)
        handshake = LinkHandshake(side: side)
    }

    /// `handshakeTimeoutMilliseconds` bounds the whole handshake, however the bytes trickle in: a
    /// counterpart that says nothing, or one byte a second, is closed when it runs out.
    func start(handshakeTimeoutMilliseconds: UInt64 = 5000) {
        aired.onFrames = { [unowned self] frames, error in self.deliver(frames, error: error) }
        aired.onClose = { [unowned self] reason, unfinishedBytes in self.didClose(reason, unfinishedBytes: unfinishedBytes) }
        aired.onLoss = { [unowned self] direction in self.cutByLoss(direction) }
        aired.start()
        handshakeTimer = loop.schedule(afterMilliseconds: handshakeTimeoutMilliseconds) { [weak self] in
            guard let self, self.state == .handshaking else { return }
            self.logger.warning("link.handshake-timeout", ["fd": self.stream.descriptor.rawValue, "awaiting": self.handshake.awaiting])
            self.close(
                error: WCError(.transferTimedOut, "no handshake within \(handshakeTimeoutMilliseconds) ms (awaiting \(self.handshake.awaiting))"),
                reason: "handshake timed out")
        }
        let steps = handshake.opening(session)
        for case let .send(hello) in steps {
            helloCarriedMessages = ((try? Handshake(decoding: hello.payload))?.pendingMessages ?? 0) > 0
        }
        apply(steps)
    }

    // MARK: - LinkChannel

    func send(_ bytes: [UInt8]) { aired.send(bytes) }
    var pendingOutboundBytes: Int { aired.pendingOutboundBytes }

    func requestDrainNotification() {
        aired.afterOutboundAir { [unowned self] in self.requestStreamDrain() }
    }

    /// Tells the session once the socket's own buffer has drained.
    private func requestStreamDrain() {
        stream.onWritable = { [unowned self] stream in
            stream.onWritable = nil
            stream.wantsWritable = false
            self.session.channelDidDrain(self)
        }
        stream.wantsWritable = true
    }

    func close(error: WCError?, reason: String) {
        guard state != .closed else { return }
        if stream.isClosed {
            // The counterpart hung up and its last frames are still in the air: the close is ours now.
            didClose(.localClose(reason), unfinishedBytes: 0)
            return
        }
        if let error {
            stream.write(Frame(.error, ErrorFrame.encode(error)).encoded)
            stream.closeAfterFlushing(.localClose(reason))
        } else {
            stream.close(.localClose(reason))
        }
    }

    func receiveWhatArrived() {
        guard state == .established else { return }
        stream.readWhatArrived()
    }

    func holdReceiving(_ held: Bool) { stream.readingHeld = held }

    // MARK: - The air

    /// The air cleared: what is in it arrives now, both ways.
    func landTheAir() { aired.landTheAir() }

    /// What this connection holds in the air now, both ways.
    var bytesInAir: Int { aired.bytesInAir }

    private func cutByLoss(_ direction: String) {
        guard let air else { return }
        logger.info("link.frame-lost", ["direction": direction, "loss": air.shape.loss, "lost": air.framesLost])
        close(error: nil, reason: "a frame \(direction) was lost in the air (loss \(air.shape.loss)): the link is cut and the watch reconnects")
    }

    // MARK: - Reading

    /// Hands frames that have arrived to the handshake or the session; a bad frame closes the connection.
    private func deliver(_ frames: [Frame], error: FrameError?) {
        var remaining = frames[...]
        while state == .handshaking, let first = remaining.first {
            remaining = remaining.dropFirst()
            apply(handshake.receive(first, session))
        }
        if state == .established, !remaining.isEmpty {
            // Remember why the counterpart is about to hang up: the connector's backoff depends on it.
            if let error = remaining.last(where: { $0.type == .error }) {
                peerError = (try? ErrorFrame.decode(error.payload)) ?? WCError(.genericError)
            }
            session.channel(self, didReceive: Array(remaining))
        }
        if let error, state != .closed {
            logger.error("link.bad-frame", ["error": "\(error)"])
            close(error: WCError(.genericError, "bad frame: \(error)"), reason: "bad frame: \(error)")
        }
    }

    /// Carries out what the handshake decided.
    private func apply(_ steps: [LinkHandshake.Step]) {
        for step in steps {
            switch step {
            case let .send(frame): aired.send(frame.encoded)
            case let .establish(peer): establish(peer: peer)
            case let .refuse(error): refuse(error)
            case let .counterpartState(installed, active):
                session.counterpartStateOutsideLink(installed: installed, active: active)
            case let .refusedByPeer(error):
                peerError = error
                session.counterpartRefused(error)
                // An unpaired watch is refused every second or so: the same line, rate-limited.
                logger.repeating(.error, "link.refused-by-peer", ["code": error.code.rawValue, "name": error.name, "message": error.message])
                close(error: nil, reason: "refused by the counterpart: \(error)")
            case let .abandon(reason):
                // A watch that cannot say hello (no pairing secret, not activated): one line, rate-limited.
                logger.repeating(.error, "link.cannot-say-hello", ["reason": reason])
                close(error: nil, reason: reason)
            }
        }
    }

    private func refuse(_ error: WCError) {
        logger.repeating(.error, "link.refused", ["code": error.code.rawValue, "name": error.name, "message": error.message])
        close(error: error, reason: "handshake refused: \(error)")
    }

    private func establish(peer: Handshake) {
        state = .established
        aired.isEstablished = true
        if let handshakeTimer { loop.cancel(handshakeTimer) }
        session.channelDidOpen(self, peer: peer)
    }

    private func didClose(_ closeReason: SocketStream.CloseReason, unfinishedBytes: Int) {
        guard state != .closed else { return }
        aired.discardAir()
        let wasEstablished = state == .established
        var reason = closeReason.description
        // Our own closes were logged where they were decided; the counterpart's are logged here.
        let closedByCounterpart = if case .localClose = closeReason { false } else { true }
        if closedByCounterpart, unfinishedBytes > 0 { reason += " in the middle of a frame (\(unfinishedBytes) bytes discarded)" }
        if closedByCounterpart, !wasEstablished { logger.warning("link.handshake-abandoned", ["reason": reason]) }
        state = .closed
        if let handshakeTimer { loop.cancel(handshakeTimer) }
        if wasEstablished { session.channelDidClose(self, reason: reason) }
        let handler = onClose
        onClose = nil
        handler?(self, wasEstablished, reason)
    }
}
