import Connectivity
import Control
import Posix
import Storage

/// Watches the home a daemon serves, for the files in it that others can remove under it:
///
/// - the store file unlinked (or renamed over): the daemon stops acknowledging and exits non-zero
///   (`Database.onUnlinked`; the same check also runs before every commit and every acknowledgement);
/// - a socket file (`control.sock`, `link.sock`) removed or replaced: bound afresh at once, so the
///   daemon is never silently deaf; if something that is not a socket took its place, the daemon exits
///   non-zero rather than run deaf;
/// - the lock's pid file removed: written again (the lock itself is on the directory, so it held anyway).
///
/// `inotify` on the home says when to look; a once-a-second audit covers what it cannot (its queue
/// overflowing, a file system that does not report).
final class HomeGuard {
    typealias Failure = (_ event: String, _ reason: String) -> Void

    private let home: DeviceHome
    private let loop: EventLoop
    private let logger: Logger
    private let database: Database
    private let sockets: [() throws -> Void]
    private let onFailure: Failure
    private var watcher: DirectoryWatcher?
    private var timer: EventLoop.TimerID?
    static let auditIntervalMilliseconds: UInt64 = 1000
    private static let watchedNames: Set<String> = ["store.sqlite", "lock", "control.sock", "link.sock"]

    init(
        home: DeviceHome, loop: EventLoop, logger: Logger, database: Database,
        sockets: [() throws -> Void], onFailure: @escaping Failure
    ) {
        self.home = home
        self.loop = loop
        self.logger = logger
        self.database = database
        self.sockets = sockets
        self.onFailure = onFailure
    }

    func start() {
        if let watcher = try? DirectoryWatcher(directory: home.path, events: DirectoryWatcher.arrivalsAndRemovals) {
            self.watcher = watcher
            loop.register(watcher.descriptor.rawValue, interest: .readable) { [unowned self] _ in
                let names = watcher.drain()
                if names.isEmpty || names.contains(where: { $0.isEmpty || Self.watchedNames.contains($0) }) { self.audit() }
            }
        } else {
            logger.warning("home.watch-unavailable", ["home": home.path, "fallback": "audit every \(Self.auditIntervalMilliseconds) ms"])
        }
        scheduleAudit()
    }

    func stop() {
        if let watcher { loop.unregister(watcher.descriptor.rawValue) }
        watcher = nil
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    private func scheduleAudit() {
        timer = loop.schedule(afterMilliseconds: Self.auditIntervalMilliseconds) { [weak self] in
            guard let self, self.timer != nil else { return }
            self.audit()
            if self.timer != nil { self.scheduleAudit() }
        }
    }

    /// Looks at every file the daemon depends on, and repairs or reports.
    func audit() {
        guard database.isOpen else { return }
        guard database.isStillLinked else {
            // Reported through the database, which the runtime turns into an exit.
            database.reportUnlinked(during: "watching the home")
            return
        }
        if Filesystem.kind(of: home.lockPath) == .missing {
            FileLock.writePID(to: home.lockPath)
            logger.warning("home.lock-file-restored", ["path": home.lockPath, "note": "the lock is on the home directory; it was never released"])
        }
        for ensureBound in sockets {
            do {
                try ensureBound()
            } catch {
                onFailure("home.socket-lost", "cannot listen any more: \(error)")
                return
            }
        }
    }
}
