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
    public var delivered: [JSONValue]?
    enum Key: String { case now, mode, offsetSeconds, delivered }
    public init(now: String, mode: String, offsetSeconds: Double, delivered: [JSONValue]? = nil) {
        self.now = now
        self.mode = mode
        self.offsetSeconds = offsetSeconds
        self.delivered = delivered
    }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "clock")
        now = try reader.string(.now)
        mode = try reader.string(.mode)
        offsetSeconds = try reader.double(.offsetSeconds)
        delivered = reader.optional(.delivered) { $0.arrayValue }
    }
    public var json: JSONValue {
        replyObject([(Key.now, .string(now)), (.mode, .string(mode)), (.offsetSeconds, .number(offsetSeconds)), (.delivered, delivered.map(JSONValue.array))])
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
    enum Key: String { case ids, firstTransfer, lastTransfer, endingAt }
    public init(ids: [String], firstTransfer: Int64, lastTransfer: Int64, endingAt: Double) {
        self.ids = ids
        self.firstTransfer = firstTransfer
        self.lastTransfer = lastTransfer
        self.endingAt = endingAt
    }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "record")
        ids = try reader.value(.ids) { value in
            let ids = value.arrayValue?.compactMap(\.stringValue)
            return ids?.count == value.arrayValue?.count ? ids : nil
        }
        firstTransfer = try reader.int(.firstTransfer)
        lastTransfer = try reader.int(.lastTransfer)
        endingAt = try reader.double(.endingAt)
    }
    public var json: JSONValue {
        replyObject([
            (Key.ids, .array(ids.map(JSONValue.string))), (.firstTransfer, .integer(firstTransfer)), (.lastTransfer, .integer(lastTransfer)),
            (.endingAt, .number(endingAt)),
        ])
    }
}

/// `link`: the link's state now.
public struct LinkReply: ControlReply {
    public var link: String
    enum Key: String { case link }
    public init(link: String) { self.link = link }
    public init(json: JSONValue) throws(ControlError) { link = try ReplyReader<Key>(json, "link").string(.link) }
    public var json: JSONValue { replyObject([(Key.link, .string(link))]) }
}

/// `app` on the watch: the watch app's state now.
public struct WatchAppReply: ControlReply {
    public var watchAppInstalled: Bool
    public var watchAppActive: Bool
    enum Key: String { case watchAppInstalled, watchAppActive }
    public init(watchAppInstalled: Bool, watchAppActive: Bool) {
        self.watchAppInstalled = watchAppInstalled
        self.watchAppActive = watchAppActive
    }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "app")
        watchAppInstalled = try reader.bool(.watchAppInstalled)
        watchAppActive = try reader.bool(.watchAppActive)
    }
    public var json: JSONValue { replyObject([(Key.watchAppInstalled, .bool(watchAppInstalled)), (.watchAppActive, .bool(watchAppActive))]) }
}

/// `fail-next`: how many transfers will fail, and with which error.
public struct FailNextReply: ControlReply {
    public var count: Int64
    public var code: Int64
    public var name: String
    enum Key: String { case count, code, name }
    public init(count: Int64, code: Int64, name: String) {
        self.count = count
        self.code = code
        self.name = name
    }
    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "fail-next")
        count = try reader.int(.count)
        code = try reader.int(.code)
        name = try reader.string(.name)
    }
    public var json: JSONValue { replyObject([(Key.count, .integer(count)), (.code, .integer(code)), (.name, .string(name))]) }
}

/// `os-status`, and `app`/`os-jetsam` on phone-os: the phone app as phone-os runs it.
public struct OSStatusReply: ControlReply {
    public var home: String
    public var pid: Int64
    /// `notRunning`, `background`, `foreground` or `suspended`.
    public var appState: String
    public var appPid: Int64?
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
    public var remainingBudgetMs: Int64?
    /// How long a launch may take to report ready (and a background launch to make its first delivery).
    public var launchTimeoutMs: Int64
    /// Launches that failed (the app exited by itself, or never reported ready), in all.
    public var failedLaunches: Int64
    /// Failed launches since the last that went well: what the backoff doubles with.
    public var failuresInARow: Int64
    public var lastFailure: String?
    /// While background launches are held back after failures: how long still.
    public var backoffRemainingMs: Int64?
    /// The app is installed (`runway phone|watch app install|uninstall`), and at which version when one was given (the phone).
    public var appInstalled = true
    public var appVersion: String?
    /// The phone is locked (`runway phone lock|unlock`); not unlocked since it restarted (`runway phone reboot`).
    public var locked = false
    public var lockedAfterReboot = false
    /// watch-os: the phone was in range at its last attempt to reach it (left out by phone-os).
    public var phoneInRange: Bool?
    /// watch-os: background tasks (`WKWatchConnectivityRefreshBackgroundTask`) the app completed.
    public var backgroundTasksCompleted: Int64?
    enum Key: String {
        case home, pid, appState, appPid, forceQuit, launches, launchCount, lastLaunchReason, reclaims, jetsams, declinedLaunches, readyReports
        case backgroundBudgetMs, remainingBudgetMs, launchTimeoutMs, failedLaunches, failuresInARow, lastFailure, backoffRemainingMs
        case appInstalled, appVersion, locked, lockedAfterReboot, phoneInRange, backgroundTasksCompleted
    }

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
    }

    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "os-status")
        home = try reader.string(.home)
        pid = try reader.int(.pid)
        appState = try reader.string(.appState)
        appPid = reader.optional(.appPid) { $0.intValue.map(Int64.init) }
        forceQuit = try reader.bool(.forceQuit)
        launches = try reader.value(.launches) { value in
            guard let object = value.objectValue else { return nil }
            let counts = object.compactMapValues { $0.intValue.map(Int64.init) }
            return counts.count == object.count ? counts : nil
        }
        launchCount = try reader.int(.launchCount)
        lastLaunchReason = try reader.string(.lastLaunchReason)
        reclaims = try reader.int(.reclaims)
        jetsams = try reader.int(.jetsams)
        declinedLaunches = try reader.int(.declinedLaunches)
        readyReports = try reader.int(.readyReports)
        backgroundBudgetMs = try reader.int(.backgroundBudgetMs)
        remainingBudgetMs = reader.optional(.remainingBudgetMs) { $0.intValue.map(Int64.init) }
        launchTimeoutMs = reader.optional(.launchTimeoutMs) { $0.intValue.map(Int64.init) } ?? 0
        failedLaunches = reader.optional(.failedLaunches) { $0.intValue.map(Int64.init) } ?? 0
        failuresInARow = reader.optional(.failuresInARow) { $0.intValue.map(Int64.init) } ?? 0
        lastFailure = reader.optional(.lastFailure) { $0.stringValue }
        backoffRemainingMs = reader.optional(.backoffRemainingMs) { $0.intValue.map(Int64.init) }
        appInstalled = reader.optional(.appInstalled) { $0.boolValue } ?? true
        appVersion = reader.optional(.appVersion) { $0.stringValue }
        locked = reader.optional(.locked) { $0.boolValue } ?? false
        lockedAfterReboot = reader.optional(.lockedAfterReboot) { $0.boolValue } ?? false
        phoneInRange = reader.optional(.phoneInRange) { $0.boolValue }
        backgroundTasksCompleted = reader.optional(.backgroundTasksCompleted) { $0.intValue.map(Int64.init) }
    }

    public var json: JSONValue {
        replyObject([
            (Key.home, .string(home)), (.pid, .integer(pid)), (.appState, .string(appState)), (.appPid, .some(appPid.map(JSONValue.integer) ?? .null)),
            (.forceQuit, .bool(forceQuit)), (.launches, .object(launches.mapValues(JSONValue.integer))), (.launchCount, .integer(launchCount)),
            (.lastLaunchReason, .string(lastLaunchReason)), (.reclaims, .integer(reclaims)), (.jetsams, .integer(jetsams)),
            (.declinedLaunches, .integer(declinedLaunches)), (.readyReports, .integer(readyReports)), (.backgroundBudgetMs, .integer(backgroundBudgetMs)),
            (.remainingBudgetMs, .some(remainingBudgetMs.map(JSONValue.integer) ?? .null)), (.launchTimeoutMs, .integer(launchTimeoutMs)),
            (.failedLaunches, .integer(failedLaunches)), (.failuresInARow, .integer(failuresInARow)),
            (.lastFailure, .some(lastFailure.map(JSONValue.string) ?? .null)),
            (.backoffRemainingMs, .some(backoffRemainingMs.map(JSONValue.integer) ?? .null)),
            (.appInstalled, .bool(appInstalled)), (.appVersion, .some(appVersion.map(JSONValue.string) ?? .null)), (.locked, .bool(locked)),
            (.lockedAfterReboot, .bool(lockedAfterReboot)), (.phoneInRange, phoneInRange.map(JSONValue.bool)),
            (.backgroundTasksCompleted, backgroundTasksCompleted.map(JSONValue.integer)),
        ])
    }
}

/// `link-set`, `link-show`, `link-schedule`: the conditions set, what frames meet (the range folded in),
/// what the air has done, and the schedule playing, if any.
public struct LinkConditionsReply: ControlReply {
    public var conditions: LinkConditions
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

    enum Key: String {
        case range, latencyMs, jitterMs, loss, bandwidthKbps, effective, connected, seed, framesCarried, framesLost, bytesInAir, mostBytesInAir,
            scheduleSteps, scheduleApplied, scheduleNextInMs
    }

    public init(
        conditions: LinkConditions, connected: Bool, seed: Int64, framesCarried: Int64, framesLost: Int64, scheduleSteps: Int64 = 0,
        scheduleApplied: Int64 = 0, scheduleNextInMs: Int64? = nil
    ) {
        self.conditions = conditions
        self.connected = connected
        self.seed = seed
        self.framesCarried = framesCarried
        self.framesLost = framesLost
        self.scheduleSteps = scheduleSteps
        self.scheduleApplied = scheduleApplied
        self.scheduleNextInMs = scheduleNextInMs
    }

    public init(json: JSONValue) throws(ControlError) {
        let reader = try ReplyReader<Key>(json, "link")
        guard let range = LinkRange(rawValue: try reader.string(.range)) else { throw ControlError("the daemon's link reply has no valid range") }
        conditions = LinkConditions(
            latencyMilliseconds: Int(try reader.int(.latencyMs)), jitterMilliseconds: Int(try reader.int(.jitterMs)), loss: try reader.double(.loss),
            bandwidthKbps: Int(try reader.int(.bandwidthKbps)), range: range)
        connected = try reader.bool(.connected)
        seed = try reader.int(.seed)
        framesCarried = try reader.int(.framesCarried)
        framesLost = try reader.int(.framesLost)
        bytesInAir = try reader.int(.bytesInAir)
        mostBytesInAir = try reader.int(.mostBytesInAir)
        scheduleSteps = try reader.int(.scheduleSteps)
        scheduleApplied = try reader.int(.scheduleApplied)
        scheduleNextInMs = reader.optional(.scheduleNextInMs) { $0.intValue.map(Int64.init) }
    }

    public var json: JSONValue {
        let shape = conditions.shape
        let effective: JSONValue = .object([
            "latencyMs": .integer(Int64(shape.latencyMilliseconds)), "jitterMs": .integer(Int64(shape.jitterMilliseconds)), "loss": .number(shape.loss),
            "bandwidthKbps": .integer(Int64(shape.bandwidthKbps)),
        ])
        return replyObject([
            (Key.range, .string(conditions.range.rawValue)), (.latencyMs, .integer(Int64(conditions.latencyMilliseconds))),
            (.jitterMs, .integer(Int64(conditions.jitterMilliseconds))), (.loss, .number(conditions.loss)),
            (.bandwidthKbps, .integer(Int64(conditions.bandwidthKbps))), (.effective, effective), (.connected, .bool(connected)), (.seed, .integer(seed)),
            (.framesCarried, .integer(framesCarried)), (.framesLost, .integer(framesLost)), (.bytesInAir, .integer(bytesInAir)),
            (.mostBytesInAir, .integer(mostBytesInAir)), (.scheduleSteps, .integer(scheduleSteps)),
            (.scheduleApplied, .integer(scheduleApplied)), (.scheduleNextInMs, scheduleNextInMs.map(JSONValue.integer)),
        ])
    }
}
