import Posix

/// The phone's side of the link: listens on `link.sock` in its home and accepts the paired watch.
package final class UnixLinkListener: LinkTransport {
    package let address: UnixSocketAddress
    private let loop: EventLoop
    private let logger: Logger
    private let listener: UnixListener
    private var connections: [ObjectIdentifier: UnixLinkConnection] = [:]
    /// At most this many connections in their handshake at once; a new one evicts the oldest (a flood of
    /// idle connections must neither starve the real watch of descriptors nor keep it out).
    package var maximumPendingHandshakes = 64
    /// How long a new connection has to complete its handshake (a silent or trickling client is closed).
    package var handshakeTimeoutMilliseconds: UInt64 = 5000

    package init(address: UnixSocketAddress, loop: EventLoop, logger: Logger) {
        self.address = address
        self.loop = loop
        self.logger = logger
        listener = UnixListener(address: address, loop: loop, logger: logger, eventPrefix: "link")
    }

    /// Connections a supervisor accepted before it launched us (`phone-os`): served as if we had.
    private var adoptedConnections: [FileDescriptor] = []

    /// Listens on the supervisor's socket instead of binding one (socket activation).
    package func adopt(listener fd: FileDescriptor) { listener.adopt(fd) }

    /// Serves a connection the supervisor accepted (its first frame still unread) once started.
    package func adopt(connection fd: FileDescriptor) { adoptedConnections.append(fd) }

    /// The OS says the watch is in range and retrying (phone-os, `RUNWAY_WATCH_NEARBY`): it connects soon.
    package var counterpartExpected = false

    /// A watch's connection the OS accepted is waiting, or the watch is about to connect: its handshake
    /// brings the watch's state.
    package var expectsLinkAtStart: Bool { !adoptedConnections.isEmpty || counterpartExpected }

    package func start(_ session: Session) throws {
        listener.onAccept = { [unowned self, unowned session] fd in self.accepted(fd, session) }
        try listener.start()
        logger.info("link.listening", ["socket": address.path, "supervised": listener.isSupervised])
        let adopted = adoptedConnections
        adoptedConnections = []
        for fd in adopted { accepted(fd, session) }
    }

    package func stop() {
        for connection in connections.values { connection.close(error: nil, reason: "phone shutting down") }
        connections.removeAll()
        listener.stop()
    }

    private var nextSerial: UInt64 = 0

    /// At the cap, the oldest connection still in its handshake is closed to make room for the new one:
    /// the paired watch says hello as soon as it connects, so a flood of silent connections can delay it
    /// by at most the time 64 newer ones take to arrive — it is never locked out.
    /// Binds `link.sock` afresh if its file was removed (see `UnixListener.ensureBound`).
    @discardableResult
    package func ensureBound() throws -> UnixListener.BindingState { try listener.ensureBound() }

    private func accepted(_ fd: FileDescriptor, _ session: Session) {
        let pending = connections.values.filter { $0.state == .handshaking }
        if pending.count >= maximumPendingHandshakes, let oldest = pending.min(by: { $0.serial < $1.serial }) {
            logger.warning("link.too-many-handshakes", ["pending": pending.count, "action": "evicted-oldest"])
            oldest.close(error: nil, reason: "evicted: too many connections in their handshake")
        }
        UnixSocket.setBufferSizes(of: fd, bytes: 4 << 20)
        nextSerial += 1
        let connection = UnixLinkConnection(
            stream: SocketStream(descriptor: fd, loop: loop), side: .acceptor, session: session, loop: loop, logger: logger)
        connection.serial = nextSerial
        connections[ObjectIdentifier(connection)] = connection
        connection.onClose = { [unowned self] connection, _, _ in
            self.connections[ObjectIdentifier(connection)] = nil
        }
        connection.start(handshakeTimeoutMilliseconds: handshakeTimeoutMilliseconds)
    }
}

/// The watch's side of the link: connects to the phone's link socket, and while the phone is down (or
/// out of range) keeps retrying with exponential backoff. Transfers keep queueing in the outbox meanwhile.
package final class UnixLinkConnector: LinkTransport {
    private let loop: EventLoop
    private let logger: Logger
    private var connection: UnixLinkConnection?
    private weak var session: Session?
    private var retryTimer: EventLoop.TimerID?
    private var attempt = 0
    private var running = false
    private var lastFailure = ""
    private var storageFailures = 0
    private var phoneWatcher: DirectoryWatcher?
    /// Backoff bounds, in milliseconds.
    package var initialBackoffMilliseconds: UInt64 = 20
    package var maximumBackoffMilliseconds: UInt64 = 1000
    /// How long the phone has to answer the hello.
    package var handshakeTimeoutMilliseconds: UInt64 = 5000

    /// While false the link is "out of range": no connection is made (`runway link down`).
    package var isEnabled = true {
        didSet {
            guard isEnabled != oldValue else { return }
            inRangeChanged(reason: "link taken down")
        }
    }

    /// The air the link's connections travel through (`runway link set`, docs/link-conditions.md).
    package let air = LinkAir()

    /// Not taken down (`runway link down`) and not out of range (`runway link set --range out`).
    private var mayConnect: Bool { isEnabled && air.conditions.range != .out }

    /// New conditions for the air: the connection in place carries on under them (frames already in the
    /// air keep their times); `range out` cuts it and keeps the watch from connecting, `near` or `wifi`
    /// connects again.
    package func setConditions(_ conditions: LinkConditions) {
        let before = mayConnect
        air.conditions = conditions
        if conditions.shape.isClear { connection?.landTheAir() }
        if mayConnect != before { inRangeChanged(reason: "out of range (runway link set --range out)") }
    }

    private func inRangeChanged(reason: String) {
        if mayConnect {
            attempt = 0
            connectSoon(afterMilliseconds: 0)
        } else {
            if let retryTimer { loop.cancel(retryTimer) }
            connection?.close(error: nil, reason: reason)
            session?.counterpartOutOfRange()
        }
    }

    package init(loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    package func start(_ session: Session) throws {
        self.session = session
        running = true
        connectSoon(afterMilliseconds: 0)
    }

    package func stop() {
        running = false
        if let retryTimer { loop.cancel(retryTimer) }
        if let phoneWatcher { loop.unregister(phoneWatcher.descriptor.rawValue) }
        phoneWatcher = nil
        connection?.close(error: nil, reason: "watch shutting down")
        connection = nil
    }

    package var isConnected: Bool { connection?.state == .established }

    /// What the current connection holds in the air now (`runway link show`).
    package var bytesInAir: Int { connection?.bytesInAir ?? 0 }

    /// In range (`runway link up`) and running: a waiting message may try to reach the phone.
    package var canWakeCounterpart: Bool { running && mayConnect }

    /// In range: the first connection, made at start, tells what the phone's side is.
    package var expectsLinkAtStart: Bool { mayConnect }

    /// Connects at once for a waiting message; a connection already in its handshake decides first.
    package func wakeCounterpart() {
        guard connection == nil else { return }
        attempt = 0
        connectSoon(afterMilliseconds: 0)
    }

    private func connectSoon(afterMilliseconds delay: UInt64) {
        if let retryTimer { loop.cancel(retryTimer) }
        retryTimer = loop.schedule(afterMilliseconds: delay) { [weak self] in
            self?.retryTimer = nil
            self?.connect()
        }
    }

    private func connect() {
        guard running, mayConnect, connection == nil, let session else { return }
        session.reloadPairing()
        guard let pairing = session.pairing else {
            session.linkAttemptFailed(WCError(.deviceNotPaired, "this watch is not paired"))
            scheduleRetry("not paired")
            return
        }
        let fd: FileDescriptor
        do {
            let address = try UnixSocketAddress(path: pairing.phoneLinkSocket)
            fd = try UnixSocket.connect(to: address)
        } catch {
            // Nobody listens on the phone's link socket: the phone is off or out of range.
            session.linkAttemptFailed(WCError(.notReachable, "the phone is not reachable (nothing listens on its link socket: \(error))"))
            session.counterpartOutOfRange()
            watchForPhone(socketPath: pairing.phoneLinkSocket)
            scheduleRetry("\(error)")
            return
        }
        UnixSocket.setBufferSizes(of: fd, bytes: 4 << 20)
        let connection = UnixLinkConnection(
            stream: SocketStream(descriptor: fd, loop: loop), side: .initiator, session: session, loop: loop, logger: logger, air: air)
        self.connection = connection
        connection.onClose = { [unowned self] connection, wasEstablished, reason in
            guard self.connection === connection else { return }
            self.connection = nil
            if wasEstablished { self.attempt = 0 }
            if !wasEstablished, let session = self.session, session.messagesAwaitingLinkCount > 0 {
                if let error = connection.peerError, connection.helloCarriedMessages {
                    // Turned away with a reason (a force-quit phone app): the messages fail with it.
                    session.linkAttemptFailed(error)
                } else if !connection.helloCarriedMessages {
                    // This hello predates the messages: say hello again at once, with them.
                    self.attempt = 0
                    self.connectSoon(afterMilliseconds: 0)
                    return
                }
            }
            switch connection.peerError?.code {
            case .deviceNotPaired?, .companionAppNotInstalled?:
                // Refused for not being paired: retrying at full speed would only flood both logs.
                self.attempt = max(self.attempt, 16)
            case .insufficientSpace?, .deliveryFailed?:
                // The phone could not store what we sent (a full disk): keep everything, back off, retry.
                self.storageFailures += 1
                self.attempt = max(self.attempt, min(4 + self.storageFailures, 16))
            case nil where wasEstablished:
                self.storageFailures = 0
            default:
                break
            }
            self.scheduleRetry(reason)
        }
        connection.start(handshakeTimeoutMilliseconds: handshakeTimeoutMilliseconds)
    }

    /// While the phone is down, watch its home for the link socket to appear: connect at once when it
    /// does, rather than when the backoff next allows. (The backoff still runs: it covers a phone whose
    /// home cannot be watched, and a socket that exists before its listener is ready.)
    private func watchForPhone(socketPath: String) {
        let directory = String(socketPath[..<(socketPath.lastIndex(of: "/") ?? socketPath.startIndex)])
        guard phoneWatcher?.directory != directory, !directory.isEmpty else { return }
        if let old = phoneWatcher { loop.unregister(old.descriptor.rawValue) }
        phoneWatcher = nil
        guard let watcher = try? DirectoryWatcher(directory: directory) else { return }
        phoneWatcher = watcher
        let name = String(socketPath[socketPath.index(after: socketPath.lastIndex(of: "/")!)...])
        loop.register(watcher.descriptor.rawValue, interest: .readable) { [unowned self, unowned watcher] _ in
            guard watcher.drain().contains(name), self.connection == nil, self.mayConnect, self.running else { return }
            self.attempt = 0
            self.connectSoon(afterMilliseconds: 0)
        }
    }

    private func scheduleRetry(_ reason: String) {
        guard running, mayConnect else { return }
        let exponent = min(attempt, 16)
        let base = min(maximumBackoffMilliseconds, initialBackoffMilliseconds << UInt64(exponent))
        let delay = base / 2 + UInt64.random(in: 0...(base / 2))
        if attempt == 0 || reason != lastFailure {
            logger.info("link.retry", ["reason": reason, "inMs": delay])
        }
        lastFailure = reason
        attempt += 1
        connectSoon(afterMilliseconds: delay)
    }
}
