import Connectivity
import JSONText

// MARK: - The devices' replies

/// `clock-show`, `clock-set`, `clock-advance`, `clock-reset`: the device clock after the command, and on
/// the phone what fell due and was delivered before it returned.
public struct ClockReply: ControlReply {
    /// ISO 8601 with the device's offset.
    public var now: String
    /// `running` or `frozen`.
    public var mode: String
    public var offsetSeconds: Double
    /// The phone's notifications delivered by the change (absent on the watch, and for `clock-show`).
    public var delivered: [NotificationItem]?
    public init(now: String, mode: String, offsetSeconds: Double, delivered: [NotificationItem]? = nil) {
        self.now = now
        self.mode = mode
        self.offsetSeconds = offsetSeconds
        self.delivered = delivered
    }
    /// The reading alone, without what was delivered.
    public var reading: ClockReply { ClockReply(now: now, mode: mode, offsetSeconds: offsetSeconds) }
}

/// `record`: the new flights' ids, the outbox transfers that carry them, and when the newest ends.
public struct RecordReply: ControlReply {
    public var ids: [String]
    public var firstTransfer: Int64
    public var lastTransfer: Int64
    /// Seconds since 1970: the next chunk of a series ends here too.
    public var endingAt: Double
    public init(ids: [String], firstTransfer: Int64, lastTransfer: Int64, endingAt: Double) {
        self.ids = ids
        self.firstTransfer = firstTransfer
        self.lastTransfer = lastTransfer
        self.endingAt = endingAt
    }
}

/// `link`: the link's state now.
public struct LinkReply: ControlReply {
    public var link: String
    public init(link: String) { self.link = link }
}

/// `app` on the watch: the watch app's state now.
public struct WatchAppReply: ControlReply {
    public var watchAppInstalled: Bool
    public var watchAppActive: Bool
    public init(watchAppInstalled: Bool, watchAppActive: Bool) {
        self.watchAppInstalled = watchAppInstalled
        self.watchAppActive = watchAppActive
    }
}

/// `fail-next`: how many transfers will fail, and with which error.
public struct FailNextReply: ControlReply {
    public var count: Int64
    public var code: Int64
    public var name: String
    public init(count: Int64, code: Int64, name: String) {
        self.count = count
        self.code = code
        self.name = name
    }
}

/// `os-status`, and `app`/`os-jetsam` on phone-os: the phone app as phone-os runs it.
public struct OSStatusReply: ControlReply {
    public var home: String
    public var pid: Int64
    /// `notRunning`, `background`, `foreground` or `suspended`.
    public var appState: String
    @NullIfNil public var appPid: Int64?
    public var forceQuit: Bool
    /// Launches by reason.
    public var launches: [String: Int64]
    public var launchCount: Int64
    public var lastLaunchReason: String
    public var reclaims: Int64
    public var jetsams: Int64
    public var declinedLaunches: Int64
    public var readyReports: Int64
    public var backgroundBudgetMs: Int64
    /// While the app is in the background: what is left of its budget.
    @NullIfNil public var remainingBudgetMs: Int64?
    /// How long a launch may take to report ready (and a background launch to make its first delivery).
    @ZeroIfMissing public var launchTimeoutMs: Int64
    /// Launches that failed (the app exited by itself, or never reported ready), in all.
    @ZeroIfMissing public var failedLaunches: Int64
    /// Failed launches since the last that went well: what the backoff doubles with.
    @ZeroIfMissing public var failuresInARow: Int64
    @NullIfNil public var lastFailure: String?
    /// While background launches are held back after failures: how long still.
    @NullIfNil public var backoffRemainingMs: Int64?
    /// The app is installed (`runway phone|watch app install|uninstall`), and at which version when one was given (the phone).
    @TrueIfMissing public var appInstalled = true
    @NullIfNil public var appVersion: String?
    /// The phone is locked (`runway phone lock|unlock`); not unlocked since it restarted (`runway phone reboot`).
    @FalseIfMissing public var locked = false
    @FalseIfMissing public var lockedAfterReboot = false
    /// watch-os: the phone was in range at its last attempt to reach it (left out by phone-os).
    public var phoneInRange: Bool?
    /// watch-os: background tasks (`WKWatchConnectivityRefreshBackgroundTask`) the app completed.
    public var backgroundTasksCompleted: Int64?
    /// watch-os: WatchKit's background tasks handed to the app, expired (open when the app ended), open now.
    public var backgroundTasksHanded: Int64?
    public var backgroundTasksExpired: Int64?
    public var backgroundTasksOpen: Int64?
    /// watch-os: the background refresh the app scheduled (device time), and those that fell due.
    public var backgroundRefreshAt: String?
    public var backgroundRefreshesFired: Int64?
    /// watch-os: complication timeline reloads the app asked for (ClockKit, WidgetKit), by kind.
    public var reloadsRequested: [String: Int64]?
    /// watch-os: haptics the app played (`WKInterfaceDevice.play(_:)`), by type.
    public var haptics: [String: Int64]?

    public init(
        home: String, pid: Int64, appState: String, appPid: Int64?, forceQuit: Bool, launches: [String: Int64], launchCount: Int64,
        lastLaunchReason: String, reclaims: Int64, jetsams: Int64, declinedLaunches: Int64, readyReports: Int64, backgroundBudgetMs: Int64,
        remainingBudgetMs: Int64?, launchTimeoutMs: Int64 = 0, failedLaunches: Int64 = 0, failuresInARow: Int64 = 0, lastFailure: String? = nil,
        backoffRemainingMs: Int64? = nil
    ) {
        self.home = home
        self.pid = pid
        self.appState = appState
        self.appPid = appPid
        self.forceQuit = forceQuit
        self.launches = launches
        self.launchCount = launchCount
        self.lastLaunchReason = lastLaunchReason
        self.reclaims = reclaims
        self.jetsams = jetsams
        self.declinedLaunches = declinedLaunches
        self.readyReports = readyReports
        self.backgroundBudgetMs = backgroundBudgetMs
        self.remainingBudgetMs = remainingBudgetMs
        self.launchTimeoutMs = launchTimeoutMs
        self.failedLaunches = failedLaunches
        self.failuresInARow = failuresInARow
        self.lastFailure = lastFailure
        self.backoffRemainingMs = backoffRemainingMs
        self.appVersion = nil
    }
}

/// `link-set`, `link-show`, `link-schedule`: the conditions set, what frames meet (the range folded in),
/// what the air has done, and the schedule playing, if any. The conditions travel under the reply's own
/// short names; `conditions` reads them back as `LinkConditions`.
public struct LinkConditionsReply: ControlReply {
    /// A link's shape in the reply's names: what is set, and (`effective`) what frames meet.
    public struct Shape: Codable, Sendable, Equatable {
        public var latencyMs: Int64
        public var jitterMs: Int64
        public var loss: Double
        public var bandwidthKbps: Int64
    }

    public var range: LinkRange
    public var latencyMs: Int64
    public var jitterMs: Int64
    public var loss: Double
    public var bandwidthKbps: Int64
    public var effective: Shape
    public var connected: Bool
    public var seed: Int64
    public var framesCarried: Int64
    public var framesLost: Int64
    /// What the connection holds in the air now, and the most it has held at once (bounded, whatever the
    /// bandwidth).
    public var bytesInAir: Int64 = 0
    public var mostBytesInAir: Int64 = 0
    /// The schedule's steps and how many have been applied (both 0 without one).
    public var scheduleSteps: Int64
    public var scheduleApplied: Int64
    /// When the next step is due, in ms from now (nil: no schedule, or it has ended).
    public var scheduleNextInMs: Int64?

    public init(
        conditions: LinkConditions, connected: Bool, seed: Int64, framesCarried: Int64, framesLost: Int64, scheduleSteps: Int64 = 0,
        scheduleApplied: Int64 = 0, scheduleNextInMs: Int64? = nil
    ) {
        let shape = conditions.shape
        range = conditions.range
        latencyMs = Int64(conditions.latencyMilliseconds)
        jitterMs = Int64(conditions.jitterMilliseconds)
        loss = conditions.loss
        bandwidthKbps = Int64(conditions.bandwidthKbps)
        effective = Shape(
            latencyMs: Int64(shape.latencyMilliseconds), jitterMs: Int64(shape.jitterMilliseconds), loss: shape.loss,
            bandwidthKbps: Int64(shape.bandwidthKbps))
        self.connected = connected
        self.seed = seed
        self.framesCarried = framesCarried
        self.framesLost = framesLost
        self.scheduleSteps = scheduleSteps
        self.scheduleApplied = scheduleApplied
        self.scheduleNextInMs = scheduleNextInMs
    }

    /// The conditions set.
    public var conditions: LinkConditions {
        LinkConditions(
            latencyMilliseconds: Int(clamping: latencyMs), jitterMilliseconds: Int(clamping: jitterMs), loss: loss,
            bandwidthKbps: Int(clamping: bandwidthKbps), range: range)
    }
}
