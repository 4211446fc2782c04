import Control
import Connectivity
import Glibc
import Posix
import Storage

/// What every device process shares: the event loop, the signal descriptor, the home's lock, the store's
/// health check and seal, the guard on the home's files, the `ready` line and the graceful shutdown on
/// SIGTERM or SIGINT.
public final class DaemonRuntime {
    public let loop = EventLoop()
    public let logger: Logger
    public let home: DeviceHome
    private let signals: SignalSource
    private var lock: FileLock?
    private var shutdownHandlers: [() -> Void] = []
    private(set) var stopSignal: Int32?
    /// Fault-injection control commands (`store-limit`) are accepted only when this is set
    /// (`--enable-test-commands`).
    public var testCommandsEnabled = false
    /// Set when the daemon must stop because something it depends on is gone: the exit status.
    private var failure: (event: String, reason: String)?
    private var database: Database?
    private var guardian: HomeGuard?

    /// Resets the signal mask first (a parent on a Dispatch thread may have blocked SIGTERM), then
    /// routes SIGTERM and SIGINT through the event loop.
    public init(home: DeviceHome, logger: Logger) throws {
        self.home = home
        self.logger = logger
        signals = try SignalSource([SIGTERM, SIGINT, SIGHUP])
        loop.register(signals.descriptor.rawValue, interest: .readable) { [unowned self] _ in
            for signal in self.signals.drain() {
                // A closed terminal or a supervisor's reload: logs go to stderr, so there is nothing to
                // reopen; the daemon says so and carries on.
                if signal == SIGHUP {
                    self.logger.notice("daemon.signal", ["signal": "SIGHUP", "action": "ignored (logs go to stderr; nothing to reopen)"])
                    continue
                }
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
            case let .alreadyRunning(home, pid?): "\(home) is already served by process \(pid) (it holds the lock on \(home))"
            case let .alreadyRunning(home, nil): "\(home) is already served by another process (it holds the lock on \(home))"
            case let .other(text): text
            }
        }
    }

    /// Creates the home if needed, takes its lock, and removes the sockets a killed daemon left behind —
    /// only now, as the lock's holder, and only if they are sockets.
    ///
    /// The lock is an `flock` on the home directory itself, not on a file in it: removing `HOME/lock`
    /// (which only holds the pid, for messages) cannot let a second daemon in.
    public func claimHome(supervised: Set<String> = []) throws {
        try home.prepare()
        do {
            lock = try FileLock(directory: home.path, pidFile: home.lockPath)
        } catch let .heldBy(pid, _) {
            throw StartError.alreadyRunning(home: home.path, pid: pid)
        } catch let .system(error) {
            throw error
        }
        var stale = [try home.controlSocketAddress()]
        if home.role == .phone { stale.append(try home.linkSocketAddress()) }
        for address in stale where !supervised.contains(String(address.path.split(separator: "/").last ?? "")) {
            switch Filesystem.kind(of: address.path) {
            case .missing:
                continue
            case .socket:
                try UnixSocket.removeStaleSocket(at: address)
                logger.info("daemon.stale-socket-removed", ["socket": address.path])
            case let kind:
                // Not ours to delete: someone put it there, and it may matter to them.
                throw StartError.other(
                    "\(address.path) exists and is \(kind == .directory ? "a directory" : kind == .regular ? "a regular file" : "not a socket"), not a socket: refusing to remove it (move it away, then start again)"
                )
            }
        }
    }

    /// Opens the home's store for the daemon's lifetime: migrated, health-checked unless the last daemon
    /// stopped cleanly and nothing touched the store since (`StoreSeal`), its write-ahead log copied into
    /// it on a thread of its own — never in the middle of a receive — and closed at shutdown. A store
    /// unlinked while open stops the daemon (exit 1) before anything more is acknowledged.
    public func openStore() throws -> Database {
        if testCommandsEnabled {
            logger.warning("startup.test-commands-enabled", ["effect": "fault-injection control commands are accepted"])
        }
        let started = SystemClock.now()
        let (database, checkedBecause) = try home.openStore(check: .unlessSealed)
        let milliseconds = Double(SystemClock.now() - started) / 1e6
        if let checkedBecause {
            logger.info("startup.store-checked", ["check": "quick_check", "reason": checkedBecause, "ms": milliseconds])
        } else {
            logger.info("startup.store-trusted", ["reason": "sealed at a clean shutdown, unchanged since", "ms": milliseconds])
        }
        self.database = database
        database.onUnlinked = { [unowned self] why in self.fail("store.unlinked", why) }
        onShutdown { database.close() }
        let checkpointer = try Checkpointer(owner: database)
        onShutdown { checkpointer.stop() }
        return database
    }

    /// Stops the daemon because something it depends on is gone: logged (stderr), nothing more is
    /// acknowledged, and the exit status is 1. The store is not sealed: the next start checks it.
    public func fail(_ event: String, _ reason: String) {
        guard failure == nil else { return }
        failure = (event, reason)
        logger.error(event, ["reason": reason, "action": "stopped acknowledging; shutting down with exit status 1"])
        loop.stop()
    }

    /// Runs `body` at shutdown, in reverse order of registration.
    public func onShutdown(_ body: @escaping () -> Void) {
        shutdownHandlers.append(body)
    }

    /// Tells whoever started us that we accept connections.
    public func announceReady() {
        let line = Array("ready\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        ServiceNotifier.notify("READY=1\nMAINPID=\(getpid())")
        logger.info("daemon.ready", ["home": home.path, "pid": getpid()])
    }

    /// Watches the home's files for the daemon's lifetime (`HomeGuard`): the store, and the sockets
    /// `sockets` bind again if they go.
    func guardHome(database: Database, sockets: [() throws -> Void]) {
        let guardian = HomeGuard(
            home: home, loop: loop, logger: logger, database: database, sockets: sockets,
            onFailure: { [unowned self] event, reason in self.fail(event, reason) })
        self.guardian = guardian
        guardian.start()
        onShutdown { guardian.stop() }
    }

    /// Runs the loop until SIGTERM/SIGINT (or a failure), then shuts down: every transaction in flight
    /// has finished (they complete within one loop iteration), sockets are closed and unlinked.
    public func run(mailbox: LoopMailbox? = nil) -> Int32 {
        do {
            // A failure before the loop ran (the store unlinked during start-up) must not be forgotten:
            // `EventLoop.run` starts by clearing any earlier `stop()`.
            if failure == nil {
                if let mailbox { try mailbox.run() } else { try loop.run() }
            }
        } catch {
            logger.error("daemon.loop-failed", ["error": "\(error)"])
            failure = failure ?? ("daemon.loop-failed", "\(error)")
        }
        shutdown()
        return failure == nil ? 0 : 1
    }

    private func shutdown() {
        ServiceNotifier.notify("STOPPING=1")
        for handler in shutdownHandlers.reversed() { handler() }
        shutdownHandlers.removeAll()
        sealStore()
        lock?.unlock()
        logger.info("daemon.stopped", ["home": home.path, "clean": failure == nil])
    }

    /// After a clean shutdown (every connection to the store closed), records the store's seal so that
    /// the next start may skip the full health check.
    private func sealStore() {
        guard failure == nil, let database, !database.isOpen else { return }
        do {
            let sealed = try StoreSeal.write(home: home)
            logger.info("shutdown.store-sealed", ["sealed": sealed])
        } catch {
            logger.warning("shutdown.store-not-sealed", ["error": "\(error)"])
        }
    }
}
