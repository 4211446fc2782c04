import Control
import Connectivity
import Posix
import Storage

/// What every device process shares: the event loop, the signal descriptor, the home's lock, the store's
/// health check and seal, the guard on the home's files, the `ready` line and the graceful shutdown on
/// SIGTERM or SIGINT.
package final class DaemonRuntime {
    package let loop = EventLoop()
    package let logger: Logger
    package let home: DeviceHome
    private let signals: SignalSource
    private var lock: FileLock?
    private var shutdownHandlers: [() -> Void] = []
    private(set) var stopSignal: Int32?
    /// Fault-injection control commands (`store-limit`) are accepted only when this is set
    /// (`--enable-test-commands`).
    package var testCommandsEnabled = false
    /// Set when the daemon must stop because something it depends on is gone: the exit status.
    private var failure: (event: String, reason: String)?
    private var database: Database?
    private var guardian: HomeGuard?
    private var idleMemory: WhenIdle?
    private var idleNotice: WhenIdle?
    /// Whether the device's link has nothing on its way out (no frame in the air, nothing unsent): the
    /// app is suspended only then, so that what it sent before is not frozen with it (the link runs in the
    /// app's process here; on a device it is the system's). The device sets it once it has a session.
    package var linkIsQuiet: () -> Bool = { true }
    /// Why the store's full check is owed (an unclean stop), while it is: run after `ready`, off the
    /// critical path (`startOwedCheck`). Nil once the store is vouched for — sealed, checked before
    /// start-up, or by the background check — and only then may a clean stop seal it.
    private var owedCheck: String?
    private var backgroundCheck: BackgroundCheck?

    /// Resets the signal mask first (a parent on a Dispatch thread may have blocked SIGTERM), then
    /// routes SIGTERM and SIGINT through the event loop.
    package init(home: DeviceHome, logger: Logger) throws {
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

    package enum StartError: Error, CustomStringConvertible {
        case alreadyRunning(home: String, pid: Int32?)
        case other(String)

        package var description: String {
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
    package func claimHome(supervised: Set<String> = []) throws {
        try home.prepare()
        do {
            let (path, pidFile) = (home.path, home.lockPath)
            lock = try FileLock.takeWaitingForTheDead { () throws(FileLock.LockError) in try FileLock(directory: path, pidFile: pidFile) }
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

    /// Opens the home's store for the daemon's lifetime: migrated; health-checked before anything else
    /// when there is evidence against it (a broken seal, damage found before), trusted when the last
    /// daemon stopped cleanly and nothing touched it since (`StoreSeal`), and after an unclean stop
    /// checked in the background once the daemon is ready (`startOwedCheck`); its write-ahead log copied
    /// into it on a thread of its own — never in the middle of a receive — and closed at shutdown. A
    /// store unlinked while open, or found damaged, stops the daemon (exit 1) before anything more is
    /// committed or acknowledged.
    package func openStore() throws -> Database {
        if testCommandsEnabled {
            logger.warning("startup.test-commands-enabled", ["effect": "fault-injection control commands are accepted"])
        }
        let started = SystemClock.now()
        let opened = try home.openStore(check: .deferredAfterUncleanStop)
        let database = opened.database
        let milliseconds = Double(SystemClock.now() - started) / 1e6
        if let checkedBecause = opened.checkedBecause {
            logger.info("startup.store-checked", ["check": "quick_check", "reason": checkedBecause, "ms": milliseconds])
        } else if let deferredBecause = opened.deferredBecause {
            owedCheck = deferredBecause
            logger.info(
                "startup.store-check-deferred",
                ["check": "quick_check", "reason": deferredBecause, "when": "in the background once ready", "ms": milliseconds])
        } else {
            logger.info("startup.store-trusted", ["reason": "sealed at a clean shutdown, unchanged since", "ms": milliseconds])
        }
        self.database = database
        database.onUnlinked = { [unowned self] why in self.fail("store.unlinked", why) }
        database.onDamaged = { [unowned self] found in self.storeDamaged(found) }
        onShutdown { database.close() }
        try database.checkpointInBackground()
        return database
    }

    /// Starts the full check an unclean stop left owed, on its own thread and connection, once the
    /// daemon is ready. Damage found stops every commit and acknowledgement at once (`StoreHealth`), is
    /// recorded in `HOME/store-damaged` (the next start checks before anything else and refuses the
    /// store) and stops the daemon, exit 1. A check that passes vouches for the store: a clean stop may
    /// seal it again. One that cannot finish (a shutdown first) vouches for nothing: no seal, and the
    /// next start owes the check again.
    private func startOwedCheck() {
        guard let reason = owedCheck, backgroundCheck == nil, let database, !database.health.isDamaged else { return }
        let check: BackgroundCheck
        do {
            check = try BackgroundCheck(path: database.path, health: database.health)
        } catch {
            logger.warning("store.check-not-started", ["error": "\(error)", "effect": "the store is not vouched for: no seal at shutdown"])
            return
        }
        backgroundCheck = check
        logger.info("store.check-started", ["check": "quick_check", "reason": reason])
        // Before the store closes (handlers run in reverse): an unfinished check is interrupted.
        onShutdown { [unowned self] in
            self.loop.unregister(check.descriptor)
            check.stop()
        }
        loop.register(check.descriptor, interest: .readable) { [unowned self] _ in
            self.loop.unregister(check.descriptor)
            switch check.outcome {
            case let .healthy(milliseconds):
                self.owedCheck = nil
                self.logger.info("store.checked", ["check": "quick_check", "result": "ok", "ms": milliseconds])
            case let .damaged(problems):
                self.storeDamaged("quick_check: \(problems)")
            case let .unfinished(why):
                self.logger.warning("store.check-unfinished", ["reason": why, "effect": "the store is not vouched for: no seal at shutdown"])
            case nil:
                break
            }
        }
    }

    /// The store was found damaged: recorded for the next start, then the daemon stops (exit 1). By now
    /// nothing more is committed or acknowledged (`StoreHealth`).
    private func storeDamaged(_ found: String) {
        do {
            try Filesystem.writeAtomically(Array("runway store damaged at \(wallClockSeconds()): \(found)\n".utf8), to: home.damagePath)
        } catch {
            logger.error("store.damage-not-recorded", ["error": "\(error)"])
        }
        fail("store.damaged", "the store \(home.storePath) is damaged (\(found)); nothing more is committed or acknowledged; the next start checks it first")
    }

    /// Stops the daemon because something it depends on is gone: logged (stderr), nothing more is
    /// acknowledged, and the exit status is 1. The store is not sealed: the next start checks it.
    package func fail(_ event: String, _ reason: String) {
        guard failure == nil else { return }
        failure = (event, reason)
        logger.error(event, ["reason": reason, "action": "stopped acknowledging; shutting down with exit status 1"])
        loop.stop()
    }

    /// Runs `body` at shutdown, in reverse order of registration.
    package func onShutdown(_ body: @escaping () -> Void) {
        shutdownHandlers.append(body)
    }

    /// Tells whoever started us that we accept connections.
    package func announceReady() {
        let line = Array("ready\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        ServiceNotifier.notify("READY=1\nMAINPID=\(getpid())")
        logger.info("daemon.ready", ["home": home.path, "pid": getpid()])
        FreeMemory.releaseUnused()
        startIdleMemory()
        startIdleNotice()
        startOwedCheck()
    }

    /// Under an OS that suspends a background app once its work is done (`RUNWAY_IDLE_SUSPEND_MS`):
    /// `X_IDLE=1` once per spell of that long with nothing heard — no frame, no client, no file event.
    /// The OS decides (only a ready background app, with its first delivery made, no task open and no
    /// workout, is suspended: `DeviceOSSuspension.swift`).
    private func startIdleNotice() {
        guard idleNotice == nil, let interval = AppLaunch.idleMilliseconds else { return }
        let idle = WhenIdle(loop: loop, intervalMilliseconds: interval, when: { [unowned self] in self.linkIsQuiet() }) { AppLaunch.reportIdle() }
        idleNotice = idle
        idle.start()
        onShutdown { idle.stop() }
    }

    /// From now on, once the daemon has heard nothing for two seconds, it gives its memory back: the
    /// pages its stores cached and the statements they prepared (`Database.releaseIdleMemory`, read and
    /// prepared again when next needed) and the allocator's free space (`FreeMemory`). Once per idle spell. An idle phone-daemon
    /// otherwise held its stores' pages for ever (~300 kB after a first start, more after a drain):
    /// what a host running hundreds of pairs pays for each.
    private func startIdleMemory() {
        guard idleMemory == nil else { return }
        let idle = WhenIdle(loop: loop, intervalMilliseconds: 2000) { [logger] in
            let released = Database.releaseIdleMemory()
            let trimmed = FreeMemory.releaseUnused()
            logger.debug(
                "memory.idle-release", ["cachedPageBytes": released.cachedPages, "statementBytes": released.statements, "heapTrimmed": trimmed])
        }
        idleMemory = idle
        idle.start()
        onShutdown { idle.stop() }
    }

    /// The OS asks to suspend the app now (a watch app's tasks are complete): `X_IDLE=1` as soon as the
    /// link is quiet — polled every 20 ms, for at most two seconds.
    package func reportIdleWhenQuiet(attempt: Int = 0) {
        guard AppLaunch.idleMilliseconds != nil else { return }
        if linkIsQuiet() { return AppLaunch.reportIdle() }
        guard attempt < 100 else { return }
        loop.schedule(afterMilliseconds: 20) { [weak self] in self?.reportIdleWhenQuiet(attempt: attempt + 1) }
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
    package func run(mailbox: LoopMailbox? = nil) -> Int32 {
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
        if let owedCheck {
            logger.info("shutdown.store-not-sealed", ["reason": "the full check owed since start-up (\(owedCheck)) did not finish"])
            return
        }
        do {
            let sealed = try StoreSeal.write(home: home)
            logger.info("shutdown.store-sealed", ["sealed": sealed])
        } catch {
            logger.warning("shutdown.store-not-sealed", ["error": "\(error)"])
        }
    }
}
