import DeviceOS
import DeviceRuntime
import Control
import Connectivity
import Glibc
import JSONText
import Posix

/// The phone's simulated iOS (`phone-os`): it owns the phone's `link.sock` and launches the RunWay app
/// (`phone-daemon`) through the systemd socket-activation protocol, the way iOS launches an app in the
/// background when a transfer arrives for it, and reclaims it when its background time is up.
///
/// How the system learns what is pending (docs/protocol.md, "phone-os"): while the app is not running,
/// phone-os accepts the watch's connection itself and reads (`MSG_PEEK`, nothing consumed) its `hello`,
/// which carries `pendingTransfers`, the watch's outbox, and `pendingMessages`, messages waiting for the
/// link. Something pending → the app is launched with the listener and that connection (named `link` and
/// `connection`): the app reads the same `hello` and the drain starts, or the message is delivered.
/// Nothing pending → the connection is closed and nothing is launched; the watch retries (its backoff is
/// at most a second), so a run recorded later launches the app on the next attempt. The rule itself is
/// `PhoneOSLaunchRule`.
public final class PhoneOS {
    public struct Options: Sendable {
        public var home: String
        public var backgroundBudgetMilliseconds: UInt64 = 30_000
        /// How long a launch may take to report `READY=1` (and a background launch, after it, to make its
        /// first delivery) before phone-os gives up on it (`PhoneOSSupervision`).
        public var launchTimeoutMilliseconds: UInt64 = 20_000
        public var daemonPath: String
        public var appArguments: [String] = []
        public var logLevel: Logger.Level = .info
        /// The app's bundle id: its container is `HOME/apps/BUNDLE-ID`.
        public var bundleID = "com.runway.RunWay"
        public init(home: String, daemonPath: String) {
            self.home = home
            self.daemonPath = daemonPath
        }
    }

    public enum AppState: String { case notRunning = "not running", background, foreground, suspended }

    let options: Options
    let home: DeviceHome
    let loop = EventLoop()
    let logger: Logger
    private let signals: SignalSource
    private var osLock: FileLock?
    private var listener: FileDescriptor?
    private var listenerIdentity: Filesystem.Identity?
    var control: ControlServer?
    private var notifySocket: FileDescriptor?
    private var notifyPath: String { PhoneActivation.osNotifyPath(home) }
    public static func controlPath(_ home: String) -> String { DeviceHome(path: home, role: .phone).osControlSocketPath }

    var childPID: pid_t = 0
    var state: AppState = .notRunning
    var stateBeforeSuspend: AppState = .background
    var forceQuit = false
    /// The app installed or not, the phone locked or not (`PhoneOSDevice.swift`).
    var device: PhoneDeviceState
    /// When a launch ends and how the next is paced (`PhoneOSSupervision`), and the one timer for its
    /// next deadline.
    var supervision: PhoneOSSupervision
    var supervisionTimer: EventLoop.TimerID?
    /// Set when phone-os itself kills or stops the app (a reclaim, jetsam, force-quit, the watchdog,
    /// shutdown): its exit is then no failure of the app's.
    var endingApp = false
    var killedNeverReady = false
    var failures = 0
    var launches: [String: Int] = [:]
    var reclaims = 0
    var jetsams = 0
    var declined = 0
    var readyReports = 0
    var lastLaunchReason = ""
    /// `runway phone app open` arrived while the app was being killed: it is launched in the foreground
    /// once reaped.
    var openAfterExit = false
    /// `runway phone app open` calls waiting for the app they launched to report READY=1.
    var openWaiters: [ControlConnection] = []
    /// The OS's services (`PhoneOSServices.swift`): the clock and the notification centre.
    var system: SystemServices?
    /// What the watch last said it had pending for the app (`status` while the app does not run).
    var lastHello: (transfers: Int64, messages: Int64, at: Double?) = (0, 0, nil)
    /// The app's container: what it is launched in.
    var container: AppContainer { AppContainer(home: home.path, bundleID: options.bundleID) }
    /// Connections accepted while the app is down, whose `hello` is awaited.
    private var peeking: [Int32: (fd: FileDescriptor, deadline: UInt64)] = [:]

    public init(options: Options) throws {
        self.options = options
        home = DeviceHome(path: options.home, role: .phone)
        device = PhoneDeviceState.load(home)
        logger = Logger(component: "phone-os", minimumLevel: options.logLevel)
        supervision = PhoneOSSupervision(
            budgetMilliseconds: options.backgroundBudgetMilliseconds, launchTimeoutMilliseconds: options.launchTimeoutMilliseconds)
        signals = try SignalSource([SIGTERM, SIGINT, SIGCHLD, SIGHUP])
    }

    public struct Conflict: Error, CustomStringConvertible { public let description: String }

    private static func takeLock(_ path: String, home: String) throws -> FileLock {
        let result: Result<FileLock, FileLock.LockError>
        do { result = .success(try FileLock(path: path)) } catch { result = .failure(error) }
        switch result {
        case let .success(lock): return lock
        case let .failure(.heldBy(pid, _)):
            throw Conflict(description: "\(home) is already run by phone-os\(pid.map { " (process \($0))" } ?? "")")
        case let .failure(.system(error)): throw error
        }
    }

    /// Runs until SIGTERM; returns the exit status.
    public func run() throws -> Int32 {
        try home.prepare()
        osLock = try Self.takeLock(PhoneActivation.osLockPath(home), home: home.path)
        if FileLock.holder(ofDirectory: home.path, pidFile: home.lockPath) != nil {
            do {
                try takeHomeFromItsHolder()
            } catch {
                osLock?.unlock()
                throw error
            }
        }
        // The home is ours: a link.sock or os.sock left here is stale (nobody may listen in it now).
        for path in [home.linkSocketPath, Self.controlPath(home.path), notifyPath] {
            switch Filesystem.kind(of: path) {
            case .missing: continue
            case .socket: unlink(path)
            default: throw Conflict(description: "\(path) exists and is not a socket: refusing to remove it")
            }
        }
        try startServices()
        let link = try UnixSocket.listen(at: try home.linkSocketAddress())
        listener = link
        listenerIdentity = Filesystem.identity(of: home.linkSocketPath)
        try openNotifySocket()
        let server = ControlServer(
            address: try UnixSocketAddress(path: Self.controlPath(home.path)), role: .phone,
            home: home.path, loop: loop, logger: logger)
        server.handler = makeRouter().route
        try server.start()
        control = server
        loop.register(signals.descriptor.rawValue, interest: .readable) { [unowned self] _ in self.signalsArrived() }
        watchListener(true)

        let line = Array("ready\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        ServiceNotifier.notify("READY=1\nMAINPID=\(getpid())")
        logger.info("os.ready", ["home": home.path, "pid": getpid(), "backgroundBudgetMs": options.backgroundBudgetMilliseconds])
        try loop.run()
        shutdown()
        return 0
    }

    private func shutdown() {
        if childPID > 0 {
            logger.info("os.stopping-app", ["pid": childPID])
            endingApp = true
            if state == .suspended { kill(childPID, SIGCONT) }
            kill(childPID, SIGTERM)
            var status: Int32 = 0
            for _ in 0..<1000 {
                if waitpid(childPID, &status, WNOHANG) == childPID { childPID = 0; break }
                usleep(10_000)
            }
            if childPID > 0 { kill(childPID, SIGKILL); waitpid(childPID, &status, 0); childPID = 0 }
        }
        for (_, entry) in peeking { entry.fd.close() }
        peeking.removeAll()
        control?.stop()
        if let listener {
            listener.close()
            if let listenerIdentity, Filesystem.identity(of: home.linkSocketPath) == listenerIdentity { unlink(home.linkSocketPath) }
        }
        notifySocket?.close()
        unlink(notifyPath)
        system?.database.close()
        logger.info("os.stopped", ["home": home.path])
        osLock?.unlock()
    }

    // MARK: - Signals and the app's life

    private func signalsArrived() {
        for signal in signals.drain() {
            if signal == SIGCHLD { reap(); continue }
            if signal == SIGHUP {
                // As the daemons do: the log is stderr, there is nothing to reopen.
                logger.notice("os.signal", ["signal": "SIGHUP", "action": "ignored"])
                continue
            }
            logger.notice("os.signal", ["signal": signal == SIGTERM ? "SIGTERM" : "SIGINT", "action": "stopping the app, shutting down"])
            loop.stop()
        }
    }

    func reap() {
        var status: Int32 = 0
        while childPID > 0 {
            let pid = waitpid(childPID, &status, WNOHANG)
            guard pid == childPID else { return }
            let signalled = (status & 0x7f) != 0
            logger.info("os.app-exited", ["pid": pid, signalled ? "signal" : "status": signalled ? status & 0x7f : (status >> 8) & 0xff])
            childPID = 0
            state = .notRunning
            let how = signalled ? "was killed by signal \(status & 0x7f)" : "exited with status \((status >> 8) & 0xff)"
            if let failure = supervision.exited(at: loop.nowNanoseconds, endedByOS: endingApp, neverReady: killedNeverReady, how: how) {
                failures += 1
                logger.warning(
                    "os.app-failed",
                    [
                        "pid": pid, "reason": failure, "failuresInARow": supervision.failuresInARow,
                        "nextBackgroundLaunchInMs": supervision.backoffRemaining(at: loop.nowNanoseconds) / 1_000_000,
                    ])
            }
            endingApp = false
            killedNeverReady = false
            rearmSupervision()
            watchListener(true)
            if openAfterExit {
                openAfterExit = false
                launch(.foreground, reason: "user opened the app", reasonKey: "user", connection: nil)
                if childPID > 0 { continue }
            }
            answerOpenWaiters("the app exited before it was ready (see the log)")
        }
    }

    /// While the app is down, phone-os accepts on the link itself; while it runs, the app does.
    func watchListener(_ on: Bool) {
        guard let listener else { return }
        if on {
            loop.register(listener.rawValue, interest: .readable) { [unowned self] _ in self.acceptPending() }
        } else {
            loop.unregister(listener.rawValue)
        }
    }

    private func acceptPending() {
        guard let listener, childPID == 0 else { return }
        while let fd = try? UnixSocket.accept(from: listener) {
            guard let peer = try? UnixSocket.peerCredentials(of: fd), peer.uid == getuid() else { fd.close(); continue }
            let deadline = loop.nowNanoseconds + 5_000_000_000
            peeking[fd.rawValue] = (fd, deadline)
            loop.register(fd.rawValue, interest: .readable) { [unowned self] _ in self.peek(fd.rawValue) }
            loop.schedule(afterMilliseconds: 5000) { [weak self] in self?.dropPeek(fd.rawValue, "no hello within 5 s") }
        }
    }

    private func dropPeek(_ raw: Int32, _ reason: String) {
        guard let entry = peeking.removeValue(forKey: raw) else { return }
        loop.unregister(raw)
        entry.fd.close()
        logger.info("os.connection-closed", ["reason": reason])
    }

    /// Reads the watch's `hello` without consuming it.
    private func peek(_ raw: Int32) {
        guard let entry = peeking[raw] else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let n = buffer.withUnsafeMutableBytes { recv(raw, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
        if n <= 0 {
            if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
            dropPeek(raw, "the watch closed the connection")
            return
        }
        guard n >= 6 else { return retryPeekLater(raw) }
        let length = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
        guard length >= 2, length <= 60 * 1024, buffer[4] == Frame.protocolVersion, buffer[5] == FrameType.hello.rawValue else {
            return dropPeek(raw, "the first frame is not a hello")
        }
        guard n >= 4 + length else { return retryPeekLater(raw) }
        guard let hello = try? Handshake(decoding: Array(buffer[6..<(4 + length)])) else {
            return dropPeek(raw, "the hello could not be read")
        }
        peeking[raw] = nil
        loop.unregister(raw)
        lastHello = (hello.pendingTransfers, hello.pendingMessages, wallClockSeconds())
        if childPID != 0 {
            // The app was launched meanwhile (another connection): the watch reconnects to it.
            entry.fd.close()
            return
        }
        let backoff = supervision.backoffRemaining(at: loop.nowNanoseconds)
        let backingOff =
            backoff == 0
            ? nil
            : "the app failed \(supervision.failuresInARow) time(s) in a row (last: \(supervision.lastFailure ?? "?")): no background launch for \((backoff + 999_999) / 1_000_000) ms"
        let store = SessionStoreSnapshot.read(home: home)
        switch PhoneOSLaunchRule.decide(
            hello, forceQuit: forceQuit, backingOff: backingOff, installed: device.appInstalled, lockedAfterReboot: device.lockedAfterReboot,
            activeWatch: store.activeWatch, pairedWatches: store.watches.map(\.watchDeviceID))
        {
        case let .launch(reasonKey, reason):
            launch(.background, reason: reason, reasonKey: reasonKey, connection: entry.fd)
        case let .decline(reason, error):
            declined += 1
            logger.info(
                "os.no-launch",
                [
                    "reason": reason, "pendingTransfers": hello.pendingTransfers,
                    "pendingMessages": hello.pendingMessages, "refusedWith": error.map { "\($0.code.rawValue)" } ?? "-",
                ])
            if let error {
                PhoneOSLaunchRule.refuse(entry.fd, helloLength: 4 + length, error)
            } else {
                PhoneOSLaunchRule.tellInstalled(entry.fd, helloLength: 4 + length)
            }
            entry.fd.close()
        }
    }

    private func retryPeekLater(_ raw: Int32) {
        // Part of the hello so far: look again shortly rather than spin on a readable socket.
        loop.setInterest(raw, [])
        loop.schedule(afterMilliseconds: 5) { [weak self] in
            guard let self, self.peeking[raw] != nil else { return }
            self.loop.setInterest(raw, .readable)
        }
    }

    // MARK: - Launching

    private func openNotifySocket() throws {
        let raw = try systemCall("socket") {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        }
        let fd = FileDescriptor(adopting: raw)
        let address = try UnixSocketAddress(path: notifyPath)
        let previous = umask(0o177)
        defer { umask(previous) }
        try address.withSockAddr { (sa, length) throws(SystemError) in
            _ = try systemCall("bind(\(notifyPath))") { bind(fd.rawValue, sa, length) }
        }
        notifySocket = fd
        loop.register(raw, interest: .readable) { [unowned self] _ in self.readNotifications() }
    }

    private func readNotifications() {
        guard let notifySocket else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(notifySocket.rawValue, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }
            let text = String(decoding: buffer[0..<n], as: UTF8.self)
            let lines = text.split(separator: "\n")
            // From the app running now: a datagram its predecessor sent just before it was reclaimed
            // must not count for the next launch.
            let sender = lines.first { $0.hasPrefix("MAINPID=") }.flatMap { pid_t($0.dropFirst("MAINPID=".count)) }
            if let sender, sender != childPID { continue }
            for line in lines {
                if line == "READY=1" {
                    readyReports += 1
                    supervision.ready(at: loop.nowNanoseconds)
                    rearmSupervision()
                    answerOpenWaiters(nil)
                } else if line == "X_DELIVERED=1" {
                    supervision.delivered()
                    rearmSupervision()
                }
                logger.info("os.app-notified", ["state": String(line)])
            }
        }
    }

    /// Starts the app: the link listener as descriptor 3 (`link`), and the watch's connection, if any, as
    /// 4 (`connection`); LISTEN_PID is the app's own pid (the shell's `$$`, kept across its `exec`).
    func launch(_ kind: AppState, reason: String, reasonKey: String, connection: FileDescriptor?) {
        guard let listener, childPID == 0, launchRefusal == nil else { connection?.close(); return }
        var passed = [listener.rawValue]
        if let connection { passed.append(connection.rawValue) }
        // Copies at high numbers first, so that placing them at 3 and 4 cannot overwrite one another.
        let copies = passed.map { fcntl($0, F_DUPFD_CLOEXEC, 100) }
        defer {
            for copy in copies where copy >= 0 { Glibc.close(copy) }
            connection?.close()
        }
        let names = connection == nil ? "link" : "link:connection"
        var environment = Spawn.currentEnvironment(removing: [
            "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "NOTIFY_SOCKET", PhoneActivation.osPIDVariable,
        ])
        // RUNWAY_OS_PID: the app ties its life to ours (`PhoneActivation.tetherToOS`).
        environment += [
            "LISTEN_FDS=\(passed.count)", "LISTEN_FDNAMES=\(names)", "NOTIFY_SOCKET=\(notifyPath)",
            "\(PhoneActivation.osPIDVariable)=\(getpid())",
        ]
        // The device and the OS it runs on, and the app's container (Foundation's directories in it).
        environment = environment.filter { entry in !launchEnvironment.keys.contains { entry.hasPrefix($0 + "=") } }
        environment += launchEnvironment.map { "\($0.key)=\($0.value)" }
        var spawn = Spawn(
            "/bin/sh",
            arguments: [
                "/bin/sh", "-c", "LISTEN_PID=$$; export LISTEN_PID; exec \"$0\" \"$@\"",
                options.daemonPath, "--home", home.path,
            ] + launchArguments,
            environment: environment)
        spawn.actions = [.duplicate(2, to: 1)]  // its "ready" goes to the log, not our stdout
        for (index, copy) in copies.enumerated() { spawn.actions.append(.duplicate(copy, to: 3 + Int32(index))) }
        let pid: pid_t
        do {
            pid = try spawn.run()
        } catch {
            logger.error("os.launch-failed", ["error": "\(error)"])
            return
        }
        childPID = pid
        state = kind
        watchListener(false)
        launches[reasonKey, default: 0] += 1
        lastLaunchReason = reason
        logger.info("os.launched", ["pid": pid, "mode": kind.rawValue, "reason": reason])
        supervision.launched(at: loop.nowNanoseconds, background: kind == .background, awaitsDelivery: connection != nil)
        rearmSupervision()
    }
}
