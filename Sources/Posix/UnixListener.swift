import Glibc

/// A listening Unix socket on the event loop: accepts connections from processes of this user only
/// (`SO_PEERCRED`; a peer whose credentials cannot be read is refused too) and hands each to `onAccept`.
///
/// Out of descriptors (`EMFILE` and the like) the pending connection stays queued and `poll` would report
/// it again at once — a busy loop that floods the log — so accepting pauses for a moment instead, while
/// timed-out clients give their descriptors back.
public final class UnixListener {
    public let address: UnixSocketAddress
    private let loop: EventLoop
    private let logger: Logger
    /// Names the log events: `<prefix>.refused-uid`, `<prefix>.accept-paused`.
    private let eventPrefix: String
    private var descriptor: FileDescriptor?
    public var onAccept: ((FileDescriptor) -> Void)?
    public var pauseMilliseconds: UInt64 = 100

    public init(address: UnixSocketAddress, loop: EventLoop, logger: Logger, eventPrefix: String) {
        self.address = address
        self.loop = loop
        self.logger = logger
        self.eventPrefix = eventPrefix
    }

    /// Binds (mode 0600) and starts accepting. The caller holds the home's lock and has removed a stale
    /// socket first.
    public func start() throws(SystemError) {
        let fd = try UnixSocket.listen(at: address)
        descriptor = fd
        loop.register(fd.rawValue, interest: .readable) { [unowned self] _ in self.acceptPending() }
    }

    /// Stops accepting, closes the socket and removes its file.
    public func stop() {
        guard let descriptor else { return }
        loop.unregister(descriptor.rawValue)
        descriptor.close()
        unlink(address.path)
        self.descriptor = nil
    }

    private func acceptPending() {
        guard let listener = descriptor else { return }
        while true {
            let fd: FileDescriptor
            do {
                guard let accepted = try UnixSocket.accept(from: listener) else { return }
                fd = accepted
            } catch {
                pause(error)
                return
            }
            let peer = try? UnixSocket.peerCredentials(of: fd)
            guard let peer, peer.uid == getuid() else {
                logger.warning("\(eventPrefix).refused-uid", [
                    "peerUID": peer.map { "\($0.uid)" } ?? "unknown",
                    "peerPID": peer.map { "\($0.pid)" } ?? "unknown", "ourUID": getuid(),
                ])
                fd.close()
                continue
            }
            onAccept?(fd)
        }
    }

    private func pause(_ error: SystemError) {
        guard let listener = descriptor else { return }
        logger.error("\(eventPrefix).accept-paused", ["error": "\(error)", "resumeInMs": pauseMilliseconds])
        loop.setInterest(listener.rawValue, [])
        loop.schedule(afterMilliseconds: pauseMilliseconds) { [weak self] in
            guard let self, let listener = self.descriptor else { return }
            self.loop.setInterest(listener.rawValue, .readable)
        }
    }
}
