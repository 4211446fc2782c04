import Connectivity
import Control
import AppHost
import JSONText
import Posix
import PropertyLists

/// The watch's simulated watchOS (`watch-os`): the mirror of `phone-os`. It launches the watch app
/// (`watch-agent`) on demand and reclaims it, keeps the watch's clock whether the app runs or not, and —
/// while the app is not running — holds the watch's side of the link itself, the way watchOS keeps the
/// Bluetooth link to the iPhone for an app that is not running.
///
/// How the system learns what is pending (docs/protocol.md, "watch-os"): while the app is down, watch-os
/// connects to the phone's `link.sock` and says `hello` for the watch — built from the WatchConnectivity
/// service's store, read-only: its receive cursors (durable: the phone drops only what the watch has),
/// `appActive` false, nothing pending. Then:
///
/// - the phone's `welcome` says it has transfers queued for the watch (`pendingTransfers`), or the phone
///   sends the watch content on the link (a userInfo, complication, application context or file frame):
///   the app is launched in the background (reason `phone-content`, what watchOS hands an app as a
///   `WKWatchConnectivityRefreshBackgroundTask`), and watch-os closes its connection first — nothing it
///   read is acknowledged, so the phone sends it all again to the app;
/// - the watch's own queue holds transfers for the phone and the phone is in range: the app is launched
///   in the background to send them (reason `watch-transfer`: the service runs in the app's process);
/// - the phone starts a workout for the watch app (`startWorkout`, HealthKit's `startWatchApp`): the app
///   is launched in the background (reason `workout`) and handed the event, which its session delivers
///   once it has linked (`AppLaunch.workoutVariable`);
/// - nothing pending: the connection stays open (the phone in range; the watch app is not reachable to
///   the phone, as its hello said it is not active) — or, when phone-os declined it, it is tried again
///   after the backoff (at most a second).
///
/// A message from the phone never launches the watch app: the phone's session refuses it at once with
/// `notReachable` 7007, as the watch app is not in the foreground (Apple's rule). A watch app deleted
/// (`runway watch app uninstall`, `WatchOSInstall.swift`) is never launched: its hello says so, and the
/// phone holds what it has for it until it is installed again.
///
/// The link's conditions (`runway link set|show|schedule`) are kept by whoever holds the link: while the
/// app is down watch-os answers them and its connection travels through the same air
/// (`LinkConditionsKeeper`, `AiredFrameStream`); out of range, it does not connect, so the phone sees the
/// watch gone.
package final class WatchOS: DeviceOperatingSystem {
    /// The system's own connection to the phone while the app is not running.
    private var probe: AiredFrameStream?
    var probeTimer: EventLoop.TimerID?
    var attempt = 0
    /// Whether the phone answered the current connection's hello (`welcome`) and proved the pairing.
    private var probeLinked = false
    /// The current connection's handshake, and what watch-os brings to it.
    private var probeHandshake = LinkHandshake(side: .initiator)
    private var probeParty: WatchOSLinkParty?
    /// Whether the last attempt reached the phone (a listener answered): the watch in range.
    private(set) var phoneInRange = false
    /// What the phone last said it had pending for the watch, and when.
    private var lastWelcome: (transfers: Int64, at: Double?) = (0, nil)
    /// The air watch-os's connection travels through while it holds the link.
    private let air = LinkAir()
    var linkConditions: LinkConditionsKeeper!
    /// The largest `startWorkout` handed to the app at launch (in its environment, as hex).
    static let maximumWorkoutEventBytes = 4096
    /// What WatchKit, ClockKit and WidgetKit told watch-os (`WatchOSWatchKit.swift`).
    var watchKit = WatchKitRecord()
    /// A workout recovery waiting for the backoff after failures to end.
    var recoveryTimer: EventLoop.TimerID?

    package init(options: Options) throws {
        try super.init(options: options, role: .watch, programName: "watch-os")
        linkConditions = LinkConditionsKeeper(
            home: home.path, air: air, loop: loop, logger: logger, carry: { [unowned self] in self.setConditions($0) },
            connected: { [unowned self] in self.probeLinked }, bytesInAir: { [unowned self] in self.probe?.bytesInAir ?? 0 })
    }

    // MARK: - The watch's hooks

    override func appMayLaunch() {
        startRefreshes()
        linkConditions.takeOver()
        connectSoon(afterMilliseconds: 0)
    }

    override func appLaunched() {
        closeProbe("the app was launched: it connects itself")
        if let probeTimer { loop.cancel(probeTimer) }
        probeTimer = nil
        linkConditions.handOver()
    }

    override func appGone() {
        attempt = 0
        // The app held the link: its conditions, and the schedule it was playing, are ours again.
        linkConditions.takeOver()
        connectSoon(afterMilliseconds: 0)
        if lastExitWasTheApps { recoverWorkoutIfNeeded() }
    }

    /// watchOS's workout recovery: an app whose workout session was running when it died (crashed, or
    /// killed by anyone but the system) is relaunched in the background, and WatchKit calls its delegate's
    /// `handleActiveWorkoutRecovery()`, where the app takes the session back
    /// (`HKHealthStore.recoverActiveWorkoutSession`). The session is the one the OS keeps in `os.sqlite`
    /// (`health_active_session`). A launch held back by the backoff after failures comes when it ends;
    /// a deleted or force-quit app is not relaunched. An app the system ended itself (a reclaim, jetsam)
    /// finds its session at its next launch instead.
    func recoverWorkoutIfNeeded() {
        if let recoveryTimer { loop.cancel(recoveryTimer) }
        recoveryTimer = nil
        guard childPID == 0, launchRefusal == nil, !forceQuit else { return }
        let session: HealthSessionItem?
        do { session = try system?.health.activeSession() } catch {
            logger.warning("os.workout-recovery-failed", ["error": "\(error)"])
            return
        }
        guard let session else { return }
        guard options.recoversWorkouts else {
            // watch-os before issue 51: the app stays dead until the user opens it, which finds the session.
            logger.notice("os.workout-recovery-off", ["activityType": session.activityType])
            return
        }
        let backoff = supervision.backoffRemaining(at: loop.nowNanoseconds)
        if backoff > 0 {
            logger.info("os.workout-recovery-waits", ["forMs": (backoff + 999_999) / 1_000_000, "reason": backingOff ?? "backoff"])
            recoveryTimer = loop.schedule(afterMilliseconds: (backoff + 999_999) / 1_000_000) { [weak self] in
                self?.recoveryTimer = nil
                self?.recoverWorkoutIfNeeded()
            }
            return
        }
        logger.notice("os.workout-recovery", ["activityType": session.activityType, "startDate": Timestamp.iso8601(session.startDate)])
        launch(
            .background, reason: "its workout session was running when it died (workout recovery)",
            reasonKey: AppLaunch.workoutRecoveryReason, connection: nil)
    }

    override func closeLink() {
        if let probeTimer { loop.cancel(probeTimer) }
        probeTimer = nil
        closeProbe("watch-os shutting down")
    }

    override func registerDeviceCommands(on router: ControlRouter) {
        linkConditions.register(on: router) { [unowned self] in appHoldsTheLink }
        registerSystemCommands(on: router)
    }

    /// While the app runs, its session holds the link and the watch's presence: the CLI asks it instead.
    /// An app the OS suspended itself is woken for the system's setting (its session takes it), as a
    /// watch face change reaches a watchOS app.
    var appHoldsTheLink: ControlError? {
        guard childPID != 0 else { return nil }
        if state == .suspended && suspendedBySystem { wake("the system's link or watch face changed", key: "link") }
        return ControlError("the watch app is running and holds the link: ask it (runway link … again)", reason: "appHoldsTheLink")
    }

    override func refreshScheduled(at seconds: Double) { scheduleRefresh(at: seconds) }
    override func complicationReloaded(_ kind: String) {
        watchKit.reloads[kind, default: 0] += 1
        logger.notice("os.complication-reload", ["kind": kind, "pid": childPID])
    }
    override func hapticPlayed(_ type: String) {
        watchKit.haptics[type, default: 0] += 1
        logger.info("os.haptic", ["type": type, "pid": childPID])
    }

    override func tasksCompleted() { suspendAfterTasks() }
    override func taskRuntime() -> UInt64? { drawTaskRuntime() }
    override func runtimeRanOut() { watchKit.taskRuntimeExpiries += 1 }

    override var launchRefusal: String? {
        WatchStoreReading.appInstalled(home: home) ? nil : "the watch app is not installed (runway watch app install)"
    }

    override func handleDeviceAppAction(_ action: String, version: String?) throws -> Bool {
        guard action == "install" || action == "uninstall" else { return false }
        try installAction(action)
        return true
    }

    override func decorate(_ reply: inout OSStatusReply) {
        reply.appInstalled = WatchStoreReading.appInstalled(home: home)
        reply.phoneInRange = phoneInRange
        reply.backgroundTasksCompleted = Int64(backgroundTasksCompleted)
        decorateWatchKit(&reply)
    }

    override func statusWhileAppIsDown() throws -> StatusReply {
        let waiting = try SessionStoreSnapshot.readForStatus(home: home)
        var status = StatusReply(
            role: "watch", pid: Int64(getpid()), activationState: "notActivated", paired: waiting.paired, linked: false, reachable: false,
            watchAppInstalled: waiting.appInstalled, outstandingUserInfoTransfers: waiting.outstanding,
            outbox: StatusReply.Outbox(depth: waiting.outstanding, inFlight: 0, lastSentTransfer: 0, lastAcknowledgedTransfer: 0, window: 0),
            other: [:])
        status.watchAppActive = false
        status.linkEnabled = !linkConditions.isTakenDown
        status.other = [
            "home": .string(home.path), "answeredBy": .string("watch-os"), "appState": .string(state.rawValue), "app": appIdentity,
            "phoneInRange": .bool(phoneInRange), "linkRange": .string(air.conditions.range.rawValue),
            "complicationEnabled": .bool(WatchStoreReading.read(home: home).hello?.complicationEnabled ?? false),
            "waitingForApp": .object([
                "phonePendingTransfers": .integer(lastWelcome.transfers),
                "seenAt": lastWelcome.at.map { .string(Timestamp.iso8601($0)) } ?? .null,
            ]),
        ]
        if let pairing = waiting.pairingID { status.other["pairingId"] = .string(pairing) }
        if let system { status.other["healthWorkouts"] = .integer(try system.health.count()) }
        status.other["applicationContextPending"] = .bool(waiting.contextPending)
        return status
    }

    // MARK: - The system's connection to the phone

    func connectSoon(afterMilliseconds delay: UInt64) {
        if let probeTimer { loop.cancel(probeTimer) }
        probeTimer = loop.schedule(afterMilliseconds: delay) { [weak self] in
            guard let self else { return }
            self.probeTimer = nil
            self.connect()
        }
    }

    private func retryLater() {
        guard childPID == 0, air.conditions.range != .out, !linkConditions.isTakenDown else { return }
        let base = min(UInt64(1000), UInt64(20) << UInt64(min(attempt, 16)))
        attempt += 1
        connectSoon(afterMilliseconds: base / 2 + UInt64.random(in: 0...(base / 2)))
    }

    func closeProbe(_ reason: String) {
        guard let probe else { return }
        self.probe = nil
        probeLinked = false
        probe.close(reason)
        logger.debug("os.link-closed", ["reason": reason])
    }

    /// New conditions for the air (`runway link set`, a schedule's step, the home's at a take-over): the
    /// connection in place carries on under them; out of range cuts it and keeps watch-os from
    /// connecting (the phone sees the watch gone), back in range connects at once.
    private func setConditions(_ conditions: LinkConditions) {
        let wasOut = air.conditions.range == .out
        air.conditions = conditions
        if conditions.shape.isClear { probe?.landTheAir() }
        let out = conditions.range == .out
        guard out != wasOut, childPID == 0 else { return }
        if out {
            if let probeTimer { loop.cancel(probeTimer) }
            probeTimer = nil
            closeProbe("out of range (runway link set --range out)")
            setInRange(false)
        } else {
            attempt = 0
            connectSoon(afterMilliseconds: 0)
        }
    }

    func setInRange(_ inRange: Bool) {
        guard inRange != phoneInRange else { return }
        phoneInRange = inRange
        logger.info("os.phone-range", ["inRange": inRange])
    }

    private func connect() {
        guard childPID == 0, probe == nil else { return }
        guard air.conditions.range != .out, !linkConditions.isTakenDown else { return setInRange(false) }
        let store = WatchStoreReading.read(home: home)
        guard let hello = store.hello, let pairing = store.pairing else {
            // Not paired (or no store yet: the app never ran): nothing to connect to.
            setInRange(false)
            return retryLater()
        }
        let fd: FileDescriptor
        do {
            fd = try UnixSocket.connect(to: try UnixSocketAddress(path: store.phoneLinkSocket))
        } catch {
            setInRange(false)
            return retryLater()
        }
        setInRange(true)
        // The watch's own queue: the app sends it (the service runs in its process) — if it is installed.
        if store.outstanding > 0, store.appInstalled {
            fd.close()
            return launchInBackground(reasonKey: "watch-transfer", reason: "the watch has \(store.outstanding) transfer(s) queued for the phone, in range")
        }
        // Its application context too: content like any other (issue 50).
        if store.contextPending, store.appInstalled {
            fd.close()
            return launchInBackground(reasonKey: "context-for-phone", reason: "the watch has an application context pending for the phone, in range")
        }
        let stream = AiredFrameStream(stream: SocketStream(descriptor: fd, loop: loop), loop: loop, air: air)
        probe = stream
        probeLinked = false
        stream.onFrames = { [unowned self, unowned stream] frames, error in
            if !frames.isEmpty { self.received(frames) }
            if let error { self.probeEnded(stream, "malformed frames from the phone: \(error)") }
        }
        stream.onClose = { [unowned self, unowned stream] reason, _ in self.probeEnded(stream, "\(reason)") }
        stream.onLoss = { [unowned self, unowned stream] direction in
            self.probeEnded(stream, "a frame \(direction) was lost in the air (loss \(self.air.conditions.shape.loss))")
        }
        stream.start()
        let party = WatchOSLinkParty(hello: hello, pairing: pairing, home: home)
        probeParty = party
        probeHandshake = LinkHandshake(side: .initiator)
        for step in probeHandshake.opening(party) {
            switch step {
            case let .send(frame): stream.send(frame.encoded)
            default:
                // No secret (a home paired by an earlier RunWay): nothing to prove, no connection.
                logger.repeating(.error, "os.link-cannot-say-hello", ["reason": "\(step)"])
                closeProbe("cannot say hello")
                return retryLater()
            }
        }
    }

    /// The connection ended by itself: the phone closed it, it sent a malformed frame, or a frame was
    /// lost in the air (the cut). Tried again after the backoff.
    private func probeEnded(_ stream: AiredFrameStream, _ reason: String) {
        guard probe === stream else { return }
        closeProbe(reason)
        retryLater()
    }

    /// What the phone sent on watch-os's connection, a batch at a time: the first thing that needs the
    /// app launches it — and a `startWorkout` anywhere in the batch rides along, since closing the
    /// connection for the launch drops whatever followed (the phone resends its transfers to the app, but
    /// workout frames are never resent).
    private func received(_ frames: [Frame]) {
        var launch: (key: String, reason: String)?
        var workout: (event: UserInfo, payload: [UInt8])?
        var rest = frames[...]
        // The handshake first: nothing the phone says counts before it has proved the pairing.
        while !probeLinked, let frame = rest.first, let stream = probe, let party = probeParty {
            // Refused either way: the connection is ending, nothing more of it counts.
            if probeHandshake.phase == .done { return }
            rest = rest.dropFirst()
            for step in probeHandshake.receive(frame, party) {
                switch step {
                case let .send(answer): stream.send(answer.encoded)
                case let .establish(welcome):
                    attempt = 0
                    probeLinked = true
                    lastWelcome = (welcome.pendingTransfers, wallClockSeconds())
                    if welcome.pendingTransfers > 0 {
                        launch = (AppLaunch.watchConnectivityReason, "the phone has \(welcome.pendingTransfers) transfer(s) pending for the watch app")
                    }
                case let .refuse(error):
                    logger.repeating(.error, "os.link-refused", ["code": error.code.rawValue, "reason": error.message])
                    stream.send(Frame(.error, ErrorFrame.encode(error)).encoded)
                    closeProbe("refused the phone: \(error.message)")
                    return retryLater()
                case let .refusedByPeer(error):
                    // The phone closes next: the connection ends and is tried again after the backoff.
                    logger.info("os.link-refused", ["reason": error.message])
                case .counterpartState, .abandon:
                    // phone-os's word on its app while it declines: nothing for the watch's system.
                    continue
                }
            }
        }
        for frame in rest {
            // A transfer of any lane, or a context: content for the app, which it is launched for.
            if frame.type == .applicationContext || TransferLane.beginning(with: frame.type) != nil {
                if launch == nil { launch = (AppLaunch.watchConnectivityReason, "the phone sent the watch app content (\(frame.type))") }
                continue
            }
            switch frame.type {
            case .workout:
                // The phone reads the watch's Health store (issue 51): the system answers, app or no app.
                if let event = try? PropertyListCodec.decodeDictionary(frame.payload), event["kind"]?.stringValue == HealthLookupAnswer.lookupKind {
                    answerHealthLookup(event)
                    continue
                }
                // HealthKit's startWatchApp: the phone starts a workout for the watch app. Anything else on
                // this channel (a mirrored session's traffic) is for a running app, and launches nothing.
                guard let event = try? PropertyListCodec.decodeDictionary(frame.payload), event["kind"]?.stringValue == "startWatchApp" else {
                    logger.info("os.workout-ignored", ["why": "not a startWatchApp: the watch app is not running"])
                    continue
                }
                guard frame.payload.count <= Self.maximumWorkoutEventBytes else {
                    logger.warning("os.no-launch", ["reason": "a startWorkout of \(frame.payload.count) bytes (at most \(Self.maximumWorkoutEventBytes))"])
                    continue
                }
                workout = (event, frame.payload)
            case .error:
                let refusal = (try? ErrorFrame.decode(frame.payload))?.message ?? "?"
                logger.info("os.link-refused", ["reason": refusal])
            default:
                // appState (phone-os declining: the phone app is not running), acknowledgements: nothing
                // that launches the app.
                break
            }
        }
        if let workout {
            launchInBackground(
                reasonKey: AppLaunch.workoutReason, reason: "the phone started a workout (startWatchApp)",
                environment: [AppLaunch.workoutVariable: AppLaunch.hex(workout.payload)])
        } else if let launch {
            launchInBackground(reasonKey: launch.key, reason: launch.reason)
        }
    }

    /// The phone's Health look-up, answered from the OS's own store while watch-os holds the link (the
    /// app not running, or deleted: its saved workouts stay).
    private func answerHealthLookup(_ event: UserInfo) {
        guard let question = HealthLookupAnswer.question(event), let system, let probe else { return }
        do {
            let answer = HealthLookupAnswer.answer(question, workouts: try system.health.workouts())
            probe.send(Frame(.workout, PropertyListCodec.encode(answer)).encoded)
            logger.info("os.health-lookup-answered", ["id": question.id, "values": question.values?.count ?? -1])
        } catch {
            logger.warning("os.health-lookup-failed", ["id": question.id, "error": "\(error)"])
        }
    }

    /// Launches the app in the background for what is pending, unless the user force-quit it or it is
    /// backing off after failures (then the phone stays connected and the next attempt decides again).
    func launchInBackground(reasonKey: String, reason: String, environment: [String: String] = [:]) {
        if let notInstalled = launchRefusal {
            // The connection stays: the phone knows from its hello that the app is gone, and holds it.
            declined += 1
            logger.info("os.no-launch", ["reason": notInstalled, "for": reason])
            return
        }
        let refusal = forceQuit ? "force-quit by the user: no background launch until the app is opened" : backingOff
        if let refusal {
            declined += 1
            logger.info("os.no-launch", ["reason": refusal, "for": reason])
            closeProbe("declined")
            attempt = max(attempt, 6)
            return retryLater()
        }
        launch(.background, reason: reason, reasonKey: reasonKey, connection: nil, environment: environment)
        if childPID == 0 { retryLater() }
    }
}
