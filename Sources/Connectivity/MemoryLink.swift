import Posix

/// An in-memory link between two sessions on one event loop: the twin of the Unix-socket transport for
/// tests of the session's logic (as NIOEmbedded is to NIOPosix). Bytes written on one end are cut into
/// frames and delivered to the other end at the end of the loop iteration; nothing touches a socket.
public final class MemoryLink {
    public final class End: LinkChannel {
        fileprivate weak var link: MemoryLink?
        fileprivate unowned let session: Session
        public private(set) var sentFrames: [Frame] = []
        public fileprivate(set) var isClosed = false
        /// When true, everything sent is dropped (frames lost in flight before a crash).
        public var dropsOutgoing = false

        fileprivate init(session: Session) { self.session = session }

        public func send(_ frames: [UInt8]) {
            guard !isClosed, let link, !dropsOutgoing else { return }
            let decoded = FrameDecoder().decodeAll(from: { let b = ByteBuffer(); b.append(frames); return b }())
            sentFrames.append(contentsOf: decoded.frames)
            link.deliver(decoded.frames, from: self)
        }

        public var pendingOutboundBytes: Int { 0 }
        public func requestDrainNotification() {}

        /// Like a socket: what was sent before the close still reaches the other end, then it closes.
        public func close(error: WCError?, reason: String) {
            guard !isClosed, let link else { return }
            if let error { send(Frame(.error, ErrorFrame.encode(error)).encoded) }
            link.loop.deferToEndOfIteration { [weak link] in link?.closeBoth(reason: reason) }
        }
    }

    public let loop: EventLoop
    public let a: End
    public let b: End
    public private(set) var closeReason: String?

    /// Connects two activated sessions: runs the handshake checks both ways and opens the channel on
    /// each side. Returns nil (and closes) if either side refuses the other.
    public static func connect(_ first: Session, _ second: Session, loop: EventLoop) throws -> MemoryLink? {
        let link = MemoryLink(first, second, loop: loop)
        let firstHello = try first.makeHandshake()
        let secondHello = try second.makeHandshake()
        if let error = second.validate(firstHello) ?? first.validate(secondHello) {
            link.closeReason = "\(error)"
            return nil
        }
        first.channelDidOpen(link.a, peer: secondHello)
        second.channelDidOpen(link.b, peer: firstHello)
        return link
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
    public func closeBoth(reason: String) {
        guard !a.isClosed else { return }
        closeReason = reason
        a.isClosed = true
        b.isClosed = true
        a.session.channelDidClose(a, reason: reason)
        b.session.channelDidClose(b, reason: reason)
    }
}
