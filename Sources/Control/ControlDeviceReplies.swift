import Connectivity
import JSONText

// MARK: - The devices' replies

/// `clock-show`, `clock-set`, `clock-advance`, `clock-reset`: the device clock after the command, and on
/// the phone what fell due and was delivered before it returned.
package struct ClockReply: ControlReply {
    /// ISO 8601 with the device's offset.
    package var now: String
    /// `running` or `frozen`.
    package var mode: String
    package var offsetSeconds: Double
    /// The phone's notifications delivered by the change (absent on the watch, and for `clock-show`).
    package var delivered: [NotificationItem]?
    package init(now: String, mode: String, offsetSeconds: Double, delivered: [NotificationItem]? = nil) {
        self.now = now
        self.mode = mode
        self.offsetSeconds = offsetSeconds
        self.delivered = delivered
    }
    /// The reading alone, without what was delivered.
    package var reading: ClockReply { ClockReply(now: now, mode: mode, offsetSeconds: offsetSeconds) }
}

/// `record`: the new flights' ids, the outbox transfers that carry them, and when the newest ends.
package struct RecordReply: ControlReply {
    package var ids: [String]
    package var firstTransfer: Int64
    package var lastTransfer: Int64
    /// Seconds since 1970: the next chunk of a series ends here too.
    package var endingAt: Double
    package init(ids: [String], firstTransfer: Int64, lastTransfer: Int64, endingAt: Double) {
        self.ids = ids
        self.firstTransfer = firstTransfer
        self.lastTransfer = lastTransfer
        self.endingAt = endingAt
    }
}

/// `link`: the link's state now.
package struct LinkReply: ControlReply {
    package var link: String
    package init(link: String) { self.link = link }
}

/// `app` on the watch: the watch app's state now.
package struct WatchAppReply: ControlReply {
    package var watchAppInstalled: Bool
    package var watchAppActive: Bool
    package init(watchAppInstalled: Bool, watchAppActive: Bool) {
        self.watchAppInstalled = watchAppInstalled
        self.watchAppActive = watchAppActive
    }
}

/// `fail-next`: how many transfers will fail, and with which error.
package struct FailNextReply: ControlReply {
    package var count: Int64
    package var code: Int64
    package var name: String
    package init(count: Int64, code: Int64, name: String) {
        self.count = count
        self.code = code
        self.name = name
    }
}

/// `os-status`, and `app`/`os-jetsam` on phone-os: the phone app as phone-os runs it.
package struct OSStatusReply: ControlReply {
    package var home: String
    package var pid: Int64
    /// `notRunning`, `background`, `foreground` or `suspended`.
    package var appState: String
    @NullIfNil package var appPid: Int64?
    package var forceQuit: Bool
    /// Launches by reason.
    package var launches: [String: Int64]
    package var launchCount: Int64
    package var lastLaunchReason: String
    package var reclaims: Int64
    package var jetsams: Int64
    package var declinedLaunches: Int64
    package var readyReports: Int64
    package var backgroundBudgetMs: Int64
    /// While the app is in the background: what is left of its budget.
    @NullIfNil package var remainingBudgetMs: Int64?
    /// How long a launch may take to report ready (and a background launch to make its first delivery).
    @ZeroIfMissing package var launchTimeoutMs: Int64
    /// Launches that failed (the app exited by itself, or never reported ready), in all.
    @ZeroIfMissing package var failedLaunches: Int64
    /// Failed launches since the last that went well: what the backoff doubles with.
    @ZeroIfMissing package var failuresInARow: Int64
    @NullIfNil package var lastFailure: String?
    /// While background launches are held back after failures: how long still.
    @NullIfNil package var backoffRemainingMs: Int64?
    /// The app is installed (`runway phone|watch app install|uninstall`), and at which version when one was given (the phone).
    @TrueIfMissing package var appInstalled = true
    @NullIfNil package var appVersion: String?
    /// The phone is locked (`runway phone lock|unlock`); not unlocked since it restarted (`runway phone reboot`).
    @FalseIfMissing package var locked = false
    @FalseIfMissing package var lockedAfterReboot = false
    /// watch-os: the phone was in range at its last attempt to reach it (left out by phone-os).
    package var phoneInRange: Bool?
    /// watch-os: background tasks (`WKWatchConnectivityRefreshBackgroundTask`) the app completed.
    package var backgroundTasksCompleted: Int64?
    /// watch-os: WatchKit's background tasks handed to the app, expired (open when the app ended), open now.
    package var backgroundTasksHanded: Int64?
    package var backgroundTasksExpired: Int64?
    package var backgroundTasksOpen: Int64?
    /// watch-os: the background refresh the app scheduled (device time), and those that fell due.
    package var backgroundRefreshAt: String?
    package var backgroundRefreshesFired: Int64?
    /// watch-os: complication timeline reloads the app asked for (ClockKit, WidgetKit), by kind.
    package var reloadsRequested: [String: Int64]?
    /// watch-os: haptics the app played (`WKInterfaceDevice.play(_:)`), by type.
    package var haptics: [String: Int64]?
    /// Times the OS suspended the background app itself, its work done (issue 50), and the wakes of a
    /// suspended app by what woke it (`message`, `transfer`, `workout`, `link`).
    @ZeroIfMissing package var systemSuspensions: Int64 = 0
    package var wakes: [String: Int64]?
    /// While the app is suspended: whether the OS suspended it (its work done), not the user.
    package var suspendedBySystem: Bool?
    /// watch-os: the system's timing and what it deferred (docs/system-timing.md): `system`, `deferred`,
    /// `byReason`, `waiting`, `nextDueAt` (device time), the refresh budget's hour and the launch's task runtime.
    package var systemTiming: JSONValue?

    package init(
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
package struct LinkConditionsReply: ControlReply {
    /// A link's shape in the reply's names: what is set, and (`effective`) what frames meet.
    package struct Shape: Codable, Sendable, Equatable {
        package var latencyMs: Int64
        package var jitterMs: Int64
        package var loss: Double
        package var bandwidthKbps: Int64
    }

    package var range: LinkRange
    package var latencyMs: Int64
    package var jitterMs: Int64
    package var loss: Double
    package var bandwidthKbps: Int64
    package var effective: Shape
    package var connected: Bool
    package var seed: Int64
    package var framesCarried: Int64
    package var framesLost: Int64
    /// What the connection holds in the air now, and the most it has held at once (bounded, whatever the
    /// bandwidth).
    package var bytesInAir: Int64 = 0
    package var mostBytesInAir: Int64 = 0
    /// The schedule's steps and how many have been applied (both 0 without one).
    package var scheduleSteps: Int64
    package var scheduleApplied: Int64
    /// When the next step is due, in ms from now (nil: no schedule, or it has ended).
    package var scheduleNextInMs: Int64?

    package init(
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
    package var conditions: LinkConditions {
        LinkConditions(
            latencyMilliseconds: Int(clamping: latencyMs), jitterMilliseconds: Int(clamping: jitterMs), loss: loss,
            bandwidthKbps: Int(clamping: bandwidthKbps), range: range)
    }
}
