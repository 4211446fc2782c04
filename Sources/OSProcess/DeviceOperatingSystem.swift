import Connectivity
import Control
import OSServices
import AppHost
import JSONText
import Posix

/// What a simulated device OS — the phone's `phone-os`, the watch's `watch-os` — does whatever the
/// device: it holds `HOME/os.lock` and `HOME/os.sock`, keeps the OS's services (the clock, on the phone
/// the notification centre: `DeviceOSServices.swift`) whether the app runs or not, and runs the app's
/// life: it launches the app's executable (with `NOTIFY_SOCKET` for its `READY=1`, its container's
/// environment, `RUNWAY_OS_PID` to tie the app's life to the OS's), supervises the launch and the
/// background budget (`AppSupervision`), reclaims, force-quits, suspends, jetsams, and answers the
/// user's `app open|close|…` and `os status|jetsam` (`DeviceOSAppControl.swift`).
///
/// What differs between the devices — how the OS learns that something is pending for the app, and what
/// the app is handed at launch — is the subclass's (`PhoneOS`: the watch's `hello` on the phone's
/// `link.sock`; `WatchOS`: the phone's traffic on the watch's own connection to it), through the hooks
/// declared here (`openLink`, `appMayLaunch`, `launchDescriptors`, `appLaunched`, `closeLink`, …).
package class DeviceOperatingSystem {
    package struct Options: Sendable {
        package var home: String
        package var backgroundBudgetMilliseconds: UInt64 = 30_000
        /// How long a launch may take to report `READY=1` (and a background launch, after it, to make its
        /// first delivery) before the OS gives up on it (`AppSupervision`).
        package var launchTimeoutMilliseconds: UInt64 = 20_000
        /// How long a background app whose work is done (its first delivery made, no task open, no
        /// workout) must be quiet before the OS suspends it (0: never): Apple's apps are suspended
        /// "shortly after" their background work (`DeviceOSSuspension.swift`).
        package var suspendAfterIdleMilliseconds: UInt64 = 5000
        /// Whether a suspended app is woken for what arrives on its link (`--no-wake`: the simulator
        /// before issue 50, where it was not).
        package var wakesSuspendedApp = true
        /// watch-os: whether an app killed during its workout session is relaunched for workout recovery
        /// (`--no-workout-recovery`: not, as before issue 51).
        package var recoversWorkouts = true
        package var daemonPath: String
        package var appArguments: [String] = []
        package var logLevel: Logger.Level = .info
        /// The app's bundle id: its container is `HOME/apps/BUNDLE-ID`.
        package var bundleID = "com.runway.RunWay"
        /// Whether the app is RunWay's own (`phone-daemon`, `watch-agent`: `--home` and its switches on
        /// its command line) or any other (`--app PATH`: only its `--app-arg`s; the device's settings reach
        /// its `WatchConnectivity` through the environment, `DeviceEnvironment`).
        package var isRunWay = true
        /// The device's settings for an app of the developer's own (log level and format, test commands).
        package var deviceEnvironment: [String: String] = [:]
        package init(home: String, daemonPath: String) {
            self.home = home
            self.daemonPath = daemonPath
        }
    }

    package enum AppState: String { case notRunning = "not running", background, foreground, suspended }

    let options: Options
    let home: DeviceHome
    let loop = EventLoop()
    let logger: Logger
    /// The program's name (`phone-os`, `watch-os`): its messages and its log's component.
    let programName: String
    private let signals: SignalSource
    private var osLock: FileLock?
    var control: ControlServer?
    var notifySocket: FileDescriptor?
    var notifyPath: String { PhoneActivation.osNotifyPath(home) }
    package static func controlPath(_ home: String) -> String { home + "/os.sock" }

    var childPID: pid_t = 0
    var state: AppState = .notRunning
    /// What the running app last said on the notify socket (`STATUS=`), if anything.
    var appStatusLine: String?
    var stateBeforeSuspend: AppState = .background
    /// The OS suspended the app itself (its background work done): its budget keeps running, and at its
    /// end the app is reclaimed, suspended or not. A user's `app suspend` stops the budget instead.
    var suspendedBySystem = false
    /// A copy of the app's established link (sd_notify's store, `FDSTORE=1`), watched while it is suspended.
    var storedLink: FileDescriptor?
    /// Whether the OS watches for what wakes the suspended app now, and the timer of its next look.
    var watchingForWake = false
    var wakeRecheck: EventLoop.TimerID?
    var systemSuspensions = 0
    /// The OS asked the app to say when its link is quiet, to suspend it (its tasks complete).
    var suspendAsked = false
    /// The app was told its open tasks are expiring (their handlers run before the reclaim).
    var expiryWarned = false
    /// The app implements neither `sessionDidBecomeInactive` nor `sessionDidDeactivate` and a watch switch
    /// happened while it ran (`AppNotice.watchSwitchOptOut`): it opted out of switching, and is terminated
    /// in the background (at once, or when it leaves the foreground).
    var switchOptedOut = false
    var wakes: [String: Int] = [:]
    var forceQuit = false
    /// When a launch ends and how the next is paced (`AppSupervision`), and the one timer for its
    /// next deadline.
    var supervision: AppSupervision
    var supervisionTimer: EventLoop.TimerID?
    /// Set when the OS itself kills or stops the app (a reclaim, jetsam, force-quit, the watchdog,
    /// shutdown): its exit is then no failure of the app's.
    var endingApp = false
    /// Whether the app's last exit was its own (crashed, or killed by a signal the OS did not send): what
    /// watchOS relaunches a workout app for (`WatchOS.recoverWorkoutIfNeeded`).
    var lastExitWasTheApps = false
    var killedNeverReady = false
    var failures = 0
    var launches: [String: Int] = [:]
    var reclaims = 0
    var jetsams = 0
    var declined = 0
    var readyReports = 0
    var lastLaunchReason = ""
    /// `app open` arrived while the app was being killed: it is launched in the foreground once reaped.
    var openAfterExit = false
    /// `app open` calls waiting for the app they launched to report READY=1.
    var openWaiters: [ControlConnection] = []
    /// `app force-quit|kill` and `os-jetsam` calls waiting for the app they killed to be reaped.
    var exitWaiters: [ControlConnection] = []
    /// The OS's services (`DeviceOSServices.swift`): the clock, and on the phone the notification centre.
    var system: SystemServices?
    /// The app's container: what it is launched in.
    var container: AppContainer { AppContainer(home: home.path, bundleID: options.bundleID) }
    /// `status`'s `app` while the OS answers it: which app it runs (its bundle id, its executable).
    var appIdentity: JSONValue {
        .object(["bundleId": .string(options.bundleID), "executable": .string(options.daemonPath.split(separator: "/").last.map(String.init) ?? "")])
    }

    init(options: Options, role: DeviceRole, programName: String) throws {
        self.options = options
        self.programName = programName
        home = DeviceHome(path: options.home, role: role)
        logger = Logger(component: programName, minimumLevel: options.logLevel)
        supervision = AppSupervision(
            budgetMilliseconds: options.backgroundBudgetMilliseconds, launchTimeoutMilliseconds: options.launchTimeoutMilliseconds)
        signals = try SignalSource([SIGTERM, SIGINT, SIGCHLD, SIGHUP])
    }

    package struct Conflict: Error, CustomStringConvertible { package let description: String }

    private func takeLock(_ path: String) throws -> FileLock {
        let result: Result<FileLock, FileLock.LockError>
        do {
            result = .success(try FileLock.takeWaitingForTheDead { () throws(FileLock.LockError) in try FileLock(path: path) })
        } catch { result = .failure(error) }
        switch result {
        case let .success(lock): return lock
        case let .failure(.heldBy(pid, _)):
            throw Conflict(description: "\(home.path) is already run by \(programName)\(pid.map { " (process \($0))" } ?? "")")
        case let .failure(.system(error)): throw error
        }
    }

    // MARK: - The device's hooks (the subclass's)

    /// Sockets of the device's own the OS owns in the home, removed when stale at start-up.
    var ownedSocketPaths: [String] { [] }
    /// Opens what the device's link needs before the app can be launched (the phone's listener).
    func openLink() throws {}
    /// The OS is ready: from now on it may launch the app when something is pending.
    func appMayLaunch() {}
    /// What a launch hands the app (descriptor, its name), or nil when it cannot be launched now.
    func launchDescriptors(connection: FileDescriptor?) -> [(Int32, String)]? { [] }
    /// Whether the counterpart was heard from so recently that it is in range and will connect to the
    /// app at once (phone-os: the watch's last `hello`).
    var counterpartNearby: Bool { false }
    /// The app was launched; the OS stops watching for it.
    func appLaunched() {}
    /// The app is gone; the OS watches for it again.
    func appGone() {}
    /// Shutdown: the device's link closes.
    func closeLink() {}
    /// Why the app cannot be opened or launched now, if it cannot.
    var launchRefusal: String? { nil }
    /// What else wakes the suspended app besides its link (phone-os: the watch connecting again).
    var wakeSources: [(descriptor: Int32, reason: String, key: String)] { [] }
    /// The device's own commands on the OS's router.
    func registerDeviceCommands(on router: ControlRouter) {}
    /// An `app` action the device handles itself (the phone's install, uninstall): true if it did.
    func handleDeviceAppAction(_ action: String, version: String?) throws -> Bool { false }
    /// The device's rows in `os-status`.
    func decorate(_ reply: inout OSStatusReply) {}
    /// `status` while the OS answers it (the app not running).
    func statusWhileAppIsDown() throws -> StatusReply { throw ControlError("the app is not running") }

    // MARK: - Running

    /// Runs until SIGTERM; returns the exit status.
    package func run() throws -> Int32 {
        try home.prepare()
        osLock = try takeLock(PhoneActivation.osLockPath(home))
        if FileLock.holder(ofDirectory: home.path, pidFile: home.lockPath) != nil {
            do {
                try takeHomeFromItsHolder()
            } catch {
                osLock?.unlock()
                throw error
            }
        }
        // The home is ours: a socket of ours left here is stale (nobody may listen in it now).
        for path in ownedSocketPaths + [Self.controlPath(home.path), notifyPath] {
            switch Filesystem.kind(of: path) {
            case .missing: continue
            case .socket: unlink(path)
            default: throw Conflict(description: "\(path) exists and is not a socket: refusing to remove it")
            }
        }
        try startServices()
        try openLink()
        try openNotifySocket()
        let server = ControlServer(
            address: try UnixSocketAddress(path: Self.controlPath(home.path)), role: home.role,
            home: home.path, loop: loop, logger: logger)
        server.handler = makeRouter().route
        try server.start()
        control = server
        loop.register(signals.descriptor.rawValue, interest: .readable) { [unowned self] _ in self.signalsArrived() }
        appMayLaunch()

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
            // SIGCONT if suspended, SIGTERM, 10 s, SIGKILL, reaped.
            ProcessStop.stop(childPID, grace: 10)
            childPID = 0
        }
        closeLink()
        control?.stop()
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
        while childPID > 0 {
            guard case .exited(let status) = ProcessStop.reap(childPID, block: false) else { return }
            // What the app said just before it exited (its STATUS= line: why it stops) is queued on the
            // notify socket; read it now, while the sender is still the app running, or the failure
            // reported would lack the app's own words whenever SIGCHLD is handled first.
            readNotifications()
            let pid = childPID
            let signalled = (status & 0x7f) != 0
            logger.info("os.app-exited", ["pid": pid, signalled ? "signal" : "status": signalled ? status & 0x7f : (status >> 8) & 0xff])
            childPID = 0
            state = .notRunning
            workoutRunning = false
            suspendedBySystem = false
            suspendAsked = false
            expiryWarned = false
            switchOptedOut = false
            stopWatchingForWake()
            dropStoredLink()
            if tasksOpen > 0 {
                backgroundTasksExpired += tasksOpen
                logger.notice("os.tasks-expired", ["pid": pid, "count": tasksOpen, "reason": "the app ended before it completed them"])
                tasksOpen = 0
            }
            var how = signalled ? "was killed by signal \(status & 0x7f)" : "exited with status \((status >> 8) & 0xff)"
            if let said = appStatusLine { how += " (\(OneLine.quote(said)))" }
            appStatusLine = nil
            if let failure = supervision.exited(at: loop.nowNanoseconds, endedByOS: endingApp, neverReady: killedNeverReady, how: how) {
                failures += 1
                logger.warning(
                    "os.app-failed",
                    [
                        "pid": pid, "reason": failure, "failuresInARow": supervision.failuresInARow,
                        "nextBackgroundLaunchInMs": supervision.backoffRemaining(at: loop.nowNanoseconds) / 1_000_000,
                    ])
            }
            // The app died by itself (a crash, a SIGKILL nobody in the OS sent), not ended by the OS.
            lastExitWasTheApps = !endingApp
            endingApp = false
            killedNeverReady = false
            rearmSupervision()
            appGone()
            // The user's responses this launch did not take go with it (iOS hands them to the launch they
            // were for), unless the user's open relaunches it now.
            if !openAfterExit { system?.heldResponses.removeAll() }
            if openAfterExit {
                openAfterExit = false
                launch(.foreground, reason: "user opened the app", reasonKey: "user", connection: nil)
                if childPID > 0 { continue }
            }
            answerOpenWaiters("the app exited before it was ready (see the log)")
            let gone = exitWaiters
            exitWaiters = []
            for connection in gone { connection.reply(self.status()) }
        }
    }

    /// Why no background launch may happen now (the app backing off after failures), if none may.
    var backingOff: String? {
        let backoff = supervision.backoffRemaining(at: loop.nowNanoseconds)
        guard backoff > 0 else { return nil }
        return
            "the app failed \(supervision.failuresInARow) time(s) in a row (last: \(supervision.lastFailure ?? "?")): no background launch for \((backoff + 999_999) / 1_000_000) ms"
    }

    // MARK: - Launching

    /// Background tasks WatchKit handed the app's delegate, those it completed, and those still open when
    /// the app's process ended (expired: its budget ran out, or it was killed first).
    var backgroundTasksHanded = 0
    var backgroundTasksCompleted = 0
    var backgroundTasksExpired = 0
    /// Handed to the running app and not completed.
    var tasksOpen = 0
    /// WatchKit's notices, which watch-os keeps (a phone's app sends none: nothing is done).
    func refreshScheduled(at seconds: Double) {}
    func complicationReloaded(_ kind: String) {}
    func hapticPlayed(_ type: String) {}
    /// The running app completed every task it was handed.
    func tasksCompleted() {}
    /// The realistic system's runtime for the launch starting now (ms; watch-os's, `SystemTiming`), nil
    /// for the OS's budget alone.
    func taskRuntime() -> UInt64? { nil }
    /// The launch's task runtime ran out (counted by watch-os).
    func runtimeRanOut() {}
    /// The app runs a workout session (`AppNotice.workout`): kept alive in the background.
    var workoutRunning = false

    /// Starts the app with what the device hands it (`launchDescriptors`: on the phone the link listener
    /// as descriptor 3, `link`, and the watch's connection, if any, as 4, `connection`, by the systemd
    /// protocol; LISTEN_PID is the app's own pid, the shell's `$$`, kept across its `exec`).
    func launch(_ kind: AppState, reason: String, reasonKey: String, connection: FileDescriptor?, environment extra: [String: String] = [:]) {
        guard childPID == 0, launchRefusal == nil, let descriptors = launchDescriptors(connection: connection) else {
            connection?.close()
            return
        }
        // Copies at high numbers first, so that placing them at 3 and 4 cannot overwrite one another.
        let copies = descriptors.map { descriptor in (try? systemCall("fcntl(F_DUPFD_CLOEXEC)") { fcntl(descriptor.0, F_DUPFD_CLOEXEC, 100) }) ?? -1 }
        defer {
            for copy in copies where copy >= 0 { FileDescriptor(adopting: copy).close() }
            connection?.close()
        }
        var environment = Spawn.currentEnvironment(removing: [
            "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "NOTIFY_SOCKET", PhoneActivation.osPIDVariable, AppLaunch.modeVariable,
            AppLaunch.reasonVariable, AppLaunch.workoutVariable, AppLaunch.watchNearbyVariable, AppLaunch.idleVariable,
        ])
        // RUNWAY_OS_PID: the app ties its life to ours (`PhoneActivation.tetherToOS`).
        environment += [
            "NOTIFY_SOCKET=\(notifyPath)", "\(PhoneActivation.osPIDVariable)=\(getpid())",
            "\(AppLaunch.modeVariable)=\(kind.rawValue)", "\(AppLaunch.reasonVariable)=\(reasonKey)",
        ]
        if !descriptors.isEmpty {
            environment += ["LISTEN_FDS=\(descriptors.count)", "LISTEN_FDNAMES=\(descriptors.map(\.1).joined(separator: ":"))"]
        }
        // The device and the OS it runs on, and the app's container (Foundation's directories in it).
        environment = environment.filter { entry in !launchEnvironment.keys.contains { entry.hasPrefix($0 + "=") } }
        environment += launchEnvironment.map { "\($0.key)=\($0.value)" }
        // What this launch is for, when it carries something (watch-os: the phone's startWorkout).
        environment += extra.map { "\($0.key)=\($0.value)" }
        if counterpartNearby { environment.append("\(AppLaunch.watchNearbyVariable)=1") }
        if options.suspendAfterIdleMilliseconds > 0 { environment.append("\(AppLaunch.idleVariable)=\(options.suspendAfterIdleMilliseconds)") }
        // An app of the developer's own reads its device through Foundation: its bundle (`Bundle.main`)
        // and its clock (`Date()`), installed before each launch (`AppInstall`). RunWay's own apps read
        // the device clock themselves and no bundle.
        var executable = options.daemonPath
        if !options.isRunWay {
            executable = installedExecutable()
            let inherited = environment.last { $0.hasPrefix("LD_PRELOAD=") }.map { String($0.dropFirst("LD_PRELOAD=".count)) }
            let device = AppInstall.environment(home: home.path, inherited: inherited)
            environment = environment.filter { entry in !device.keys.contains { entry.hasPrefix($0 + "=") } }
            environment += device.map { "\($0.key)=\($0.value)" }
        }
        let script = descriptors.isEmpty ? "exec \"$0\" \"$@\"" : "LISTEN_PID=$$; export LISTEN_PID; exec \"$0\" \"$@\""
        var spawn = Spawn(
            "/bin/sh", arguments: ["/bin/sh", "-c", script, executable] + (options.isRunWay ? ["--home", home.path] : []) + launchArguments,
            environment: FreeMemory.daemonEnvironment(environment))
        spawn.actions = [.duplicate(2, to: 1)]  // its "ready" goes to the log, not our stdout
        for (index, copy) in copies.enumerated() { spawn.actions.append(.duplicate(copy, to: 3 + Int32(index))) }
        let pid: pid_t
        do {
            // The container and its user-dirs.dirs exist before the app's first instruction, every launch
            // (a deleted app's came back empty): Foundation on Linux falls back to the passwd entry's home
            // for Documents when user-dirs.dirs is missing, whatever HOME says.
            try container.prepare()
            pid = try spawn.run()
        } catch {
            logger.error("os.launch-failed", ["error": "\(error)", "container": container.path])
            return
        }
        childPID = pid
        appStatusLine = nil
        state = kind
        appLaunched()
        launches[reasonKey, default: 0] += 1
        lastLaunchReason = reason
        logger.info("os.launched", ["pid": pid, "mode": kind.rawValue, "reason": reason])
        // A workout's launch keeps itself alive (X_WORKOUT=1): no delivery to wait for.
        supervision.launched(
            at: loop.nowNanoseconds, background: kind == .background,
            awaitsDelivery: kind == .background && !Self.launchesAwaitingNoDelivery.contains(reasonKey), runtimeMilliseconds: taskRuntime())
        rearmSupervision()
    }

    /// The app's executable in its bundle (`AppBundle`: `Bundle.main` is then the app's), installed now;
    /// the built one if that fails (logged: `Bundle.main` is then the build's directory).
    func installedExecutable() -> String {
        do {
            let version = launchEnvironment[DeviceEnvironment.appVersion] ?? "1.0"
            return try AppBundle.install(
                home: home.path, bundleID: options.bundleID, executable: options.daemonPath, version: version,
                role: home.role == .watch ? "watch" : "phone"
            ).executable
        } catch {
            logger.warning("os.bundle-not-installed", ["error": "\(error)", "effect": "Bundle.main is the build's directory, not the app's bundle"])
            return options.daemonPath
        }
    }

    /// Launches that wait for no delivery before their budget may end them: the user's, a workout's (it
    /// keeps itself alive), a background refresh's (its task is the work).
    static let launchesAwaitingNoDelivery: Set<String> = [
        "user", AppLaunch.workoutReason, AppLaunch.workoutRecoveryReason, AppLaunch.refreshReason, "workout-mirroring",
        // The watch sends its context: nothing comes back to the app for it (the phone acknowledges it to the service).
        "context-for-phone",
    ]

    /// What each launch passes the app after `--home`: the `--app-arg`s (the phone puts the installed
    /// version in place of theirs).
    var launchArguments: [String] { options.appArguments }

    /// What an app of the developer's own hears in its environment besides the device (the phone: its
    /// installed version).
    var appEnvironment: [String: String] { [:] }
}
