import Glibc

/// A listening Unix socket on the event loop: accepts connections from processes of this user only
/// (`SO_PEERCRED`; a peer whose credentials cannot be read is refused too) and hands each to `onAccept`.
///
/// Out of descriptors (`EMFILE` and the like) the pending connection stays queued and `poll` would report
/// it again at once — a busy loop that floods the log — so accepting pauses for a moment instead, while
/// timed-out clients give their descriptors back.
package final class UnixListener {
    package let address: UnixSocketAddress
    private let loop: EventLoop
    private let logger: Logger
    /// Names the log events: `<prefix>.refused-uid`, `<prefix>.accept-paused`.
    private let eventPrefix: String
    private var descriptor: FileDescriptor?
    /// The socket file this listener bound, to tell it from one put at its path since.
    private var boundIdentity: Filesystem.Identity?
    package var onAccept: ((FileDescriptor) -> Void)?
    package var pauseMilliseconds: UInt64 = 100
    /// A socket a supervisor bound and passed us (socket activation): the supervisor owns its file, so
    /// it is never unlinked nor bound afresh here, only closed.
    private var adopted: FileDescriptor?
    package var isSupervised: Bool { adopted != nil || (descriptor != nil && boundIdentity == nil) }

    package init(address: UnixSocketAddress, loop: EventLoop, logger: Logger, eventPrefix: String) {
        self.address = address
        self.loop = loop
        self.logger = logger
        self.eventPrefix = eventPrefix
    }

    /// Binds (mode 0600) and starts accepting. The caller holds the home's lock and has removed a stale
    /// socket first.
    package func start() throws(SystemError) {
        if let fd = adopted {
            adopted = nil
            descriptor = fd
            boundIdentity = nil
            loop.register(fd.rawValue, interest: .readable) { [unowned self] _ in self.acceptPending() }
            return
        }
        let fd = try UnixSocket.listen(at: address)
        descriptor = fd
        boundIdentity = Filesystem.identity(of: address.path)
        loop.register(fd.rawValue, interest: .readable) { [unowned self] _ in self.acceptPending() }
    }

    /// Listens on `fd`, a socket the supervisor bound at `address` and passed (socket activation),
    /// instead of binding one: call before `start`.
    package func adopt(_ fd: FileDescriptor) {
        adopted = fd
    }

    /// Stops accepting, closes the socket and removes its file (not a supervisor's: only closed).
    package func stop() {
        guard let descriptor else { return }
        loop.unregister(descriptor.rawValue)
        descriptor.close()
        // Only our own socket file: one put there since is not ours to remove.
        if let boundIdentity, Filesystem.identity(of: address.path) == boundIdentity { unlink(address.path) }
        self.descriptor = nil
        boundIdentity = nil
    }

    package enum BindingState: Equatable, Sendable {
        /// The socket file at the path is the one this listener bound.
        case intact
        /// It was gone (removed, or moved away) or replaced by another socket: bound afresh.
        case rebound
    }

    /// Checks that the path still names the socket this listener bound, and binds afresh if it does not:
    /// a listener whose file was removed accepts nothing (clients get `ENOENT`), and must not stay deaf.
    /// Connections already accepted are untouched. Only the home lock's holder calls this; a socket at
    /// the path that is not ours is a stale one (nobody else may listen in a locked home) and is
    /// replaced; anything that is not a socket is left alone and the error is thrown.
    package func ensureBound() throws(SystemError) -> BindingState {
        guard let old = descriptor else { return .intact }
        // The supervisor's socket: its file is the supervisor's to keep, and binding our own in its
        // place would take the path from under the supervisor.
        guard boundIdentity != nil else { return .intact }
        let current = Filesystem.identity(of: address.path)
        if let current, current == boundIdentity { return .intact }
        if current != nil, Filesystem.kind(of: address.path) != .socket {
            throw SystemError("\(address.path) was replaced by something that is not a socket; refusing to remove it", errno: EEXIST)
        }
        loop.unregister(old.rawValue)
        old.close()
        descriptor = nil
        try UnixSocket.removeStaleSocket(at: address)
        try start()
        logger.warning("\(eventPrefix).socket-rebound", ["socket": address.path, "was": current == nil ? "removed" : "replaced"])
        return .rebound
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
                logger.warning(
                    "\(eventPrefix).refused-uid",
                    [
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
