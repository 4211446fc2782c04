import Posix
import Storage
import PropertyLists

/// Tunables of a session. The defaults are what the daemons use.
package struct SessionConfiguration: Sendable {
    /// The app's version, sent in the handshake (`--app-version`; the seed's 1.4 by default).
    package var appVersion = "1.4"
    /// At most this many transfers sent and not yet acknowledged (flow control): memory on both sides
    /// is bounded by the window, not by the backlog.
    package var windowTransfers = 4096
    /// ... and at most this many bytes of them.
    package var windowBytes = 16 << 20
    /// Stop producing frames while the socket has more than this many bytes queued.
    package var outboundHighWaterBytes = 1 << 20
    /// The largest userInfo or message, encoded (Apple's limit).
    package var userInfoByteLimit = 65_536
    /// The largest application context, encoded (Apple's limit).
    package var contextByteLimit = 262_144
    /// How long `sendMessage` waits for a reply by default.
    package var messageTimeoutMilliseconds: UInt64 = 10_000
    /// Where the session keeps the bytes of files (`HOME/files`: the queued copies, the files arriving);
    /// nil: no file transfers.
    package var fileDirectory: String?
    /// The app's `Documents/Inbox`, where a received file is handed to the app.
    package var fileInboxDirectory: String?
    /// The home's pairing secrets (`HOME/pairing-secrets`), which each handshake proves it holds; nil:
    /// none, and the link cannot come up (`LinkHandshake`).
    package var pairingSecrets: PairingSecrets?
    /// Simulates a slow link: at most this many transfers sent per second (nil: as fast as possible).
    package var maximumTransfersPerSecond: Int?
    /// A deliberate bug, for proving that the tests catch it: acknowledge a batch *before* committing it.
    /// A crash between the two loses acknowledged transfers. Never on by default.
    package var acknowledgeBeforeCommit = false
    /// The receiver before the sequence rule (issue 39), for proving that the tests catch it: a transfer
    /// further ahead than the one after the cursor is taken, so a frame lost from the stream (or a
    /// forged one far ahead) moves the cursor past transfers never stored. Never on by default.
    package var acceptsAnySequence = false
    /// The lanes' rules before issue 51, for proving that the tests catch them (`--unsafe-trust-counterpart`):
    /// acknowledgements past what was sent, and contexts of any version, are taken as they come, so one
    /// forged frame drops a file never delivered or hides every later context. Never on by default.
    package var trustsCounterpart = false
    /// Fault injection (`phone-daemon --duplicate-rate R`): each received transfer is delivered to the
    /// app a second time with this probability (0...1), as a duplicating link would; the app's dedup
    /// by flight id must hold.
    package var duplicateDeliveryRate = 0.0
    /// The apps' own rule for what the counterpart's app can take, checked by `transferUserInfo` before
    /// anything is queued: a reason refuses the transfer with `payloadUnsupportedTypes`. Both apps set
    /// the same validator, and the receiving app decodes with the same rules, so nothing the sender
    /// accepted is refused on arrival (what still is, is quarantined, never dropped).
    package var userInfoValidator: (@Sendable (UserInfo) -> String?)?

    package init() {}
}

/// A WatchConnectivity-style session between two processes: one per simulated device.
///
/// Knows nothing of flights: it moves property-list dictionaries, durably and in order, and hands them
/// to its delegate. Everything runs on the event loop's thread, so delegate callbacks arrive serially.
/// The API follows `WCSession`: `activate()`, `activationState`, `isPaired`, `isWatchAppInstalled`,
/// `isReachable`, `transferUserInfo`, `outstandingUserInfoTransfers`, `updateApplicationContext`,
/// `receivedApplicationContext`, `sendMessage`.
///
/// This class is the I/O shell: it owns the store, the loop, the link and the delegate. What the session
/// *decides* — activation, the pairing check, the link's life, reachability, the apps' states, messages,
/// the end of a receive transaction — is `SessionCore`, a state machine it feeds events and whose
/// actions it carries out (`apply`).
package final class Session: LinkHandshakeParty {
    package let role: DeviceRole
    package let database: Database
    package let configuration: SessionConfiguration
    let loop: EventLoop
    let logger: Logger
    let transport: LinkTransport?
    /// Each lane's queue: the complication lane's (phone → watch) sent ahead of the userInfo lane's; the
    /// file lane's one row per file, the bytes in `FileQueue`.
    let outboxes: Lanes<Outbox>
    /// The userInfo lane's queue (`transferUserInfo`).
    var outbox: Outbox { outboxes.userInfo }
    /// The file lane's queue (`transferFile`).
    var fileOutbox: Outbox { outboxes.file }
    /// The file being sent on the current link, its queued copy open.
    var sendingFile: SendingFile?
    /// The file arriving on the current link.
    var incoming: IncomingFile?
    /// Fault injection (`runway … inbox-space-limit`): a file arriving may not grow past this many bytes,
    /// as if the disk were full.
    package var fileSpaceLimit: Int64?
    /// The device's clock (`runway clock`): the complication budget's day. The host sets it.
    package var deviceClock: () -> Double = { wallClockSeconds() }
    private var transportStarted = false
    /// How long activation's announcement may wait for the first link attempt to settle (0: not at all).
    /// A link that takes longer is told as a change (`sessionWatchStateDidChange`, reachability).
    package var firstLinkWaitMilliseconds: UInt64 = 1500

    package weak var handler: (any SessionHandler)?
    /// Told once per established link, after the handshake (the daemons log a version mismatch here).
    package var onLinkEstablished: ((Handshake) -> Void)?
    /// The apps' rule for what the counterpart's app can take (`SessionConfiguration.userInfoValidator`);
    /// the app may set it after the session is made.
    package var userInfoValidator: (@Sendable (UserInfo) -> String?)?
    /// Told of each `workout` frame (system-level workout traffic, `SessionWorkout.swift`).
    package var onWorkoutEvent: ((UserInfo) -> Void)?
    /// The watch: its app mirrors a workout the phone has not acknowledged all of (HealthKit sets it),
    /// said in the next `hello`, where phone-os reads it to launch the phone app.
    package var workoutMirroringPending = false

    /// Everything the session decides, as a pure state machine.
    var core: SessionCore
    /// The link, while one is established.
    var channel: LinkChannel?
    /// The descriptor of the link's established connection, if it runs over a socket (the OS keeps a copy
    /// of it while the app is suspended: `AppLaunch.storeLink`).
    package var linkDescriptor: Int32? { (channel as? UnixLinkConnection)?.stream.descriptor.rawValue }
    /// Nothing on its way out on the link: no frame in the air, nothing the kernel has not taken.
    package var linkIsQuiet: Bool {
        guard let channel else { return true }
        return channel.pendingOutboundBytes == 0 && ((channel as? UnixLinkConnection)?.bytesInAir ?? 0) == 0
    }
    /// Frames of the app's traffic left unread on the current link while the app was held (`appHeld`):
    /// when it joins, the link starts again so that the counterpart resends them.
    var heldFrames = 0
    var ratePumpScheduled = false
    /// The system's timing (`SystemTiming`, from `RUNWAY_SYSTEM`): realistic, it defers background transfers.
    package let systemTiming: SystemTiming = SystemTiming.current.timing
    /// When each deferred transfer or context may go, what was deferred (`SessionSystemTiming.swift`),
    /// and the pump's timer for the first of them.
    var systemDeferrals = SystemDeferralBook()
    var systemDeferralTimerAt: UInt64?
    /// The context version whose wait runs (the first not sent since the last that went).
    var contextDeferralID: Int64?
    /// The quiet-link pruning of delivered outbox rows, pushed back by every acknowledgement (`pruneDeliveredWhenQuiet`).
    var pruneTimer: EventLoop.TimerID?
    /// The app's completion for each message not yet answered, with its time-out (by message id).
    var messageCompletions: [Int64: PendingMessage] = [:]
    /// Transfers delivered to the app a second time (`duplicateDeliveryRate`) since start-up.
    package internal(set) var duplicatedDeliveries = 0

    package init(
        role: DeviceRole, database: Database, loop: EventLoop, transport: LinkTransport?,
        configuration: SessionConfiguration = SessionConfiguration(), logger: Logger
    ) {
        self.role = role
        self.database = database
        self.loop = loop
        self.transport = transport
        self.configuration = configuration
        self.core = SessionCore(
            role: role, userInfoByteLimit: configuration.userInfoByteLimit,
            window: SendWindow(maximumTransfers: configuration.windowTransfers, maximumBytes: configuration.windowBytes))
        core.trustsCounterpart = configuration.trustsCounterpart
        self.logger = logger
        self.outboxes = Lanes { Outbox(database: database, lane: $0) }
        self.userInfoValidator = configuration.userInfoValidator
        let (timing, problem) = SystemTiming.current
        if let problem { logger.warning("system.timing-unreadable", ["problem": problem, "using": "immediate"]) }
        if timing.realistic { logger.notice("system.timing", ["system": timing.text, "transferDeferralMs": "\(timing.transferDeferralRange)"]) }
    }

    // MARK: - The core's state, as the API shows it

    package var activationState: ActivationState { core.activationState }
    /// The state the app may read (`WCSession.activationState`): `.notActivated` until its delegate hears
    /// `activationDidComplete` — while the announcement waits for the first link, the session is activated
    /// inside but the app has not been told (Apple's `activationState`: "Use the
    /// `session(_:activationDidCompleteWith:error:)` method … to monitor changes"; issue 50: it read
    /// `.activated` up to the link's settling, ~300 ms, before its delegate heard it).
    package var announcedActivationState: ActivationState { core.announcementAwaitsLink ? .notActivated : core.activationState }
    /// This device's id, read from the store at activation.
    package var deviceID: String { core.deviceID }
    package var pairing: Pairing? { core.pairing }
    package var peer: Handshake? { core.peer }
    /// This side's own app state, told to the counterpart in the handshake and kept across restarts.
    package var localAppInstalled: Bool { core.local.installed }
    package var localAppActive: Bool { core.local.active }
    /// The counterpart app's state as last reported, kept across restarts (valid once activated).
    package var counterpartAppInstalled: Bool { core.counterpart.installed }
    package var counterpartAppActive: Bool { core.counterpart.active }
    package var counterpartAppVersion: String? { core.counterpartVersion }
    /// `message` frames received since launch (the no-instrument-stream tests watch it stay still).
    package var receivedMessageCount: Int { core.messages.receivedCount }
    /// Receive transactions that failed to commit (a full disk) since start-up.
    package var failedCommits: Int { core.failedCommits }
    package var isPaired: Bool { core.isPaired }
    /// Whether a link to the counterpart is up.
    package var isLinked: Bool { channel != nil }
    /// As on the device: the watch reaches the phone while the phone is in range — the link up, or the
    /// phone's system answering with its app not running (a message wakes it) — *and* its own app is in
    /// the foreground; the phone reaches the watch only while the link is up *and* the watch app is
    /// active (`SessionCore.isReachable`).
    package var isReachable: Bool { (channel != nil || role == .watch) && core.isReachable }
    /// Phone side: whether the watch app is installed, as the watch last reported (in a handshake or an
    /// app-state frame). Like the device's property, meaningful only once activated.
    package var isWatchAppInstalled: Bool { role == .phone ? counterpartAppInstalled : localAppInstalled }

    // MARK: - Activation

    /// Starts activation; `activationDidComplete` follows asynchronously (on the next loop iteration).
    /// The delegate must be set first, as on the device: transfers queued while the app was not running
    /// are delivered only to an activated session.
    package func activate() throws(WCError) {
        guard handler != nil else {
            throw WCError(.sessionMissingDelegate, "set the session's delegate before activating it")
        }
        handle(.activationRequested)
    }

    func completeActivation() {
        var awaitsLink = false
        do {
            handle(.deviceStateLoaded(try loadDeviceState()))
            sweepFileQueue()
            if !transportStarted, let transport {
                // A connection the OS handed over, or the watch's first connect: its state comes first.
                awaitsLink = transport.expectsLinkAtStart && firstLinkWaitMilliseconds > 0
                try transport.start(self)
                transportStarted = true
            }
        } catch {
            handle(.activationFailed(error))
            return
        }
        if awaitsLink {
            handle(.activationAwaitsFirstLink)
            loop.schedule(afterMilliseconds: firstLinkWaitMilliseconds) { [weak self] in self?.handle(.firstLinkSettled) }
        }
        handle(.activationSucceeded)
    }

    /// The device's system activates the session for its own traffic, the app not having activated it
    /// (`SessionEvent.systemActivationRequested`): the link comes up with no delegate to tell. Nothing if
    /// the session is activated or activating already. The app's own `activate()` later joins it.
    package func activateForSystem() {
        handle(.systemActivationRequested)
    }

    /// Activated by the system with the app not (yet) in it: the app's traffic waits, the app hears nothing.
    package var appHeld: Bool { core.appHeld }

    /// Shuts the session down for good: closes the link and stops the transport.
    package func deactivate() {
        transport?.stop()
        transportStarted = false
        handle(.deactivationRequested)
    }

    /// What activation reads: the device, its pairing and both apps' last known states.
    private func loadDeviceState() throws -> LoadedDeviceState {
        func flag(_ key: String, _ fallback: Bool) throws -> Bool {
            try SessionStore.stateValue(database, key).map { $0 == "1" } ?? fallback
        }
        return LoadedDeviceState(
            deviceID: try SessionStore.deviceID(database, role: role),
            pairing: try SessionStore.pairing(database),
            local: AppPresence(
                installed: try flag("app.installed", true), active: try flag("app.active", true),
                complicationEnabled: try flag("app.complication", false)),
            // The watch takes the phone app as installed until the phone's system says otherwise (7018).
            counterpart: AppPresence(
                installed: try flag("peer.installed", role == .watch), active: try flag("peer.active", false),
                complicationEnabled: try flag("peer.complication", false)),
            counterpartVersion: try SessionStore.stateValue(database, "peer.version"))
    }

    // MARK: - Device state

    /// Re-reads the pairing (after `runway pair` changed it while the daemon runs).
    package func reloadPairing() {
        let reloaded = try? SessionStore.pairing(database)
        // What was recorded of the watch app matters only for a pairing that is new.
        let installed =
            reloaded != nil && reloaded?.pairingID != core.pairing?.pairingID
            ? (try? SessionStore.stateValue(database, "peer.installed")).map { $0 == "1" } : nil
        handle(.pairingReloaded(reloaded, recordedCounterpartInstalled: installed))
    }

    /// This side's app was installed, removed, or moved between foreground and background: kept across
    /// restarts and told to the counterpart at once.
    package func setLocalAppState(installed: Bool, active: Bool) throws {
        try database.transaction {
            try SessionStore.setStateValue(database, "app.installed", installed ? "1" : "0")
            try SessionStore.setStateValue(database, "app.active", active ? "1" : "0")
        }
        handle(.localAppStateChanged(AppPresence(installed: installed, active: active, complicationEnabled: core.local.complicationEnabled)))
    }

    /// The OS says whether the app is in the foreground (`watch-os`: at launch, and on `app open|close`);
    /// whether it is installed stays as recorded.
    package func setLocalAppActive(_ active: Bool) throws {
        let installed = try SessionStore.stateValue(database, "app.installed").map { $0 == "1" } ?? true
        try setLocalAppState(installed: installed, active: active && installed)
    }

    /// The watch: a workout session started or ended (HealthKit's `HKWorkoutSession`, stood in for): while
    /// one runs, the app counts as active to the phone even in the background.
    package func setLocalWorkoutRunning(_ running: Bool) {
        handle(.localWorkoutChanged(running: running))
    }

    /// Whether a workout session runs on this watch.
    package var localWorkoutRunning: Bool { core.localWorkout }

    /// The watch: the app's complication was put on the active watch face, or taken off
    /// (`runway watch complication on|off`). Kept across restarts and told to the phone at once (its
    /// `isComplicationEnabled`, and the complication budget, which is 0 while it is off).
    package func setComplicationEnabled(_ enabled: Bool) throws {
        try database.transaction { try SessionStore.setStateValue(database, "app.complication", enabled ? "1" : "0") }
        var presence = core.local
        presence.complicationEnabled = enabled
        handle(.localAppStateChanged(presence))
    }

    /// This side's complication is on the watch face (the watch's own setting).
    package var localComplicationEnabled: Bool { core.local.complicationEnabled }
    /// Phone side: the watch's complication is on its active watch face, as the watch last said.
    package var counterpartComplicationEnabled: Bool { core.counterpart.complicationEnabled }

    // MARK: - Link events (from the transport)

    /// What this side says in the handshake.
    package func makeHandshake() throws -> Handshake {
        try core.requireServiceActivated()
        try requireStoreForAcknowledgement()
        guard let pairing else { throw WCError(.deviceNotPaired, "this \(role.rawValue) is not paired") }
        var handshake = try Handshake(
            store: database, role: role, deviceID: deviceID, pairing: pairing, appVersion: configuration.appVersion,
            appInstalled: localAppInstalled, appActive: core.announcedPresence.active, complicationEnabled: core.local.complicationEnabled)
        core.announcedLocal = core.announcedPresence
        core.contextAnnounced = handshake.contextVersion
        handshake.pendingTransfers = Int64(try outstandingTransferCount())
        handshake.pendingMessages = Int64(core.messages.awaitingLink.count)
        handshake.pendingWorkoutMirroring = role == .watch && workoutMirroringPending
        handshake.pendingContext = sentApplicationContextPending
        return handshake
    }

    /// The pair's secret, read afresh from the home (`runway pair` may have written a new one): what this
    /// side proves itself with in the handshake. A home without one (paired by an earlier RunWay, or
    /// unpaired) is told how to pair again.
    package func pairingSecret() throws(WCError) -> PairingSecret {
        guard let pairing else { throw WCError(.deviceNotPaired, "this \(role.rawValue) is not paired") }
        guard let secrets = configuration.pairingSecrets else {
            throw WCError(.deviceNotPaired, "this \(role.rawValue) keeps no pairing secrets, so it cannot prove the pairing")
        }
        do {
            return try secrets.read(pairingID: pairing.pairingID)
        } catch {
            throw WCError(.deviceNotPaired, "\(error): pair the homes again (runway pair --phone P --watch W)")
        }
    }

    /// Checks the counterpart's handshake against the pairing, read again first: nil if it may talk to us.
    package func validate(_ handshake: Handshake) -> WCError? {
        reloadPairing()
        let (verdict, actions) = core.validate(handshake)
        apply(actions)
        // A watch paired with this phone but not its active one is out of reach, not unknown: it keeps
        // its queue and is let in once it is switched to (`runway phone switch-watch`).
        if verdict?.code == .deviceNotPaired, role == .phone, handshake.role == .watch,
            let watch = try? PairedWatches.find(database, handshake.deviceID), watch.pairingID == handshake.pairingID
        {
            return WCError(.notReachable, "watch \(handshake.deviceID) is paired with this phone but is not its active watch (runway phone switch-watch)")
        }
        return verdict
    }

    /// A link is established: resume sending after what the counterpart already has.
    package func channelDidOpen(_ newChannel: LinkChannel, peer handshake: Handshake) {
        handle(.linkOpening(replacing: channel != nil && channel !== newChannel))
        channel = newChannel
        handle(.linkUp(handshake))
        let cursors: Lanes<Int64>
        do {
            cursors = try Lanes { try SessionStore.receiveCursor(database, peer: handshake.deviceID, lane: $0) }
            try resumeSending(after: handshake.resume)
            healContextVersion(handshake)
        } catch {
            handle(.linkResumeFailed("\(error)"))
            return
        }
        handle(.linkEstablished(receiveCursors: cursors))
    }

    /// The link went down (either side closed it, or it failed).
    package func channelDidClose(_ closed: LinkChannel, reason: String) {
        guard closed === channel else { return }
        // A file half-sent or half-received is resumed from the receiver's durable point next time.
        sendingFile = nil
        incoming = nil
        handle(.linkClosed(reason: reason))
    }

    package func channelDidDrain(_ drained: LinkChannel) {
        guard drained === channel else { return }
        pump()
    }

    /// The counterpart turned our handshake away: a phone app not installed (7018) or an iPhone not unlocked
    /// since it restarted (its `error` frame says so) is remembered; the rest is only logged.
    package func counterpartRefused(_ error: WCError) {
        handle(.refusedByCounterpart(error))
    }

    /// The phone's system said what its app is without a link (`phone-os` declining a `hello`).
    package func counterpartStateOutsideLink(installed: Bool?, active: Bool?) {
        handle(.counterpartStateOutsideLink(installed: installed, active: active))
    }

    /// The watch's transport: nobody listens on the phone's link socket, or the link was taken down (out
    /// of range); the phone is in range again once its system answers (a link, or a declined `hello`).
    package func counterpartOutOfRange() {
        handle(.counterpartOutOfRange)
    }

    /// watchOS: the iPhone is unreachable because it has not been unlocked since it restarted (its system
    /// said so when it turned the link away); false again once a link is up.
    package var counterpartNeedsUnlockAfterReboot: Bool { core.counterpartNeedsUnlock }

    /// Whether the counterpart still has content for this side: what its last handshake said it had
    /// pending, less what arrived since, or a file half-received (`hasContentPending`).
    package var hasContentPending: Bool { core.contentPending > 0 || core.contextPending || incoming != nil }

    /// Frames from the established link, in arrival order.
    package func channel(_ source: LinkChannel, didReceive frames: [Frame]) {
        guard source === channel else { return }
        receive(frames, from: source)
    }
}
