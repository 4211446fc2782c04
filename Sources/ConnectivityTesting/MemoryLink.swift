import Connectivity
import Posix

/// An in-memory link between two sessions on one event loop: the twin of the Unix-socket transport for
/// tests of the session's logic (as NIOEmbedded is to NIOPosix), in a test-support module the daemons do
/// not link. It runs the link's real handshake and codec; bytes written on one end are cut into frames and
/// delivered to the other end at the end of the loop iteration; nothing touches a socket.
package final class MemoryLink {
    package final class End: LinkChannel {
        fileprivate weak var link: MemoryLink?
        fileprivate unowned let session: Session
        package private(set) var sentFrames: [Frame] = []
        package fileprivate(set) var isClosed = false
        /// When true, everything sent is dropped (frames lost in flight before a crash).
        package var dropsOutgoing = false
        /// Frames sent for which this says true are dropped (one kind of answer lost).
        package var drops: ((Frame) -> Bool)?

        fileprivate init(session: Session) { self.session = session }

        package func send(_ frames: [UInt8]) {
            guard !isClosed, let link, !dropsOutgoing else { return }
            let decoded = FrameDecoder().decodeAll(
                from: {
                    let b = ByteBuffer(); b.append(frames); return b
                }())
            let kept = drops.map { drop in decoded.frames.filter { !drop($0) } } ?? decoded.frames
            sentFrames.append(contentsOf: kept)
            link.deliver(kept, from: self)
        }

        package var pendingOutboundBytes: Int { 0 }
        package func requestDrainNotification() {}

        /// Like a socket: what was sent before the close still reaches the other end, then it closes.
        package func close(error: WCError?, reason: String) {
            guard !isClosed, let link else { return }
            if let error { send(Frame(.error, ErrorFrame.encode(error)).encoded) }
            link.loop.deferToEndOfIteration { [weak link] in link?.closeBoth(reason: reason) }
        }
    }

    package let loop: EventLoop
    package let a: End
    package let b: End
    package private(set) var closeReason: String?

    /// Connects two activated sessions by the link's real handshake (`LinkHandshake`), its frames
    /// encoded and decoded as on a socket: the watch's `hello`, the phone's verdict, `welcome` and proof,
    /// the watch's verdict and answer, the phone's check of it. Throws if either session cannot say who
    /// it is (not activated, not paired); returns nil, with the refusal in `closeReason`, if either side
    /// refuses the other.
    package static func connect(_ watch: Session, _ phone: Session, loop: EventLoop) throws -> MemoryLink? {
        _ = try watch.makeHandshake()
        _ = try phone.makeHandshake()
        let link = MemoryLink(watch, phone, loop: loop)
        var initiator = LinkHandshake(side: .initiator), acceptor = LinkHandshake(side: .acceptor)
        let opening = outcome(of: initiator.opening(watch))
        if let refusal = opening.refusal {
            link.closeReason = refusal
            return nil
        }
        // The frames go back and forth — hello; welcome and the phone's proof; the watch's answer —
        // until neither side has more to say.
        var frames = opening.sent, toPhone = true
        var watchPeer: Handshake?, phonePeer: Handshake?
        while !frames.isEmpty {
            var answers: [Frame] = []
            for frame in frames {
                let steps = toPhone ? acceptor.receive(try overTheWire(frame), phone) : initiator.receive(try overTheWire(frame), watch)
                let result = outcome(of: steps)
                if let refusal = result.refusal {
                    link.closeReason = refusal
                    return nil
                }
                answers += result.sent
                if toPhone { phonePeer = phonePeer ?? result.peer } else { watchPeer = watchPeer ?? result.peer }
            }
            frames = answers
            toPhone.toggle()
        }
        guard let watchPeer, let phonePeer else {
            link.closeReason = "the handshake did not finish"
            return nil
        }
        watch.channelDidOpen(link.a, peer: watchPeer)
        phone.channelDidOpen(link.b, peer: phonePeer)
        return link
    }

    /// What one side's steps came to: the frames it answered with, the peer it established, or why not.
    private static func outcome(of steps: [LinkHandshake.Step]) -> (sent: [Frame], peer: Handshake?, refusal: String?) {
        var sent: [Frame] = [], peer: Handshake?
        for step in steps {
            switch step {
            case let .send(frame): sent.append(frame)
            case let .establish(established): peer = established
            case let .refuse(error), let .refusedByPeer(error): return (sent, nil, "\(error)")
            case let .abandon(reason): return (sent, nil, reason)
            case .counterpartState: continue
            }
        }
        return (sent, peer, nil)
    }

    /// A frame as the other side reads it: encoded, then cut out of the bytes by the link's decoder.
    private static func overTheWire(_ frame: Frame) throws -> Frame {
        let bytes = frame.encoded
        guard let decoded = try bytes.withUnsafeBytes({ (raw) throws(FrameError) in try FrameDecoder().decode(raw) }) else {
            throw WCError(.genericError, "a \(frame.type) frame did not decode whole")
        }
        return decoded.frame
    }

    private init(_ first: Session, _ second: Session, loop: EventLoop) {
        self.loop = loop
        a = End(session: first)
        b = End(session: second)
        a.link = self
        b.link = self
    }

    fileprivate func deliver(_ frames: [Frame], from end: End) {
        let target = end === a ? b : a
        loop.deferToEndOfIteration { [weak self] in
            guard self != nil, !target.isClosed else { return }
            target.session.channel(target, didReceive: frames)
        }
    }

    /// Cuts the link, as when a device goes out of range or its process dies.
    package func closeBoth(reason: String) {
        guard !a.isClosed else { return }
        closeReason = reason
        a.isClosed = true
        b.isClosed = true
        a.session.channelDidClose(a, reason: reason)
        b.session.channelDidClose(b, reason: reason)
        // Nobody answers the watch's next attempt either: the phone is out of its range (the Unix
        // connector's failed connect).
        for side in [a, b] where side.session.role == .watch { side.session.counterpartOutOfRange() }
    }
}
