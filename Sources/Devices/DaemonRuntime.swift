import Connectivity
import Glibc
import Posix
import Storage

/// What the two daemons share: the event loop, the signal descriptor, the home's lock, the `ready`
/// line and the graceful shutdown on SIGTERM or SIGINT.
public final class DaemonRuntime {
    public let loop = EventLoop()
    public let logger: Logger
    public let home: DeviceHome
    private let signals: SignalSource
    private var lock: FileLock?
    private var shutdownHandlers: [() -> Void] = []
    private(set) var stopSignal: Int32?

    /// Resets the signal mask first (a parent on a Dispatch thread may have blocked SIGTERM), then
    /// routes SIGTERM and SIGINT through the event loop.
    public init(home: DeviceHome, logger: Logger) throws {
        self.home = home
        self.logger = logger
        signals = try SignalSource([SIGTERM, SIGINT])
        loop.register(signals.descriptor.rawValue, interest: .readable) { [unowned self] _ in
            for signal in self.signals.drain() {
                self.logger.notice("daemon.signal", ["signal": signal == SIGTERM ? "SIGTERM" : "SIGINT", "action": "shutting down"])
                self.stopSignal = signal
                self.loop.stop()
            }
        }
    }

    public enum StartError: Error, CustomStringConvertible {
        case alreadyRunning(home: String, pid: Int32?)
        case other(String)

        public var description: String {
            switch self {
            case let .alreadyRunning(home, pid?): "\(home) is already served by process \(pid) (it holds \(home)/lock)"
            case let .alreadyRunning(home, nil): "\(home) is already served by another process (it holds \(home)/lock)"
            case let .other(text): text
            }
        }
    }

    /// Creates the home if needed, takes its lock, and removes the sockets a killed daemon left behind —
    /// only now, as the lock's holder, and only if they are sockets.
    public func claimHome() throws {
        try home.prepare()
        do {
            lock = try FileLock(path: home.lockPath)
        } catch let .heldBy(pid, _) {
            throw StartError.alreadyRunning(home: home.path, pid: pid)
        } catch let .system(error) {
            throw error
        }
        var stale = [try home.controlSocketAddress()]
        if home.role == .phone { stale.append(try home.linkSocketAddress()) }
        for address in stale {
            switch Filesystem.kind(of: address.path) {
            case .missing:
                continue
            case .socket:
                try UnixSocket.removeStaleSocket(at: address)
                logger.info("daemon.stale-socket-removed", ["socket": address.path])
            case let kind:
                // Not ours to delete: someone put it there, and it may matter to them.
                throw StartError.other("\(address.path) exists and is \(kind == .directory ? "a directory" : kind == .regular ? "a regular file" : "not a socket"), not a socket: refusing to remove it (move it away, then start again)")
            }
        }
    }

    /// Opens the home's store for the daemon's lifetime: health-checked and migrated (`DeviceHome`),
    /// its write-ahead log copied into it on a thread of its own — never in the middle of a receive —
    /// and closed at shutdown.
    public func openStore() throws -> Database {
        let database = try home.openStore()
        onShutdown { database.close() }
        let checkpointer = try Checkpointer(owner: database)
        onShutdown { checkpointer.stop() }
        return database
    }

    /// Runs `body` at shutdown, in reverse order of registration.
    public func onShutdown(_ body: @escaping () -> Void) {
        shutdownHandlers.append(body)
    }

    /// Tells whoever started us that we accept connections.
    public func announceReady() {
        let line = Array("ready\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        logger.info("daemon.ready", ["home": home.path, "pid": getpid()])
    }

    /// Activates `session` — the last step of start-up — and serves: once the session is activated the
    /// control socket opens and the daemon says `ready`; then the loop runs until SIGTERM. Returns the
    /// exit status, or throws what stopped the start-up. `install` hands the activation handler to the
    /// app's session delegate; `whenReady` runs just before `ready` is announced.
    public func serve(_ session: Session, control: ControlServer,
                      install: (@escaping (ActivationState, Error?) -> Void) -> Void,
                      whenReady: @escaping () -> Void = {}) throws -> Int32 {
        var startupError: Error?
        var started = false
        install { [unowned self] state, error in
            // A later activation (after the paired device was switched) changes nothing here.
            guard !started else { return }
            guard state == .activated else {
                startupError = error ?? WCError(.genericError, "activation failed")
                self.loop.stop()
                return
            }
            do {
                try control.start()
            } catch {
                startupError = error
                self.loop.stop()
                return
            }
            started = true
            self.onShutdown {
                control.stop()
                session.deactivate()
            }
            whenReady()
            self.announceReady()
        }
        try session.activate()
        logger.info("startup.session-activating")
        let status = run()
        if let startupError { throw startupError }
        return status
    }

    /// Runs the loop until SIGTERM/SIGINT, then shuts down: every transaction in flight has finished
    /// (they complete within one loop iteration), sockets are closed and unlinked.
    public func run() -> Int32 {
        do {
            try loop.run()
        } catch {
            logger.error("daemon.loop-failed", ["error": "\(error)"])
            shutdown()
            return 1
        }
        shutdown()
        return 0
    }

    private func shutdown() {
        for handler in shutdownHandlers.reversed() { handler() }
        shutdownHandlers.removeAll()
        lock?.unlock()
        logger.info("daemon.stopped", ["home": home.path])
    }
}
