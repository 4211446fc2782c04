import Posix
import PropertyLists

/// The session as a state machine: every rule of activation, pairing, the link's life, reachability, the
/// apps' states, messages and the end of a receive transaction, with no loop, socket or database.
/// `Session` is the I/O shell around it: it reads the store, feeds events in (`handle`) and carries out
/// the actions that come back, in order. Three older pure pieces do the rest: `LinkHandshake`,
/// `SendWindow` (the sender) and `LinkInbound` (a read's frames), with `ReceiveTransaction` for the
/// receive transaction's fold. Every rule here is a unit test (`SessionCoreTests`).
///
/// Its events are handled by family, each in a file of its own: activation, pairing and the watch switch
/// (`SessionCoreActivation.swift`), the link and the apps' states (here), messages
/// (`SessionCoreMessages.swift`) and the end of a receive transaction (`SessionCoreReceive.swift`). Its
/// state is set only there; the shell reads it.
struct SessionCore {
    let role: DeviceRole
    /// The largest userInfo or message, encoded.
    let userInfoByteLimit: Int

    var activationState: ActivationState = .notActivated
    /// Activated, with `activationDidComplete` held until the first link attempt settles: Apple's state
    /// properties are valid when the app hears of activation (the system knows the watch before it calls
    /// the app), so the counterpart's state from that link arrives first, and the changes it brings are
    /// not told as changes (`sessionWatchStateDidChange`/`sessionReachabilityDidChange` are for later ones).
    var announcementAwaitsLink = false
    var activationRequested = false
    /// Activated by the system, the app's own session not (`systemActivationRequested`): the link and the
    /// system's traffic run; the app is told nothing, its API is `sessionNotActivated`, and its traffic
    /// from the counterpart is not taken (the shell leaves those frames unread and unacknowledged; a
    /// message is answered `notReachable`). Cleared when the app activates.
    var appHeld = false
    var deviceID = ""
    var pairing: Pairing?
    /// The pairing this activation is for: a different one appearing means the watch was switched.
    var activePairingID: String?

    var isLinked = false
    /// The counterpart's handshake on the current (or last) link.
    var peer: Handshake?
    var reachableBeforeLink = false
    var local = AppPresence(installed: true, active: true)
    /// This side's app state as its last handshake (or `appState` frame) told the counterpart.
    var announcedLocal: AppPresence?
    var counterpart = AppPresence(installed: false, active: false)
    var counterpartVersion: String?

    /// Each lane's sender's window, whether its outbox may hold more, and its receive cursor.
    var lanes: Lanes<LaneState>
    /// The watch: the iPhone turned the link away, not unlocked since it restarted.
    var counterpartNeedsUnlock = false
    /// The watch: the phone's system answered the last attempt (a link, or a `hello` declined with its
    /// app's state), so the phone is in range though no link may be up; false once nobody listens.
    var counterpartInRange = false
    /// The watch: a workout session runs (its app has a high priority in the background).
    var localWorkout = false

    /// This side's app as the counterpart is told it: on the watch, a running workout makes a
    /// backgrounded app active ("running with a high priority in the background").
    var announcedPresence: AppPresence {
        var presence = local
        if role == .watch, localWorkout, presence.installed { presence.active = true }
        return presence
    }
    /// What the counterpart's handshake said it had pending for this side, less what arrived since.
    var contentPending: Int64 = 0
    /// The counterpart's handshake said it has an application context this side has not acknowledged:
    /// pending content until it arrives (`hasContentPending`, Apple: "true if the session has received
    /// data in the background but has not yet delivered that data", `updateApplicationContext(_:)` first
    /// among them).
    var contextPending = false
    /// The file lane's sender: one file at a time, chunks within its window.
    var fileWindow = FileSendWindow()
    /// Receive transactions that failed to commit since start-up.
    var failedCommits = 0
    /// The rules before issue 51, for the tests that show what they lost (`--unsafe-trust-counterpart`):
    /// an acknowledgement past what was sent is taken up to it, a context of any version is taken, a
    /// file is acknowledged whatever the receiver reported, and a file may be announced past the next.
    var trustsCounterpart = false
    /// The application context's versions on the current link: the one this side announced in its
    /// handshake, and the highest it sent and received on it (`ApplicationContextRules.limit`).
    var contextAnnounced: Int64 = 0
    var contextSentOnLink: Int64 = 0
    var contextReceivedOnLink: Int64 = 0

    var messages = MessageBook()

    init(role: DeviceRole, userInfoByteLimit: Int, window: SendWindow) {
        self.role = role
        self.userInfoByteLimit = userInfoByteLimit
        self.lanes = Lanes { lane in
            LaneState(window: lane.spec.window.map { SendWindow(maximumTransfers: $0.transfers, maximumBytes: $0.bytes) } ?? window)
        }
    }

    /// The userInfo lane's window: the one the app's API and `runway … status` show.
    var window: SendWindow {
        _read { yield lanes.userInfo.window }
        _modify { yield &lanes.userInfo.window }
    }

    // MARK: - Derived state

    var isPaired: Bool { pairing != nil }

    /// As on the device: the watch reaches the phone while the phone is in range (the link up, or its
    /// system answering a declined `hello`: the phone app need not run, a message wakes it) *and* its own
    /// app is in the foreground; the phone reaches the watch only while the link is up *and* the watch
    /// app is installed and active.
    var isReachable: Bool {
        guard activationState == .activated else { return false }
        let linked = peer != nil && isLinked
        guard role == .watch else { return linked && counterpart.installed && counterpart.active }
        // watchOS: the iPhone in range is enough — its app need not run, a message wakes it.
        let inRange = linked || (counterpartInRange && counterpart.installed && !counterpartNeedsUnlock)
        return inRange && local.installed && announcedPresence.active
    }

    /// Whether the pump may send: a link, an activated session, and on the phone a watch app to send to.
    var maySend: Bool {
        isLinked && activationState == .activated && counterpart.installed
    }

    func requireActivated() throws(WCError) {
        guard !appHeld else { throw WCError(.sessionNotActivated, "activate the session before sending (WCSession.default.activate())") }
        try requireServiceActivated()
    }

    /// The device's service is activated (by the app or by its system): what the link's handshake needs.
    func requireServiceActivated() throws(WCError) {
        switch activationState {
        case .activated: return
        case .inactive: throw WCError(.sessionInactive, "the session is inactive (the paired device was switched)")
        case .notActivated: throw WCError(.sessionNotActivated, "activate the session before sending")
        }
    }

    /// The phone cannot send to a watch app that is not installed (as far as the watch last said).
    func requireCounterpartApp() throws(WCError) {
        guard role == .phone else {
            // The watch: only once the phone's system said so (7018); until then the app is taken as there.
            guard counterpart.installed else {
                throw WCError(.companionAppNotInstalled, "the RunWay app is not installed on the iPhone (runway phone app install)")
            }
            return
        }
        guard isPaired else { throw WCError(.deviceNotPaired, "no watch is paired with this phone") }
        guard counterpart.installed else {
            throw WCError(.watchAppNotInstalled, "the RunWay watch app is not installed on the paired watch")
        }
    }

    // MARK: - Events

    mutating func handle(_ event: SessionEvent) -> [SessionAction] {
        switch event {
        case .activationRequested, .systemActivationRequested, .deviceStateLoaded, .activationFailed, .activationAwaitsFirstLink, .activationSucceeded,
            .firstLinkSettled:
            return handleActivationEvent(event)
        case .deactivationRequested, .deactivationFinished, .deactivationSettled, .pairingReloaded, .watchSwitchBegan, .switchSettled:
            return handleDeactivationEvent(event)
        case let .linkOpening(replacing):
            reachableBeforeLink = isReachable
            return replacing ? [.closeLink(nil, reason: "replaced by a new connection from the same device")] : []
        case let .linkUp(handshake):
            return linkUp(handshake)
        case let .linkEstablished(cursors):
            return linkEstablished(receiveCursors: cursors)
        case let .linkResumeFailed(why):
            return [
                .log(LogLine(.error, "link.resume-failed", ("error", why))),
                .closeLink(WCError(.genericError, "could not resume: \(why)"), reason: "resume failed"),
            ]
        case let .linkClosed(reason):
            return linkClosed(reason: reason)
        case let .counterpartStateOutsideLink(installed, active):
            return counterpartStateOutsideLink(installed: installed, active: active)
        case .counterpartOutOfRange:
            return counterpartOutOfRange()
        case let .refusedByCounterpart(error):
            return refusedByCounterpart(error)
        case let .contentArrived(count):
            contentPending = max(0, contentPending - Int64(count))
            return []
        case let .counterpartAppStateReported(installed, active, complicationEnabled):
            return counterpartAppStateReported(installed: installed, active: active, complicationEnabled: complicationEnabled)
        case let .acknowledgementReceived(upTo, lane):
            return acknowledgementReceived(upTo: upTo, lane: lane)
        case let .localAppStateChanged(presence):
            return localAppStateChanged(presence)
        case let .localWorkoutChanged(running):
            return localWorkoutChanged(running)
        case let .batchCommitted(transaction, milliseconds):
            return batchCommitted(transaction, milliseconds: milliseconds)
        case let .batchRolledBack(transaction, error, storeFull):
            return batchRolledBack(transaction, error: error, storeFull: storeFull)
        case .messageSendRequested, .messageFrameReceived, .messageTimedOut, .messagesFailed, .messagesAwaitingLinkMaySend,
            .linkAttemptFailed:
            return handleMessageEvent(event)
        }
    }

    // MARK: - The link's life

    private mutating func linkUp(_ handshake: Handshake) -> [SessionAction] {
        isLinked = true
        peer = handshake
        contextSentOnLink = 0
        contextReceivedOnLink = 0
        return announcementAwaitsLink ? announceWithFirstLink(handshake) : []
    }

    private mutating func linkClosed(reason: String) -> [SessionAction] {
        let wasReachable = isReachable
        isLinked = false
        for lane in TransferLane.allCases { lanes[lane].window.linkClosed() }
        fileWindow.linkClosed()
        var actions: [SessionAction] = [
            .dropLink,
            .then(.messagesFailed(WCError(.notReachable, "the link went down before the reply arrived"))),
            .log(LogLine(.info, "link.closed", ("reason", reason))),
        ]
        if wasReachable != isReachable { actions.append(.tell(.reachabilityDidChange)) }
        return actions
    }

    private mutating func acknowledgementReceived(upTo: Int64, lane: TransferLane) -> [SessionAction] {
        // Never past what was sent (the window's rule): deleting something not sent would lose it.
        let released: Int64
        switch lanes[lane].window.acknowledge(upTo: upTo, trusting: trustsCounterpart) {
        case .nothingNew: return []
        case let .violation(why): return [.protocolViolation("\(lane.spec.ack) \(why)")]
        case let .moved(upTo): released = upTo
        }
        return [
            .crashPoint("send.after-ack-received"), .releaseOutbox(upTo: released, lane: lane), .reportFinishedTransfers(replayed: false), .pump,
        ]
    }

    // MARK: - The counterpart's state

    private mutating func counterpartStateOutsideLink(installed: Bool?, active: Bool?) -> [SessionAction] {
        let wasReachable = isReachable
        var actions: [SessionAction] = []
        if role == .watch, activationState == .activated, !counterpartInRange {
            counterpartInRange = true
            actions.append(.log(LogLine(.info, "link.phone-in-range", ("via", "the phone's system, its app not running"))))
        }
        // The phone's system answers again, without `lockedAfterReboot`: it has been unlocked since it
        // restarted (`iOSDeviceNeedsUnlockAfterRebootForReachability` false again), and the phone is in
        // range with its app not running — reachable, as watchOS says (issue 50: it stayed unreachable
        // until the phone's app ran and a link came up).
        let wasLocked = counterpartNeedsUnlock
        if role == .watch, counterpartNeedsUnlock {
            counterpartNeedsUnlock = false
            actions.append(.log(LogLine(.info, "peer.unlocked", ("via", "the phone's system answered"))))
        }
        let presence = AppPresence(
            installed: installed ?? counterpart.installed, active: active ?? counterpart.active, complicationEnabled: counterpart.complicationEnabled)
        if presence.installed != counterpart.installed {
            actions += [.log(LogLine(.info, "peer.app-state", ("installed", presence.installed), ("via", "the phone's system")))]
            actions += adoptCounterpart(presence, version: nil)
        }
        if wasReachable != isReachable || wasLocked { actions.append(.tell(.reachabilityDidChange)) }
        return actions
    }

    private mutating func counterpartOutOfRange() -> [SessionAction] {
        guard role == .watch, counterpartInRange else { return [] }
        let wasReachable = isReachable
        counterpartInRange = false
        var actions: [SessionAction] = [.log(LogLine(.info, "link.phone-out-of-range"))]
        if wasReachable != isReachable { actions.append(.tell(.reachabilityDidChange)) }
        return actions
    }

    private mutating func refusedByCounterpart(_ error: WCError) -> [SessionAction] {
        let wasReachable = isReachable
        // Turned away with an error: not a phone that would take us now.
        counterpartInRange = false
        var actions: [SessionAction] = []
        if error.code == .companionAppNotInstalled, role == .watch, counterpart.installed {
            actions += [.log(LogLine(.notice, "peer.app-state", ("installed", false), ("via", "7018 from the phone's system")))]
            actions += adoptCounterpart(AppPresence(installed: false, active: false, complicationEnabled: counterpart.complicationEnabled), version: nil)
        }
        if error.lockedAfterReboot, !counterpartNeedsUnlock {
            counterpartNeedsUnlock = true
            actions += [.log(LogLine(.notice, "peer.locked-after-reboot")), .tell(.reachabilityDidChange)]
        } else if wasReachable != isReachable {
            actions.append(.tell(.reachabilityDidChange))
        }
        return actions
    }

    private mutating func counterpartAppStateReported(installed: Bool?, active: Bool?, complicationEnabled: Bool?) -> [SessionAction] {
        let wasReachable = isReachable
        let presence = AppPresence(
            installed: installed ?? counterpart.installed, active: active ?? counterpart.active,
            complicationEnabled: complicationEnabled ?? counterpart.complicationEnabled)
        var actions: [SessionAction] = [.log(LogLine(.info, "peer.app-state", ("installed", presence.installed), ("active", presence.active)))]
        actions += adoptCounterpart(presence, version: nil)
        if wasReachable != isReachable { actions.append(.tell(.reachabilityDidChange)) }
        actions.append(.pump)
        return actions
    }

    // MARK: - This side's app

    private mutating func localAppStateChanged(_ presence: AppPresence) -> [SessionAction] {
        let wasReachable = isReachable
        local = presence
        var actions: [SessionAction] = [.log(LogLine(.info, "app.state", ("installed", presence.installed), ("active", presence.active)))]
        if isLinked {
            actions.append(.send(appStateFrame(announcedPresence)))
            announcedLocal = announcedPresence
        }
        // The watch's own reachability follows its app's foreground: its delegate hears of it too.
        if wasReachable != isReachable { actions.append(.tell(.reachabilityDidChange)) }
        return actions
    }

    private mutating func localWorkoutChanged(_ running: Bool) -> [SessionAction] {
        guard role == .watch, running != localWorkout else { return [] }
        let wasReachable = isReachable
        localWorkout = running
        var actions: [SessionAction] = [.log(LogLine(.info, "app.workout", ("running", running)))]
        if isLinked, announcedLocal != announcedPresence {
            actions.append(.send(appStateFrame(announcedPresence)))
            announcedLocal = announcedPresence
        }
        if wasReachable != isReachable { actions.append(.tell(.reachabilityDidChange)) }
        return actions
    }

    /// Checks the counterpart's handshake against the pairing (read again just before, `pairingReloaded`):
    /// nil if it may talk to us. A different pairing than activation's means the user switched watches:
    /// as on the phone, the session goes `inactive` now and `notActivated` an iteration later, and the app
    /// is told of both (the actions).
    mutating func validate(_ handshake: Handshake) -> (verdict: WCError?, actions: [SessionAction]) {
        var actions: [SessionAction] = []
        if activationState == .activated, let pairing, let activePairingID, pairing.pairingID != activePairingID {
            activationState = .inactive
            actions = [
                .log(LogLine(.notice, "session.watch-switched", ("from", activePairingID), ("to", pairing.pairingID))),
                .closeLink(nil, reason: "paired device switched"),
                .then(.messagesFailed(WCError(.sessionInactive, "the paired device was switched"))),
                .tell(.didBecomeInactive),
                .later(.switchSettled),
            ]
        }
        switch activationState {
        case .activated: break
        case .inactive: return (WCError(.sessionInactive, "the \(role.rawValue)'s session is inactive"), actions)
        case .notActivated: return (WCError(.sessionNotActivated, "the \(role.rawValue)'s session is not activated"), actions)
        }
        guard let pairing else {
            return (WCError(.deviceNotPaired, "this \(role.rawValue) (\(deviceID)) is not paired with any device"), actions)
        }
        guard handshake.role == role.counterpart,
            handshake.pairingID == pairing.pairingID,
            handshake.deviceID == pairing.counterpartID(of: role)
        else {
            let verdict = WCError(
                .deviceNotPaired,
                "\(handshake.role.rawValue) \(handshake.deviceID) (pairing \(handshake.pairingID)) is not paired with this \(role.rawValue) (paired with \(pairing.counterpartID(of: role)), pairing \(pairing.pairingID))"
            )
            return (verdict, actions)
        }
        return (nil, actions)
    }

    /// Whether `action` tells of a change of the counterpart's state or of reachability: while
    /// activation's announcement is held, such changes are part of the state the app first hears of.
    static func isStateChangeNotice(_ action: SessionAction) -> Bool {
        guard case let .tell(notice) = action else { return false }
        switch notice {
        case .watchStateDidChange, .reachabilityDidChange: return true
        default: return false
        }
    }

    private mutating func linkEstablished(receiveCursors cursors: Lanes<Int64>) -> [SessionAction] {
        for lane in TransferLane.allCases { lanes[lane].receiveCursor = cursors[lane] }
        guard let peer else { return [] }
        contentPending = peer.pendingTransfers
        contextPending = peer.pendingContext
        let wasLocked = counterpartNeedsUnlock
        counterpartNeedsUnlock = false
        if role == .watch { counterpartInRange = true }
        var actions: [SessionAction] = [
            .log(
                LogLine(
                    .info, "link.established", ("peer", peer.deviceID), ("peerVersion", peer.appVersion),
                    ("peerResume", peer.resumeSeq), ("localResume", cursors.userInfo))),
            .announceLink(peer),
        ]
        actions += adoptCounterpart(
            AppPresence(installed: peer.appInstalled, active: peer.appActive, complicationEnabled: peer.complicationEnabled), version: peer.appVersion)
        // A change made while the handshake was on its way (not linked yet, so not sent): said now.
        if let announcedLocal, announcedLocal != announcedPresence {
            actions.append(.send(appStateFrame(announcedPresence)))
            self.announcedLocal = announcedPresence
        }
        if reachableBeforeLink != isReachable || wasLocked { actions.append(.tell(.reachabilityDidChange)) }
        actions += [.sendApplicationContextIfNeeded, .then(.messagesAwaitingLinkMaySend), .pump]
        return actions
    }

    /// The `appState` frame that tells the counterpart this side's app state.
    func appStateFrame(_ presence: AppPresence) -> [UInt8] {
        var fields: UserInfo = ["appInstalled": .bool(presence.installed), "appActive": .bool(presence.active)]
        if role == .watch { fields["complicationEnabled"] = .bool(presence.complicationEnabled) }
        return Frame(.appState, PropertyListCodec.encode(fields)).encoded
    }

    /// The counterpart reported its app's state: remember it, save it, and tell the delegate if what its
    /// state callback is for changed — the app installed or not (the phone's `isWatchAppInstalled`, the
    /// watch's `isCompanionAppInstalled`), the complication on the watch face (the phone's
    /// `isComplicationEnabled`). Apple's `sessionWatchStateDidChange(_:)`: "Called when any of the Watch
    /// state properties change" — `isPaired`, `isWatchAppInstalled`, `isComplicationEnabled`,
    /// `watchDirectoryURL` — not the watch app's foreground nor its version (issue 50: it was told both).
    /// Reachability, which depends on the link too, is the caller's to compare.
    private mutating func adoptCounterpart(_ presence: AppPresence, version: String?) -> [SessionAction] {
        let changed =
            presence.installed != counterpart.installed || (role == .phone && presence.complicationEnabled != counterpart.complicationEnabled)
        counterpart = presence
        if let version { counterpartVersion = version }
        var actions: [SessionAction] = [.saveCounterpartState(presence, version: version)]
        if changed { actions.append(.tell(.watchStateDidChange)) }
        if presence.installed && role == .phone {
            for lane in TransferLane.allCases { lanes[lane].mayHaveMore = true }
        }
        return actions
    }
}

/// What the core keeps for one lane (`SessionCore.lanes`).
struct LaneState {
    /// The sender's window (its own pure machine); the shell's pump asks it what may go. The file lane's
    /// sender is `SessionCore.fileWindow`, one file in chunks; its window here stays empty.
    var window: SendWindow
    /// Whether the lane's outbox may hold transfers not yet sent on this link (the pump reads it until empty).
    var mayHaveMore = true
    /// The highest transfer of the lane from the current peer that is durable here.
    var receiveCursor: Int64 = 0
}
