import Control
import Connectivity
import Glibc
import JSONText
import Posix
import RunWayApp
import Storage

/// The simulated iPhone: the RunWay phone app, its session, its store, and a control socket.
///
/// Start-up follows RunWay 1.3's cold-launch fix, one log line a step: open the store → build the app
/// model with it → set the session's delegate → activate. Only then can transfers arrive, and each is
/// saved the moment it does, with no UI client attached.
public final class PhoneDaemon {
    public struct Options: Sendable {
        public var home: String
        public var savePath: SavePath = .immediate
        /// `legacy` brings back RunWay 1.3.1's single inactivity reminder (`--reminders legacy`).
        public var reminderRule: RunReminderService.Rule = .current
        public var logLevel: Logger.Level = .info
        /// A deliberate bug for tests (see `SessionConfiguration.acknowledgeBeforeCommit`).
        public var acknowledgeBeforeCommit = false
        /// Fault injection: deliver each received transfer twice to the app with this probability.
        public var duplicateRate = 0.0
        /// Fault injection: the store may not grow beyond this many pages (a full disk).
        public var maximumStorePages: Int?
        public var limits = ConnectionLimits()
        /// The phone app's version (`--app-version`), sent in the handshake and compared with the store's.
        public var appVersion = AppVersion.current
        /// Test only: open the control socket first and activate the session this much later.
        public var activationDelayMilliseconds: Int?
        /// How long a phone-led start waits for the watch's answer before it is `unconfirmed`.
        public var mirroringConfirmTimeoutMilliseconds = 10_000
        public init(home: String) { self.home = home }
    }

    let options: Options
    let runtime: DaemonRuntime
    let logger: Logger
    var database: Database!
    var store: FlightStore!
    var viewModel: RunViewModel!
    var service: PhoneConnectivityService!
    var session: Session!
    var sessionCommands: SessionCommands!
    /// Holds the session's delegate (the session holds it weakly): the app's, behind the trace.
    var tracer: TracingDelegate!
    var events: EventCommands!
    /// The one place control requests are dispatched (`makeRouter`).
    var router: ControlRouter!
    var control: ControlServer!
    let reminders = ReminderHook()
    /// The device clock, the notification centre and the reminder service (`PhoneTime.swift`).
    var time: PhoneTime!
    /// The update notice and the simulated App Store endpoint (`PhoneUpdates.swift`).
    var updates: PhoneUpdates!
    /// Runs led by the phone (`runway phone run ...`, `PhoneRuns.swift`).
    var phoneRuns: PhoneRunController!
    private var drainDeferred = false
    /// The sockets a supervisor passed (socket activation), if any: see `PhoneActivation`.
    public var activation: PhoneActivation?

    public init(options: Options) throws {
        self.options = options
        logger = Logger(component: "phone", minimumLevel: options.logLevel)
        runtime = try DaemonRuntime(home: DeviceHome(path: options.home, role: .phone), logger: logger)
    }

    /// Runs until SIGTERM; returns the exit status.
    public func run() throws -> Int32 {
        let home = runtime.home
        if activation == nil, let holder = FileLock.holder(of: PhoneActivation.osLockPath(home)) {
            // phone-os owns this home's link socket and launches the app itself.
            throw DaemonRuntime.StartError.other(
                "\(home.path) is run by phone-os\(holder.map { " (process \($0))" } ?? ""): it launches the app itself (runway phone app open --home \(home.path))"
            )
        }
        try runtime.claimHome(supervised: activation?.supervisedPaths ?? [])

        // 1. The store (the database context) — before anything can arrive.
        database = try runtime.openStore()
        if let pages = options.maximumStorePages { try setStoreLimit(pages) }
        store = FlightStore(database: database)
        logger.info("startup.store-opened", ["path": home.storePath])  // no count(*): it grows with the store
        // The system's notification centre delivers what fell due while the phone was off; the app's
        // reminders are not rescheduled on a launch with no UI.
        time = try PhoneTime(database: database, store: store, rule: options.reminderRule, loop: runtime.loop, logger: logger)
        time.onDelivered = { [unowned self] in self.publish($0) }
        time.deliverDue()
        updates = try makeUpdates()
        logger.info("startup.app-version", ["version": options.appVersion])
        applyLanguageAtLaunch()

        // 2. The app model, wired to the store.
        viewModel = RunViewModel(savePath: options.savePath, logger: logger)
        viewModel.reminders = reminders
        viewModel.now = { [unowned self] in self.time.clock.now }
        reminders.onReschedule = { [unowned self] in self.time.rescheduleAfterSave() }
        viewModel.attach(store: store)
        viewModel.onFlightsSaved = { [unowned self] flights in self.publish(flights) }
        viewModel.onFlightHeld = { [unowned self] in self.scheduleDrainIfNeeded() }
        logger.info("startup.model-ready", ["savePath": options.savePath.rawValue])

        // 3. The session, with its delegate set before activation.
        var configuration = SessionConfiguration()
        configuration.userInfoValidator = Flight.problem(inUserInfo:)
        configuration.acknowledgeBeforeCommit = options.acknowledgeBeforeCommit
        configuration.duplicateDeliveryRate = options.duplicateRate
        if options.duplicateRate > 0 {
            logger.warning("startup.fault", ["fault": "duplicate-delivery", "rate": options.duplicateRate])
        }
        configuration.appVersion = options.appVersion
        if options.acknowledgeBeforeCommit {
            logger.warning("startup.unsafe", ["fault": "acknowledge-before-commit", "effect": "a crash can lose acknowledged flights"])
        }
        let app = AppConnectivity(database: database, logger: logger) { [unowned self] delay, body in
            self.runtime.loop.schedule(afterMilliseconds: delay, body)
        }
        service = PhoneConnectivityService(viewModel: viewModel, app: app, logger: logger)
        let transport = UnixLinkListener(address: try home.linkSocketAddress(), loop: runtime.loop, logger: logger)
        transport.handshakeTimeoutMilliseconds = options.limits.handshakeTimeoutMilliseconds
        if let link = activation?.link { transport.adopt(listener: link) }
        for connection in activation?.connections ?? [] { transport.adopt(connection: connection) }
        session = Session(
            role: .phone, database: database, loop: runtime.loop, transport: transport,
            configuration: configuration, logger: logger)
        // The delegate calls are traced on their way to the app (`runway … events`).
        tracer = TracingDelegate(service, trace: DelegateTrace())
        session.delegate = tracer
        events = EventCommands(trace: tracer.trace)
        PhoneActivation.reportFirstDelivery(tracer.trace)
        session.logVersionMismatches(logger)
        sessionCommands = SessionCommands(session: session, app: app, logger: logger)
        phoneRuns = try setUpRuns()
        logger.info("startup.delegate-set")

        // 4. Activate; once activated, open the control socket and say ready.
        control = ControlServer(
            address: try home.controlSocketAddress(), role: home.role, home: home.path,
            loop: runtime.loop, logger: logger)
        options.limits.apply(to: control)
        if let fd = activation?.control { control.adopt(fd) }
        if let activation {
            logger.info(
                "startup.socket-activated",
                [
                    "link": activation.link != nil, "control": activation.control != nil,
                    "connections": activation.connections.count,
                ])
        }
        router = makeRouter()
        control.handler = router.route
        service.onStateChange = { [unowned self] in
            self.publishState()
            self.tellWatchLanguage()
        }
        return try runtime.serve(
            session, control: control,
            install: { [unowned self] handler in
                self.service.onActivation = { [unowned self] state, error in
                    handler(state, error)
                    // The fix for "the activation callback only logs": every attached UI gets the new row.
                    if state == .activated { self.publishState() }
                }
            }, activationDelayMilliseconds: options.activationDelayMilliseconds
        ) { [unowned self] in
            self.tellWatchLanguage()
        }
    }

    // MARK: - UI clients

    /// Flights were saved: each attached UI gets one `flightSaved` event per flight, with its place in
    /// arrival order so a UI that has just listed the logbook can tell what it has already shown.
    private func publish(_ saved: [StoredFlight]) {
        let clients = control.attachedClients
        guard !clients.isEmpty else { return }
        for stored in saved {
            var writer = JSONWriter()
            writer.raw(#"{"event":"flightSaved","flight":"#)
            stored.writeJSON(to: &writer)
            writer.raw("}")
            for client in clients { client.sendEvent(body: writer.bytes) }
        }
    }

    private func publishState() { publishWatchState() }

    // MARK: - The pending queue

    /// Plans the next drain of `pendingWatchDataQueue`, if anything may drain it now.
    ///
    /// Only `ui-drain` holds flights here (the fixed app saves on receipt, and a flight its store cannot
    /// take is rolled back and resent by the watch, through the receive cursor). In `ui-drain`, only a
    /// home screen writes the queue: while a UI client is attached, it does so as flights arrive
    /// (RunWay's `.onChange`) — after the transfer was acknowledged, which is the bug; with none
    /// attached, nothing does.
    func scheduleDrainIfNeeded() {
        guard options.savePath == .uiDrain, !viewModel.pendingWatchDataQueue.isEmpty else { return }
        guard !drainDeferred, !control.attachedClients.isEmpty else { return }
        drainDeferred = true
        runtime.loop.deferToEndOfIteration { [weak self] in
            guard let self else { return }
            self.drainDeferred = false
            guard !self.control.attachedClients.isEmpty else { return }
            self.viewModel.drainPendingQueue(reason: "UI visible")
        }
    }
}

/// The inactivity reminders' hook: counts reschedules (once per saved flight), remembers the flight they
/// count from, and asks for the reschedule itself (`PhoneTime.rescheduleAfterSave`, once per commit).
public final class ReminderHook: InactivityReminderScheduling {
    public private(set) var rescheduleCount = 0
    public private(set) var latestStartedAt: Double?
    var onReschedule: () -> Void = {}

    public init() {}

    public func reschedule(afterSaving flight: Flight, latest: Flight) {
        rescheduleCount += 1
        latestStartedAt = latest.startedAt
        onReschedule()
    }
}
