import Connectivity
import Control
import OSServices
import JSONText
import Posix
import PropertyLists
import Storage
import Synchronization

/// One device's process: the system half that runs with the app — the WatchConnectivity service (the
/// session, its store `HOME/store.sqlite`, the link), the control socket, and, when the OS and the app
/// share the process (`phone-daemon` by hand, `watch-agent`), the OS's services (`SystemServices`: the
/// clock, the notification centre). It imports no app: an app reaches it only through the public
/// `WatchConnectivity` and `UserNotifications` modules, and whoever composes a device (RunWay's
/// executables) hands the app what else it needs.
///
/// Start-up, one log line a step: the home claimed → the session's store opened and checked → the OS's
/// services → the session built, its delegate the host's → the app launched (`run(launch:)`: it opens its
/// own store, builds its model, sets `WCSession.default.delegate`, activates) → activation completes →
/// the control socket opens → `ready`. Transfers can only arrive once activated, so the app's store is
/// there before the first one.
package final class DeviceHost {
    package struct Configuration: Sendable {
        package var home: String
        package var role: DeviceRole
        package var logLevel: Logger.Level = .info
        package var limits = ConnectionLimits()
        /// Fault-injection control commands (`store-limit`, `fail-next`…) are accepted only with this.
        package var testCommandsEnabled = false
        /// Fault injection: the stores may not grow beyond this many pages (a full disk).
        package var maximumStorePages: Int?
        package var session = SessionConfiguration()
        /// Test only: open the control socket and say ready first, activate the session this much later.
        package var activationDelayMilliseconds: Int?
        /// Whether the OS's services run in this process (no `phone-os` runs the device).
        package var runsOperatingSystem = true
        /// The app's container (`HOME/apps/BUNDLE-ID`), when the app has one.
        package var container: String?
        /// TEST ONLY: a frame the link conditions lose vanishes instead of cutting the link (`LinkAir.lossSkipsFrames`).
        package var unsafeLinkLossSkipsFrames = false

        package init(home: String, role: DeviceRole) {
            self.home = home
            self.role = role
        }
    }

    /// The host of this process, once made: what `WCSession.default` talks to.
    package nonisolated(unsafe) static var current: DeviceHost?

    package let configuration: Configuration
    package let runtime: DaemonRuntime
    package var loop: EventLoop { runtime.loop }
    package var logger: Logger { runtime.logger }
    package var home: DeviceHome { runtime.home }
    /// Work from other threads (the public API may be called from any thread).
    package let mailbox: LoopMailbox
    /// The WatchConnectivity service's store.
    package private(set) var database: Database!
    package private(set) var session: Session!
    package private(set) var router: ControlRouter!
    package private(set) var control: ControlServer!
    /// The OS's services, when they run in this process.
    package private(set) var system: SystemServices?
    /// The app's channel to its OS, which its Apple-named modules (`UserNotifications`, `HealthKit`) call:
    /// the OS's services in this process, or phone-os's or watch-os's over `os.sock` — picked here, where
    /// the device is composed (`prepare`).
    package var osChannel: OSChannel? { remoteOS ?? system }
    /// Set when the OS runs in another process (`phone-os`, `watch-os`).
    var remoteOS: OSClient?

    /// The device's time now (`runway clock`): the OS's clock, wherever the OS runs.
    package var deviceNow: Double { osChannel?.deviceNow ?? wallClockSeconds() }
    /// The sockets a supervisor passed (socket activation): phone-os, systemd.
    package var activation: PhoneActivation?
    /// The watch's link (its connector can be taken out of range: `runway link down`).
    package private(set) var connector: UnixLinkConnector?
    /// The link's conditions and the schedule playing (`runway link set|schedule`), on the watch.
    package private(set) var linkConditions: LinkConditionsKeeper?
    /// Other stores the app writes: the fault injection's page cap applies to them too.
    package var faultableStores: [Database] = []
    /// The app's additions to `status` (its typed fields and free-form ones).
    package var statusContributors: [(inout StatusReply) throws -> Void] = []
    /// Told once per established link, after the handshake (RunWay's composition logs a version
    /// mismatch by the app's rule).
    package var onLinkEstablished: [(Handshake) -> Void] = []
    /// Run once the session is activated and the control socket open, before `ready` is said.
    package var whenReady: [() -> Void] = []
    /// The system's own workout traffic (HealthKit's `startWatchApp`), offered each workout event
    /// before the app's session delegate: a handler that takes it returns true (WatchKit's delegate).
    package var systemWorkoutHandlers: [(UserInfo) -> Bool] = []
    /// Whether a counterpart is paired with this device: the session's, once activated; before, as the
    /// store keeps it (HealthKit asks before an app that never activates its session has launched).
    package var isPaired: Bool {
        guard let session else { return false }
        if session.activationState == .activated { return session.isPaired }
        return (try? SessionStore.pairing(database)) != nil
    }

    /// Whether the app's complication is on the active watch face (the watch's own setting): the
    /// session's, once activated; before, as the store keeps it — an app that never activates its
    /// `WCSession` (a ClockKit-only watch app) reads the face as it is (issue 49).
    package var complicationEnabled: Bool {
        guard let session else { return false }
        if session.activationState == .activated { return session.localComplicationEnabled }
        return (try? SessionStore.stateValue(database, "app.complication")) == "1"
    }
    /// Records a call the app made to its system beside the session (WatchKit, ClockKit, WidgetKit) in
    /// the delegate trace (`runway watch events`), from any thread.
    package func recordSystemCall(_ name: String, kind: String) {
        mailbox.post { [weak self] in self?.tracer?.trace.record(.system(name: name, kind: kind)) }
    }

    /// Whether the app's own `main` runs this process's main queue: the device was started for it from
    /// the environment (`fromEnvironment`). A composed device (RunWay's apps) runs the app on its own
    /// thread, and the main thread only waits.
    package internal(set) var appRunsMainQueue = false
    /// Whether `whenReady` has run.
    package private(set) var isReady = false
    /// Told (on the device's thread) each background refresh the app scheduled that fell due while it
    /// runs (watch-os's `backgroundRefresh`; one that falls due while it does not launches it).
    package var onBackgroundRefresh: [() -> Void] = []
    /// Told (on the device's thread) what the OS woke the suspended app for: `transfer` (watchOS then
    /// hands the app a `WKWatchConnectivityRefreshBackgroundTask`), `message`, `workout`, `link`.
    package var onWoken: [(String) -> Void] = []
    /// Told (on the device's thread) when the OS is about to end the launch, its budget used up, with
    /// WatchKit tasks open: their expiration handlers are due (watch-os's `tasksExpiring`).
    package var onTasksExpiring: [() -> Void] = []

    /// Runs `body` on the device's thread once it is ready: now if it already is (call on that thread).
    package func onceReady(_ body: @escaping () -> Void) {
        if isReady { body() } else { whenReady.append(body) }
    }
    let ledger = SessionLedger()
    private var tracer: TracingHandler!
    var events: EventCommands!
    /// The app called `WCSession.activate()`.
    private var activationRequested = false
    /// The app's main queue has run: it has launched (`launchCompleted`).
    private var launched = false
    /// The system's own traffic needs the link (HealthKit in the app, a launch for a workout): an app
    /// that does not activate its session gets the session activated by its system at launch.
    private var systemNeedsLink = false
    /// The session was activated by the system, not (yet) by the app (`Session.activateForSystem`).
    private var systemActivated = false
    private var started = false
    private var controlOpen = false
    private var startupError: Error?

    package init(_ configuration: Configuration) throws {
        var configuration = configuration
        // Launched by an OS of its own (phone-os): the clock and the notification centre are its.
        if DeviceEnvironment.value(DeviceEnvironment.osSocket) != nil { configuration.runsOperatingSystem = false }
        if let container = DeviceEnvironment.value(DeviceEnvironment.container) { configuration.container = container }
        self.configuration = configuration
        let logger = Logger(component: configuration.role == .phone ? "phone" : "watch", minimumLevel: configuration.logLevel)
        runtime = try DaemonRuntime(home: DeviceHome(path: configuration.home, role: configuration.role), logger: logger)
        runtime.testCommandsEnabled = configuration.testCommandsEnabled
        mailbox = try LoopMailbox(loop: runtime.loop)
        Self.current = self
        // What the modules that need no device of their own tell the OS is recorded in this one's trace.
        AppNotifier.recordSystemCall = { name, kind in DeviceHost.current?.recordSystemCall(name, kind: kind) }
    }

    /// The app's session handler: the `WatchConnectivity` adapter to its delegate.
    package var appDelegate: (any SessionHandler)? {
        get { ledger.app }
        set { ledger.app = newValue }
    }

    /// Whether the app is in the foreground — on screen, the user looking at it — as its OS says: launched
    /// so (`RUNWAY_LAUNCH_MODE`), then each change its OS tells (`app open|close`). An app with no OS of its own (a
    /// device started by hand, the watch) is always in the foreground.
    package private(set) var isInForeground = AppLaunch.mode.map { $0 == "foreground" } ?? true
    /// `isInForeground`, read from any thread without waiting for the device's: UIKit's main-actor
    /// `applicationState` reads it on the main thread, which must never wait for the device's thread (a
    /// delegate callback there may be waiting for the main thread, `DispatchQueue.main.sync`).
    package var isInForegroundNow: Bool { foregroundMirror.load(ordering: .acquiring) }
    private let foregroundMirror = Atomic<Bool>(AppLaunch.mode.map { $0 == "foreground" } ?? true)
    /// Told (on the device's thread) when `isInForeground` changes.
    package var onApplicationStateChange: [(Bool) -> Void] = []

    func applicationStateChanged(foreground: Bool) {
        guard foreground != isInForeground else { return }
        isInForeground = foreground
        foregroundMirror.store(foreground, ordering: .releasing)
        logger.info("app.state", ["state": foreground ? "foreground" : "background"])
        for observer in onApplicationStateChange { observer(foreground) }
    }

    /// The most recent `didFinish` calls and how many since start-up (`runway … transfers`).
    package var recentlyFinished: [FinishedTransfer] { ledger.recentlyFinished.last }

    // MARK: - Start-up

    /// Claims the home, opens the service's store, starts the OS's services (if they run here), builds
    /// the session with the host's delegate and the control socket's router. The control socket opens
    /// once the app has activated its session.
    package func prepare() throws {
        if activation == nil, getenv(PhoneActivation.osPIDVariable) == nil, let holder = FileLock.holder(of: PhoneActivation.osLockPath(home)) {
            // Its OS (phone-os, watch-os) runs this home and launches the app itself.
            let device = configuration.role.rawValue
            throw DaemonRuntime.StartError.other(
                "\(home.path) is run by \(device)-os\(holder.map { " (process \($0))" } ?? ""): it launches the app itself (runway \(device) app open --home \(home.path))"
            )
        }
        try runtime.claimHome(supervised: activation?.supervisedPaths ?? [])
        database = try runtime.openStore()
        logger.info("startup.service-store-opened", ["path": home.storePath])  // no count(*): it grows with the store
        if configuration.runsOperatingSystem {
            try startOperatingSystem()
        } else if let socket = DeviceEnvironment.value(DeviceEnvironment.osSocket) {
            let client = try OSClient(home: home, socketPath: socket, loop: loop, logger: logger)
            if let last = client.lastAppState { applicationStateChanged(foreground: last == "foreground") }
            client.appStateObservers.append { [unowned self] state in self.applicationStateChanged(foreground: state == "foreground") }
            client.refreshObservers.append { [unowned self] in for observer in self.onBackgroundRefresh { observer() } }
            client.wokenObservers.append { [unowned self] reason in for observer in self.onWoken { observer(reason) } }
            client.suspendRequestObservers.append { [unowned self] in self.runtime.reportIdleWhenQuiet() }
            client.expiringObservers.append { [unowned self] in for observer in self.onTasksExpiring { observer() } }
            // What the OS deferred of the app's (a refresh), among the delegate calls (`runway … events`).
            client.observe(SystemDeferredEvent.self) { [unowned self] in
                self.tracer?.trace.record(.systemDeferred(lane: $0.lane, seq: $0.seq, delayMs: $0.delayMs, reason: $0.reason))
            }
            remoteOS = client
            logger.info("startup.os-attached", ["socket": socket])
        }
        if let pages = configuration.maximumStorePages { try StoreLimit.apply(pages, to: [database], logger: logger) }
        try makeSession()
        answerHealthLookups()
        try followOperatingSystem()
        router = makeRouter()
        control = ControlServer(
            address: try home.controlSocketAddress(), role: home.role, home: home.path, loop: loop, logger: logger)
        configuration.limits.apply(to: control)
        if let fd = activation?.control { control.adopt(fd) }
        control.handler = router.route
    }

    /// The OS in this process: its store, the clock, the notification centre, what fell due while
    /// nothing ran delivered now.
    private func startOperatingSystem() throws {
        let osDatabase = try SystemServices.openStore(home: home.path)
        runtime.onShutdown { osDatabase.close() }
        let system = try SystemServices(database: osDatabase, loop: loop, logger: logger)
        self.system = system
        system.publishClock(home: home.path)
        system.deliverDue()
    }

    /// The session on this device's end of the link, its callbacks traced, its link and workout traffic
    /// wired to the host.
    private func makeSession() throws {
        let transport = try configuration.role == .phone ? makeLinkListener() : makeLinkConnector()
        logStartupFaults()
        var sessionConfiguration = configuration.session
        sessionConfiguration.fileDirectory = home.path + "/files"
        sessionConfiguration.pairingSecrets = PairingSecrets(home: home.path)
        sessionConfiguration.fileInboxDirectory = (configuration.container ?? home.path + "/apps/unnamed") + "/Documents/Inbox"
        session = Session(
            role: configuration.role, database: database, loop: loop, transport: transport,
            configuration: sessionConfiguration, logger: logger)
        session.deviceClock = { [unowned self] in self.deviceNow }
        traceSession()
        wireLinkAndWorkouts()
        ledger.onActivation = { [unowned self] state, error in self.activationCompleted(state, error) }
    }

    /// The phone's end of the link: it listens (on the sockets its OS handed over, if launched by it).
    private func makeLinkListener() throws -> LinkTransport {
        let listener = UnixLinkListener(address: try home.linkSocketAddress(), loop: loop, logger: logger)
        listener.handshakeTimeoutMilliseconds = configuration.limits.handshakeTimeoutMilliseconds
        if let link = activation?.link { listener.adopt(listener: link) }
        for connection in activation?.connections ?? [] { listener.adopt(connection: connection) }
        listener.counterpartExpected = AppLaunch.watchNearby
        return listener
    }

    /// The watch's end of the link: it connects, through the air the link's conditions shape.
    private func makeLinkConnector() -> LinkTransport {
        let connector = UnixLinkConnector(loop: loop, logger: logger)
        connector.handshakeTimeoutMilliseconds = configuration.limits.handshakeTimeoutMilliseconds
        self.connector = connector
        connector.air.lossSkipsFrames = configuration.unsafeLinkLossSkipsFrames
        if configuration.unsafeLinkLossSkipsFrames {
            logger.warning("startup.unsafe", ["fault": "link-loss-skips-frames", "effect": "a lost frame is not resent: flights are lost"])
        }
        let keeper = LinkConditionsKeeper(
            home: home.path, air: connector.air, loop: loop, logger: logger, carry: { [unowned connector] in connector.setConditions($0) },
            connected: { [unowned connector] in connector.isConnected }, bytesInAir: { [unowned connector] in connector.bytesInAir })
        linkConditions = keeper
        keeper.takeOver()
        // Launched by watch-os: a `runway link down` the system kept while the app slept still holds.
        if Self.launchedByOS, keeper.isTakenDown { connector.isEnabled = false }
        return connector
    }

    /// The app's version, each fault or unsafe switch the session runs with, and the sockets the OS
    /// handed over, on stderr at start-up.
    private func logStartupFaults() {
        logger.info("startup.app-version", ["version": configuration.session.appVersion])
        if configuration.session.duplicateDeliveryRate > 0 {
            logger.warning("startup.fault", ["fault": "duplicate-delivery", "rate": configuration.session.duplicateDeliveryRate])
        }
        if configuration.session.acceptsAnySequence {
            logger.warning("startup.unsafe", ["fault": "accept-any-sequence", "effect": "a frame lost or forged moves the cursor past flights never stored"])
        }
        if configuration.session.trustsCounterpart {
            logger.warning(
                "startup.unsafe", ["fault": "trust-counterpart", "effect": "a forged acknowledgement or context is taken: files and contexts can be lost"])
        }
        if configuration.session.acknowledgeBeforeCommit {
            logger.warning("startup.unsafe", ["fault": "acknowledge-before-commit", "effect": "a crash can lose acknowledged flights"])
        }
        if let activation {
            logger.info(
                "startup.socket-activated",
                ["link": activation.link != nil, "control": activation.control != nil, "connections": activation.connections.count])
        }
    }

    /// The session's callbacks and the app's log messages, recorded for `runway … events`.
    private func traceSession() {
        // The session's callbacks are traced on their way to the app (`runway … events`).
        tracer = TracingHandler(ledger, trace: DelegateTrace())
        session.handler = tracer
        events = EventCommands(trace: tracer.trace)
        PhoneActivation.reportFirstDelivery(tracer.trace, role: configuration.role)
        // The app's os.Logger messages, among the session's calls (`runway … events`), on the loop's thread.
        nonisolated(unsafe) let trace = tracer.trace
        let mailbox = self.mailbox
        AppLogTap.install { message in
            let text =
                message.text.utf8.count <= DelegateTrace.payloadLimit
                ? message.text : String(decoding: message.text.utf8.prefix(DelegateTrace.payloadLimit), as: UTF8.self)
            mailbox.post { trace.record(.appLog(type: message.type, subsystem: message.subsystem, category: message.category, message: text)) }
        }
    }

    /// The link's life and the system's workout traffic: what the host and the OS hear of them.
    private func wireLinkAndWorkouts() {
        runtime.linkIsQuiet = { [unowned session] in session.linkIsQuiet }
        session.onLinkEstablished = { [unowned self] handshake in
            // The OS keeps a copy of the link to wake the app for what arrives while it is suspended.
            if let descriptor = session.linkDescriptor { AppLaunch.storeLink(descriptor) }
            for listener in self.onLinkEstablished { listener(handshake) }
        }
        // Workout traffic is the system's (HealthKit's startWatchApp for WatchKit's delegate, its mirrored
        // sessions), never the app's session's: what no handler takes is dropped. The system's whether or
        // not the app activates its session.
        session.onWorkoutEvent = { [unowned self] event in
            if self.systemWorkoutHandlers.contains(where: { $0(event) }) { return }
            self.logger.info("link.workout-unclaimed", ["kind": event["kind"]?.stringValue ?? "?"])
        }
        // A launch for the phone's workout (watch-os, HealthKit's startWatchApp): the event, once the
        // session has linked — the app answers the phone on the link — and before anything the phone
        // sends after its welcome. It needs the link, session or not.
        if let event = AppLaunch.workoutEvent {
            systemNeedsLink = true
            var delivered = false
            onLinkEstablished.append { [unowned self] _ in
                guard !delivered else { return }
                delivered = true
                self.session.onWorkoutEvent?(event)
            }
        }
    }

    // MARK: - Launched: ready with or without a session

    /// The app has launched — its main queue ran, as an iOS app's `didFinishLaunching` has returned when
    /// its main run loop turns (`fromEnvironment` posts it) — on the loop's thread. An app that asked for
    /// its session before is ready when the session activates, as before; any other app is ready now
    /// (issue 49: an app needs no session to launch), its session activated by the system first if the
    /// system's own traffic needs the link (HealthKit: `systemNeedsTheLink`).
    func launchCompleted() {
        guard !launched else { return }
        launched = true
        logger.info("startup.launched", ["session": activationRequested ? "activating" : "none"])
        guard !activationRequested else { return }
        if systemNeedsLink { activateForSystem() }
        becomeReady()
    }

    /// The system's own traffic needs the link (HealthKit's `startWatchApp`, a mirrored workout, a launch
    /// for a workout): in an app that has launched without activating its session, the system activates
    /// it now; before the launch completes, at launch. Nothing when the app activates its session itself.
    /// On the loop's thread.
    package func systemNeedsTheLink() {
        systemNeedsLink = true
        if launched && !activationRequested { activateForSystem() }
    }

    private func activateForSystem() {
        guard !systemActivated, let session, session.activationState == .notActivated else { return }
        systemActivated = true
        logger.info("startup.session-activating", ["by": "system", "reason": "the system's traffic needs the link; the app has not activated its session"])
        session.activateForSystem()
    }

    /// The app asked to activate (`WCSession.activate()`), on the loop's thread.
    package func requestActivation() {
        if systemActivated && !activationRequested {
            // The system runs the session: the app joins it (it hears activation, and what waited).
            activationRequested = true
            logger.info("startup.delegate-set")
            try? session.activate()
            return
        }
        guard !activationRequested else {
            // After a watch switch the app activates again: the session's own business.
            try? session.activate()
            return
        }
        activationRequested = true
        logger.info("startup.delegate-set")
        if let delay = configuration.activationDelayMilliseconds {
            do {
                try openControl()
            } catch {
                return fail(startup: error)
            }
            runtime.announceReady()
            logger.notice("startup.activation-delayed", ["ms": delay, "effect": "the control socket answers before the session is activated"])
            loop.schedule(afterMilliseconds: UInt64(delay)) { [unowned self] in self.activateSession() }
        } else {
            activateSession()
        }
    }

    private func activateSession() {
        do {
            try session.activate()
            logger.info("startup.session-activating")
        } catch {
            fail(startup: error)
        }
    }

    private func activationCompleted(_ state: ActivationState, _ error: Error?) {
        // A later activation (after the paired device was switched, or of an app that launched first)
        // changes nothing here.
        guard !started else { return }
        guard state == .activated else { return fail(startup: error ?? WCError(.genericError, "activation failed")) }
        becomeReady()
    }

    /// The control socket opens, the home is guarded, `whenReady` runs and `READY=1` goes to the OS: once
    /// the app's session activated, or the app launched without one (`launchCompleted`).
    private func becomeReady() {
        guard !started else { return }
        do {
            try openControl()
        } catch {
            return fail(startup: error)
        }
        started = true
        runtime.onShutdown { [unowned self] in self.session.deactivate() }
        runtime.guardHome(
            database: database, sockets: [{ [unowned self] in try self.control.ensureBound() }, { [unowned self] in try self.session.ensureListening() }])
        isReady = true
        for body in whenReady { body() }
        if configuration.activationDelayMilliseconds == nil { runtime.announceReady() }
    }

    private func openControl() throws {
        guard !controlOpen else { return }
        try control.start()
        controlOpen = true
        runtime.onShutdown { [unowned self] in self.control.stop() }
    }

    private func fail(startup error: Error) {
        startupError = startupError ?? error
        loop.stop()
    }

    /// Prepares, runs `launch` (the app: its store, its model, its delegate, `activate()`), then serves
    /// until SIGTERM — all of it on a thread of its own, the device's delegate queue, never the main
    /// thread (the calling thread waits). Returns the exit status, or throws what stopped the start-up.
    package func run(launch: @escaping () throws -> Void) throws -> Int32 {
        FreeMemory.useOneArena()
        nonisolated(unsafe) var outcome: Result<Int32, Error> = .success(1)
        let queue = try DedicatedThread { [unowned self] in
            outcome = Result { try self.serve(launch: launch) }
        }
        queue.join()
        return try outcome.get()
    }

    /// Prepares, runs `launch`, serves until SIGTERM, on the calling thread. `activatedLater`: the app
    /// runs on another thread (`fromEnvironment`) and activates when its `main` gets there.
    func serve(activatedLater: Bool = false, launch: () throws -> Void) throws -> Int32 {
        try prepare()
        try launch()
        // The app's calls from its own threads (`fromEnvironment`) run from now on, on the finished device.
        mailbox.open()
        if !activationRequested && !activatedLater {
            logger.warning("startup.not-activated", ["hint": "the app has not called WCSession.default.activate(): nothing is delivered until it does"])
        }
        let status = runtime.run(mailbox: mailbox)
        if let startupError { throw startupError }
        return status
    }

    /// Stops the device because something it depends on is gone (the app's store unlinked): logged,
    /// nothing more acknowledged, exit status 1.
    package func fail(_ event: String, _ reason: String) { runtime.fail(event, reason) }
}
