import Posix
import Storage

/// Tunables of a session. The defaults are what the daemons use.
public struct SessionConfiguration: Sendable {
    /// The app's version, sent in the handshake (`--app-version`; the seed's 1.4 by default).
    public var appVersion = "1.4"
    /// At most this many transfers sent and not yet acknowledged (flow control): memory on both sides
    /// is bounded by the window, not by the backlog.
    public var windowTransfers = 4096
    /// ... and at most this many bytes of them.
    public var windowBytes = 16 << 20
    /// Stop producing frames while the socket has more than this many bytes queued.
    public var outboundHighWaterBytes = 1 << 20
    /// The largest userInfo or message, encoded (Apple's limit).
    public var userInfoByteLimit = 65_536
    /// The largest application context, encoded (Apple's limit).
    public var contextByteLimit = 262_144
    /// How long `sendMessage` waits for a reply by default.
    public var messageTimeoutMilliseconds: UInt64 = 10_000
    /// Simulates a slow link: at most this many transfers sent per second (nil: as fast as possible).
    public var maximumTransfersPerSecond: Int?
    /// A deliberate bug, for proving that the tests catch it: acknowledge a batch *before* committing it.
    /// A crash between the two loses acknowledged transfers. Never on by default.
    public var acknowledgeBeforeCommit = false
    /// Fault injection (`phone-daemon --duplicate-rate R`): each received transfer is delivered to the
    /// app a second time with this probability (0...1), as a duplicating link would; the app's dedup
    /// by flight id must hold.
    public var duplicateDeliveryRate = 0.0
    /// The apps' own rule for what the counterpart's app can take, checked by `transferUserInfo` before
    /// anything is queued: a reason refuses the transfer with `payloadUnsupportedTypes`. Both apps set
    /// the same validator, and the receiving app decodes with the same rules, so nothing the sender
    /// accepted is refused on arrival (what still is, is quarantined, never dropped).
    public var userInfoValidator: (@Sendable (UserInfo) -> String?)?

    public init() {}
}

/// A WatchConnectivity-style session between two processes: one per simulated device.
///
/// Knows nothing of flights: it moves property-list dictionaries, durably and in order, and hands them
/// to its delegate. Everything runs on the event loop's thread, so delegate callbacks arrive serially.
/// The API follows `WCSession`: `activate()`, `activationState`, `isPaired`, `isWatchAppInstalled`,
/// `isReachable`, `transferUserInfo`, `outstandingUserInfoTransfers`, `updateApplicationContext`,
/// `receivedApplicationContext`, `sendMessage`.
public final class Session {
    public let role: DeviceRole
    public let database: Database
    public let configuration: SessionConfiguration
    let loop: EventLoop
    let logger: Logger
    let transport: LinkTransport?
    let outbox: Outbox
    private var transportStarted = false

    public weak var delegate: SessionDelegate?
    /// Told once per established link, after the handshake (the daemons log a version mismatch here).
    public var onLinkEstablished: ((Handshake) -> Void)?
    /// Told of each `workout` frame (system-level workout traffic, `SessionWorkout.swift`).
    public var onWorkoutEvent: ((UserInfo) -> Void)?
    /// `message` frames received since launch (the no-instrument-stream tests watch it stay still).
    public internal(set) var receivedMessageCount = 0
    public internal(set) var activationState: ActivationState = .notActivated
    private var activationRequested = false

    /// This device's id, read from the store at activation.
    public private(set) var deviceID = ""
    public private(set) var pairing: Pairing?
    /// The pairing this activation is for: a different one appearing means the watch was switched.
    private var activePairingID: String?

    // The link, while one is established.
    var channel: LinkChannel?
    public internal(set) var peer: Handshake?
    /// This side's own app state, told to the counterpart in the handshake and kept across restarts.
    public private(set) var localAppInstalled = true
    public private(set) var localAppActive = true
    /// The counterpart app's state as last reported, kept across restarts (valid once activated).
    public private(set) var counterpartAppInstalled = false
    public private(set) var counterpartAppActive = false
    public private(set) var counterpartAppVersion: String?

    // Sending (see SessionSender.swift).
    /// The sender's window: what is on the wire, what is acknowledged, fail-next, the rate (pure).
    var window: SendWindow
    public var lastSentSeq: Int64 { window.lastSentSeq }
    public var lastAckedSeq: Int64 { window.lastAckedSeq }
    /// Transfers sent and not yet acknowledged (never more than the window).
    public var transfersInFlight: Int { window.transfersInFlight }
    var outboxMayHaveMore = true
    var ratePumpScheduled = false
    /// Fault injection (`runway link fail-next`): how many transfers are still to fail, and with what.
    public var failNextCount: Int { window.failNextCount }
    public var failNextCode: WCError.Code { window.failNextCode }

    // Receiving (see SessionReceiver.swift).
    var receiveCursor: Int64 = 0
    /// Receive transactions that failed to commit (a full disk) since start-up.
    public internal(set) var failedCommits = 0
    /// Transfers delivered to the app a second time (`duplicateDeliveryRate`) since start-up.
    public internal(set) var duplicatedDeliveries = 0

    // Messages (see SessionMessages.swift).
    var nextMessageID: Int64 = 1
    var pendingMessages: [Int64: PendingMessage] = [:]
    /// Messages sent from the watch while the link was down, waiting for it (their whole frames, by id):
    /// the `hello` says how many, phone-os launches the phone app for them (`SessionMessageWake.swift`).
    var messagesAwaitingLink: [Int64: [UInt8]] = [:]

    public init(
        role: DeviceRole, database: Database, loop: EventLoop, transport: LinkTransport?,
        configuration: SessionConfiguration = SessionConfiguration(), logger: Logger
    ) {
        self.role = role
        self.database = database
        self.loop = loop
        self.transport = transport
        self.configuration = configuration
        self.window = SendWindow(maximumTransfers: configuration.windowTransfers, maximumBytes: configuration.windowBytes)
        self.logger = logger
        self.outbox = Outbox(database: database)
    }

    // MARK: - Activation

    /// Starts activation; `activationDidComplete` follows asynchronously (on the next loop iteration).
    /// The delegate must be set first, as on the device: transfers queued while the app was not running
    /// are delivered only to an activated session.
    public func activate() throws(WCError) {
        guard delegate != nil else {
            throw WCError(.sessionMissingDelegate, "set the session's delegate before activating it")
        }
        guard !activationRequested else { return }
        activationRequested = true
        loop.deferToEndOfIteration { [weak self] in self?.completeActivation() }
    }

    private func completeActivation() {
        do {
            deviceID = try SessionStore.deviceID(database, role: role)
            pairing = try SessionStore.pairing(database)
            activePairingID = pairing?.pairingID
            try loadDeviceState()
            window.forgetAcknowledgements()
            if !transportStarted {
                try transport?.start(self)
                transportStarted = true
            }
        } catch {
            logger.error("session.activation-failed", ["error": "\(error)"])
            activationRequested = false
            delegate?.session(self, activationDidCompleteWith: .notActivated, error: error)
            return
        }
        activationState = .activated
        logger.info("session.activated", ["device": deviceID, "paired": isPaired])
        delegate?.session(self, activationDidCompleteWith: .activated, error: nil)
        replayFinishedTransfers()
    }

    /// Shuts the session down for good: closes the link and stops the transport.
    public func deactivate() {
        transport?.stop()
        transportStarted = false
        channel?.close(error: nil, reason: "session deactivated")
        channel = nil
        failPendingMessages(WCError(.notReachable, "the session was deactivated"))
        activationState = .notActivated
        activationRequested = false
    }

    /// The paired counterpart changed while running (the user switched watches): as on the phone, the
    /// session goes `inactive`, then `notActivated`; the app is told and must activate again.
    func counterpartSwitched() {
        guard activationState == .activated else { return }
        logger.notice("session.watch-switched", ["from": activePairingID ?? "-", "to": pairing?.pairingID ?? "-"])
        activationState = .inactive
        channel?.close(error: nil, reason: "paired device switched")
        failPendingMessages(WCError(.sessionInactive, "the paired device was switched"))
        delegate?.sessionDidBecomeInactive(self)
        loop.deferToEndOfIteration { [weak self] in
            guard let self else { return }
            self.activationState = .notActivated
            self.activationRequested = false
            self.delegate?.sessionDidDeactivate(self)
        }
    }

    // MARK: - Device state

    public var isPaired: Bool { pairing != nil }

    /// Phone side: whether the watch app is installed, as the watch last reported (in a handshake or an
    /// app-state frame). Like the device's property, meaningful only once activated.
    public var isWatchAppInstalled: Bool { role == .phone ? counterpartAppInstalled : localAppInstalled }

    /// Re-reads the pairing (after `runway pair` changed it while the daemon runs).
    public func reloadPairing() {
        let before = pairing?.pairingID
        pairing = (try? SessionStore.pairing(database)) ?? pairing
        // A new pairing brings what `runway pair` recorded of the watch app (the pairing seed).
        if activationState == .activated, pairing?.pairingID != before,
            let installed = try? SessionStore.stateValue(database, "peer.installed")
        {
            counterpartAppInstalled = installed == "1"
        }
    }

    /// Whether a link to the counterpart is up.
    public var isLinked: Bool { channel != nil }

    /// As on the device: the watch reaches the phone while the link is up *and* its own app is in the
    /// foreground (watchOS: "the WatchKit extension is running in the foreground"; a message wakes the
    /// phone app); the phone reaches the watch only while the link is up *and* the watch app is active.
    public var isReachable: Bool {
        guard peer != nil, channel != nil, activationState == .activated else { return false }
        return role == .watch ? (localAppInstalled && localAppActive) : (counterpartAppInstalled && counterpartAppActive)
    }

    private func loadDeviceState() throws {
        func flag(_ key: String, _ fallback: Bool) throws -> Bool {
            try SessionStore.stateValue(database, key).map { $0 == "1" } ?? fallback
        }
        localAppInstalled = try flag("app.installed", true)
        localAppActive = try flag("app.active", true)
        counterpartAppInstalled = try flag("peer.installed", false)
        counterpartAppActive = try flag("peer.active", false)
        counterpartAppVersion = try SessionStore.stateValue(database, "peer.version")
    }

    /// This side's app was installed, removed, or moved between foreground and background: kept across
    /// restarts and told to the counterpart at once.
    public func setLocalAppState(installed: Bool, active: Bool) throws {
        try database.transaction {
            try SessionStore.setStateValue(database, "app.installed", installed ? "1" : "0")
            try SessionStore.setStateValue(database, "app.active", active ? "1" : "0")
        }
        localAppInstalled = installed
        localAppActive = active
        logger.info("app.state", ["installed": installed, "active": active])
        guard let channel else { return }
        let payload = PropertyListCodec.encode(["appInstalled": .bool(installed), "appActive": .bool(active)])
        channel.send(Frame(.appState, payload).encoded)
    }

    /// The counterpart reported its app's state: remember it and tell the delegate what changed
    /// (callers compare reachability around this call: it depends on the link too).
    func updateCounterpartAppState(installed: Bool, active: Bool, version: String?) {
        let changed =
            installed != counterpartAppInstalled || active != counterpartAppActive
            || (version != nil && version != counterpartAppVersion)
        counterpartAppInstalled = installed
        counterpartAppActive = active
        if let version { counterpartAppVersion = version }
        do {
            try database.transaction {
                try SessionStore.setStateValue(database, "peer.installed", installed ? "1" : "0")
                try SessionStore.setStateValue(database, "peer.active", active ? "1" : "0")
                if let version { try SessionStore.setStateValue(database, "peer.version", version) }
            }
        } catch {
            logger.warning("peer.state-not-saved", ["error": "\(error)"])
        }
        if changed { delegate?.sessionWatchStateDidChange(self) }
        if installed && role == .phone { outboxMayHaveMore = true }
    }

    // MARK: - Link events (from the transport)

    /// What this side says in the handshake.
    public func makeHandshake() throws -> Handshake {
        try requireActivated()
        try requireStoreForAcknowledgement()
        guard let pairing else { throw WCError(.deviceNotPaired, "this \(role.rawValue) is not paired") }
        let peerID = pairing.counterpartID(of: role)
        var handshake = Handshake(
            role: role, deviceID: deviceID, pairingID: pairing.pairingID, appVersion: configuration.appVersion,
            resumeSeq: try SessionStore.receiveCursor(database, peer: peerID),
            appInstalled: localAppInstalled, appActive: localAppActive)
        handshake.pendingTransfers = Int64(try outstandingUserInfoTransferCount())
        handshake.pendingMessages = Int64(messagesAwaitingLink.count)
        return handshake
    }

    /// Checks the counterpart's handshake against the pairing: nil if it may talk to us.
    public func validate(_ handshake: Handshake) -> WCError? {
        reloadPairing()
        if activationState == .activated, let pairing, let activePairingID, pairing.pairingID != activePairingID {
            counterpartSwitched()
        }
        switch activationState {
        case .activated: break
        case .inactive: return WCError(.sessionInactive, "the \(role.rawValue)'s session is inactive")
        case .notActivated: return WCError(.sessionNotActivated, "the \(role.rawValue)'s session is not activated")
        }
        guard let pairing else {
            return WCError(.deviceNotPaired, "this \(role.rawValue) (\(deviceID)) is not paired with any device")
        }
        guard handshake.role == role.counterpart,
            handshake.pairingID == pairing.pairingID,
            handshake.deviceID == pairing.counterpartID(of: role)
        else {
            return WCError(
                .deviceNotPaired,
                "\(handshake.role.rawValue) \(handshake.deviceID) (pairing \(handshake.pairingID)) is not paired with this \(role.rawValue) (paired with \(pairing.counterpartID(of: role)), pairing \(pairing.pairingID))"
            )
        }
        return nil
    }

    /// A link is established: resume sending after what the counterpart already has.
    public func channelDidOpen(_ newChannel: LinkChannel, peer handshake: Handshake) {
        let wasReachable = isReachable
        if let old = channel, old !== newChannel {
            old.close(error: nil, reason: "replaced by a new connection from the same device")
        }
        channel = newChannel
        peer = handshake
        do {
            receiveCursor = try SessionStore.receiveCursor(database, peer: handshake.deviceID)
            try resumeSending(after: handshake.resumeSeq)
        } catch {
            logger.error("link.resume-failed", ["error": "\(error)"])
            newChannel.close(error: WCError(.genericError, "could not resume: \(error)"), reason: "resume failed")
            return
        }
        logger.info(
            "link.established",
            [
                "peer": handshake.deviceID, "peerVersion": handshake.appVersion,
                "peerResume": handshake.resumeSeq, "localResume": receiveCursor,
            ])
        onLinkEstablished?(handshake)
        updateCounterpartAppState(installed: handshake.appInstalled, active: handshake.appActive, version: handshake.appVersion)
        if wasReachable != isReachable { delegate?.sessionReachabilityDidChange(self) }
        sendApplicationContextIfNeeded()
        sendMessagesAwaitingLink()
        pump()
    }

    /// The link went down (either side closed it, or it failed).
    public func channelDidClose(_ closed: LinkChannel, reason: String) {
        guard closed === channel else { return }
        let wasReachable = isReachable
        channel = nil
        window.linkClosed()
        failPendingMessages(WCError(.notReachable, "the link went down before the reply arrived"))
        logger.info("link.closed", ["reason": reason])
        if wasReachable { delegate?.sessionReachabilityDidChange(self) }
    }

    public func channelDidDrain(_ drained: LinkChannel) {
        guard drained === channel else { return }
        pump()
    }

    /// Frames from the established link, in arrival order.
    public func channel(_ source: LinkChannel, didReceive frames: [Frame]) {
        guard source === channel else { return }
        receive(frames, from: source)
    }
}
