import Control
import Connectivity
import Glibc
import JSONText
import Posix
import RunWayApp
import Storage

/// The simulated Apple Watch: the RunWay watch app (which records runs and queues them for the phone),
/// its session and durable outbox, and a control socket.
public final class WatchAgent {
    public struct Options: Sendable {
        public var home: String
        public var logLevel: Logger.Level = .info
        /// Simulates a slow link: at most this many transfers a second.
        public var linkRate: Int?
        /// Fault injection: the store may not grow beyond this many pages (a full disk).
        public var maximumStorePages: Int?
        public var limits = ConnectionLimits()
        /// The watch app's version (`--app-version`), sent in the handshake.
        public var appVersion = AppVersion.current
        /// GPWS as RunWay 1.3 fixed it, or as it was before (`--gpws legacy`).
        public var gpws: GPWSBehaviour = .fixed
        /// `--failed-transfer requeue|legacy`: whether the app queues a failed transfer's run again.
        public var requeueFailedTransfers = true
        /// RunWay 1.4's dead instrument stream, on purpose (`--instrument-stream`): a message every 3 s
        /// while a run is in progress and the phone is reachable.
        public var instrumentStream = false
        public init(home: String) { self.home = home }
    }

    let options: Options
    let runtime: DaemonRuntime
    let logger: Logger
    var database: Database!
    var session: Session!
    var connector: UnixLinkConnector!
    var recorder: WatchRunRecorder!
    /// The live run (`runway watch run ...`) and how the watch answers a phone-led start (`WatchWorkout.swift`).
    var runs: RunCommands!
    var workoutStartFault = WorkoutStartFault.none
    var control: ControlServer!
    var sessionCommands: SessionCommands!
    /// Holds the session's delegate (the session holds it weakly): the app's, behind the trace.
    var tracer: TracingDelegate!
    var events: EventCommands!
    /// The one place control requests are dispatched (`makeRouter`).
    var router: ControlRouter!
    /// The watch app's session delegate; held here because the session holds its delegate weakly.
    var service: WatchConnectivityService!
    private var generator = FlightGenerator()
    /// The watch's clock: runs are recorded at its time (`runway clock`).
    var clock: DeviceClock!

    public init(options: Options) throws {
        self.options = options
        logger = Logger(component: "watch", minimumLevel: options.logLevel)
        runtime = try DaemonRuntime(home: DeviceHome(path: options.home, role: .watch), logger: logger)
    }

    public func run() throws -> Int32 {
        try runtime.claimHome()
        let home = runtime.home
        database = try runtime.openStore()
        if let pages = options.maximumStorePages { try setStoreLimit(pages) }
        logger.info("startup.store-opened", ["path": home.storePath])
        clock = try DeviceClock(database: database)

        connector = UnixLinkConnector(loop: runtime.loop, logger: logger)
        connector.handshakeTimeoutMilliseconds = options.limits.handshakeTimeoutMilliseconds
        var configuration = SessionConfiguration()
        configuration.userInfoValidator = Flight.problem(inUserInfo:)
        configuration.maximumTransfersPerSecond = options.linkRate
        configuration.appVersion = options.appVersion
        logger.info("startup.app-version", ["version": options.appVersion])
        session = Session(
            role: .watch, database: database, loop: runtime.loop, transport: connector,
            configuration: configuration, logger: logger)
        let app = AppConnectivity(database: database, logger: logger) { [unowned self] delay, body in
            self.runtime.loop.schedule(afterMilliseconds: delay, body)
        }
        service = WatchConnectivityService(app: app, logger: logger)
        service.requeueFailedTransfers = options.requeueFailedTransfers
        // The delegate calls are traced on their way to the app (`runway … events`).
        tracer = TracingDelegate(service, trace: DelegateTrace())
        session.delegate = tracer
        events = EventCommands(trace: tracer.trace)
        session.logVersionMismatches(logger)
        sessionCommands = SessionCommands(session: session, app: app, logger: logger)
        recorder = WatchRunRecorder(session: session, logger: logger)
        runs = try RunCommands(database: database, clock: clock, behaviour: options.gpws, logger: logger)
        installRuns()

        control = ControlServer(
            address: try home.controlSocketAddress(), role: home.role, home: home.path,
            loop: runtime.loop, logger: logger)
        options.limits.apply(to: control)
        router = makeRouter()
        control.handler = router.route
        return try runtime.serve(session, control: control, install: { [unowned self] in self.service.onActivation = $0 }) { [unowned self] in
            if !self.session.isPaired {
                self.logger.warning("watch.not-paired", ["hint": "run: runway pair --phone PHONE_HOME --watch \(home.path)"])
            }
        }
    }

    // MARK: - Control commands

    /// Every command the watch answers, registered with the one router that dispatches them.
    func makeRouter() -> ControlRouter {
        let router = ControlRouter(server: .watch)
        router.testCommandsEnabled = runtime.testCommandsEnabled
        sessionCommands.register(on: router)
        events.register(on: router)
        ClockCommands(clock: clock, logger: logger).register(on: router)
        runs.register(on: router)
        router.on("workout-fault") { [unowned self] request, connection in try workoutFaultCommand(request, connection) }
        router.on("status") { [unowned self] _, connection in connection.reply(try status()) }
        router.on("record") { [unowned self] request, connection in connection.reply(try record(request)) }
        router.on("link") { [unowned self] request, connection in connection.reply(try link(request)) }
        router.on("app") { [unowned self] request, connection in connection.reply(try appState(request)) }
        router.on("store-limit") { [unowned self] request, connection in connection.reply(try storeLimitCommand(request)) }
        router.on("fail-next") { [unowned self] request, connection in connection.reply(try failNextCommand(request)) }
        return router
    }

    func status() throws -> StatusReply {
        var status = try sessionCommands.status()
        status.linkEnabled = connector.isEnabled
        status.watchAppActive = session.localAppActive
        var fields = status.other
        fields.merge([
            "home": .string(runtime.home.path),
            "inbox": .object([
                "depth": .integer(0),
                "receivedUserInfo": .integer(try database.scalarInt("SELECT count(*) FROM received_userinfo")),
            ]),
        ]) { _, new in new }
        fields.merge(versionFields(peerKey: "phoneAppVersion")) { _, new in new }
        fields.merge(languageStatusFields) { _, new in new }
        if let pairing = session.pairing {
            fields["phoneDeviceId"] = .string(pairing.phoneDeviceID)
            fields["phoneLinkSocket"] = .string(pairing.phoneLinkSocket)
        }
        status.other = fields
        return status
    }

    /// The watch app is installed, removed, brought to the foreground or sent to the background; the
    /// phone hears of it at once (isWatchAppInstalled, isReachable).
    func appState(_ request: ControlRequest) throws -> JSONValue {
        var installed = session.localAppInstalled, active = session.localAppActive
        switch request[ControlCommands.App.watchAction] {
        case "install": installed = true
        case "uninstall": installed = false; active = false
        case "foreground": guard installed else { throw ControlError("the watch app is not installed (runway watch app install)") }; active = true
        case "background": active = false
        default: throw ControlError.invalid("the app action must be install, uninstall, foreground or background")
        }
        try session.setLocalAppState(installed: installed, active: active)
        return WatchAppReply(watchAppInstalled: installed, watchAppActive: active).json
    }

    /// Takes the simulated Bluetooth link down (out of range) or back up. Transfers keep queueing
    /// while it is down; nothing is lost.
    func link(_ request: ControlRequest) throws -> JSONValue {
        let state = request[ControlCommands.Link.state]
        connector.isEnabled = state == "up"
        logger.notice("link.\(state)", ["by": "runway link \(state)"])
        return LinkReply(link: state).json
    }

    /// `runway link fail-next N [--code C]` (fault injection): the next N userInfo transfers finish
    /// with that error instead of being delivered.
    func failNextCommand(_ request: ControlRequest) throws -> JSONValue {
        let count = request[ControlCommands.FailNext.count]
        let raw = request[ControlCommands.FailNext.code]  // 7017, 7014 or 7015: the catalogue allows no other
        guard let code = WCError.Code(rawValue: raw) else { throw ControlError.invalid("\(raw) is not a WCError code") }
        session.failNextTransfers(count, code: code)
        return FailNextReply(count: Int64(count), code: Int64(code.rawValue), name: code.name).json
    }

    /// `count` finished runs, queued for the phone in one outbox transaction.
    func record(_ request: ControlRequest) throws -> JSONValue {
        guard session.localAppInstalled else {
            throw ControlError("the RunWay watch app is not installed on this watch, so it cannot record runs (runway watch app install)")
        }
        typealias Record = ControlCommands.Record
        let count = request[Record.count]
        let distance = request[Record.distanceKm]
        if let seed = request[Record.seed] {
            generator = FlightGenerator(seed: UInt64(seed))
        }
        // One outbox transaction for the whole series (one fsync), generated a slice at a time so
        // that a million runs never sit in memory together; the newest run ends at the watch's now
        // (device time, `runway clock`).
        // Part of a longer series the CLI records in chunks: where this chunk sits, and the series' end.
        // The series' bounds depend on count: checked here, in the catalogue's words.
        let total = request[Record.seriesTotal] ?? count
        guard total >= count else { throw ControlError.invalid("seriesTotal must be a whole number from \(count) to 1000000") }
        let start = request[Record.seriesStart] ?? 0
        guard start <= total - count else { throw ControlError.invalid("seriesStart must be a whole number from 0 to \(total - count)") }
        let now = request[Record.endingAt] ?? clock.now
        let recording = try recorder.record(
            count: count, distanceKm: distance, now: now, seriesStart: start, seriesTotal: total,
            using: &generator)
        // Committed, not yet answered: a crash here leaves flights queued whose recording never
        // reported success (docs/guarantees.md, "indeterminate recordings").
        CrashPoint.hit("send.after-enqueue")
        return RecordReply(ids: recording.ids, firstTransfer: recording.firstTransfer, lastTransfer: recording.lastTransfer, endingAt: now).json
    }
}
