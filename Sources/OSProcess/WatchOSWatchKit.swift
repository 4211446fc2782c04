import AppHost
import Connectivity
import Control
import JSONText
import OSServices
import Posix

/// What the watch app's WatchKit, ClockKit and WidgetKit told watch-os on its notify socket: the
/// background refresh it scheduled, the timeline reloads it asked for, the haptics it played.
struct WatchKitRecord {
    /// The refresh pending (device time, seconds), kept in `HOME/background-refresh.json` too.
    var refreshAt: Double?
    var refreshTimer: EventLoop.TimerID?
    var refreshesScheduled = 0
    var refreshesFired = 0
    /// The system's timing (`RUNWAY_SYSTEM`): realistic, a refresh fires a drawn while after its date and
    /// within the budget of four an hour.
    let systemTiming = SystemTiming.current.timing
    /// When the refreshes fired (device time, seconds): the budget's hour. Kept in
    /// `HOME/background-budget.json` with `refreshesScheduled` and `backgroundLaunches`, so a restarted
    /// watch-os neither refills the budget nor draws the same delays again.
    var refreshFiredTimes: [Double] = []
    /// The refresh whose deferral was told (its date), so it is told once.
    var refreshDeferralTold: Double?
    /// The refresh's time as the system set it (device time), while one is pending.
    var refreshFiresAt: Double?
    /// Refreshes deferred, by reason (`refresh-shortly-after`, `refresh-budget`), since watch-os started.
    var refreshDeferrals: [String: Int] = [:]
    /// Launches of the app so far (the index of the next task runtime drawn), and the running launch's.
    var launchesDrawn = 0
    var taskRuntimeMs: UInt64?
    /// Launches whose tasks' runtime ran out (the realistic system's, shorter than the budget).
    var taskRuntimeExpiries = 0
    /// Reloads asked for, by kind (`clockkit.reloadTimeline`, `widgetkit.all`, `widgetkit.kind.KIND`, …).
    var reloads: [String: Int] = [:]
    var haptics: [String: Int] = [:]
}

// MARK: - Background tasks, refreshes and reloads, as watchOS keeps them

extension WatchOS {
    var refreshPath: String { home.path + "/background-refresh.json" }
    var budgetPath: String { home.path + "/background-budget.json" }

    /// The refresh budget's state, as an earlier watch-os left it (nothing, or a file it cannot read:
    /// a new budget, said in the log).
    func loadBudget() {
        guard let bytes = try? Filesystem.readFile(budgetPath) else { return }
        guard let json = try? JSONValue(parsing: bytes), let fired = json["firedAt"]?.arrayValue else {
            logger.warning("os.budget-unreadable", ["path": budgetPath, "effect": "the refresh budget starts full"])
            return
        }
        // Device times from year 1970 to 9999: anything else in the file is not a time a refresh fired.
        watchKit.refreshFiredTimes = fired.compactMap { $0.doubleValue }.filter { (0...253_402_300_799).contains($0) }.suffix(Self.firedTimesKept)
        watchKit.refreshesScheduled = max(0, min(json["scheduled"]?.intValue ?? 0, Int(Int32.max)))
        watchKit.launchesDrawn = max(0, min(json["launches"]?.intValue ?? 0, Int(Int32.max)))
    }

    /// The refresh times kept: enough for any hour's window to be judged (four an hour), with room for
    /// a clock set back.
    static let firedTimesKept = 32

    func saveBudget() {
        watchKit.refreshFiredTimes = Array(watchKit.refreshFiredTimes.suffix(Self.firedTimesKept))
        let json = JSONValue.object([
            "firedAt": .array(watchKit.refreshFiredTimes.map { .number($0) }), "scheduled": .integer(Int64(watchKit.refreshesScheduled)),
            "launches": .integer(Int64(watchKit.launchesDrawn)),
        ])
        do {
            try Filesystem.writeAtomically(Array(json.text.utf8), to: budgetPath)
        } catch {
            logger.warning("os.budget-not-saved", ["error": "\(error)", "effect": "a restart refills the refresh budget"])
        }
    }

    /// The realistic system's runtime for the launch starting now (`SystemTiming.taskRuntimeMilliseconds`,
    /// the index kept across restarts), said in the log; nil when the system is immediate.
    func drawTaskRuntime() -> UInt64? {
        let timing = watchKit.systemTiming
        guard let runtime = timing.taskRuntimeMilliseconds(index: watchKit.launchesDrawn) else { return nil }
        logger.info(
            "os.task-runtime", ["index": watchKit.launchesDrawn, "runtimeMs": runtime, "reason": "background tasks run for a limited time (\(timing.reason))"])
        watchKit.launchesDrawn += 1
        watchKit.taskRuntimeMs = runtime
        saveBudget()
        return runtime
    }

    /// The app completed every task it was handed: in the background, watchOS suspends it now, its work
    /// done — unless a workout keeps it running (issue 50; `--suspend-after-idle-ms 0`: reclaimed, as
    /// before). Woken for the phone's next content, it is handed a task for it.
    func suspendAfterTasks() {
        guard childPID > 0, state == .background, !workoutRunning, !endingApp else { return }
        if mayBeSuspendedBySystem { return suspendWhenQuiet() }
        reclaims += 1
        logger.notice("os.reclaimed", ["pid": childPID, "reason": "its background tasks are complete"])
        endApp(SIGKILL)
    }

    func decorateWatchKit(_ reply: inout OSStatusReply) {
        reply.backgroundTasksHanded = Int64(backgroundTasksHanded)
        reply.backgroundTasksExpired = Int64(backgroundTasksExpired)
        reply.backgroundTasksOpen = Int64(tasksOpen)
        reply.backgroundRefreshAt = watchKit.refreshAt.map { Timestamp.iso8601($0) }
        reply.backgroundRefreshesFired = Int64(watchKit.refreshesFired)
        reply.reloadsRequested = watchKit.reloads.mapValues { Int64($0) }
        reply.systemTiming = systemTimingStatus
        reply.haptics = watchKit.haptics.mapValues { Int64($0) }
    }

    /// `os status`'s `systemTiming`: what watch-os deferred (refreshes, by reason), the refresh pending
    /// and when it fires, the budget's hour, and the running launch's task runtime.
    var systemTimingStatus: JSONValue {
        let timing = watchKit.systemTiming
        var byReason = watchKit.refreshDeferrals
        if watchKit.taskRuntimeExpiries > 0 { byReason["task-runtime"] = watchKit.taskRuntimeExpiries }
        var fields: [String: JSONValue] = [
            "system": .string(timing.text), "deferred": .integer(Int64(byReason.values.reduce(0, +))),
            "byReason": .object(byReason.mapValues { .integer(Int64($0)) }),
            "refreshesPerHour": .integer(Int64(SystemTiming.refreshesPerHour)),
        ]
        let now = system?.clock.now
        if timing.realistic, let now {
            fields["refreshesInLastHour"] = .integer(Int64(watchKit.refreshFiredTimes.filter { $0 + 3600 > now && $0 <= now }.count))
        }
        if let at = watchKit.refreshFiresAt, let asked = watchKit.refreshAt, at > asked {
            fields["waiting"] = .integer(1)
            fields["nextDueAt"] = .string(Timestamp.iso8601(at))
        } else {
            fields["waiting"] = .integer(0)
        }
        if let runtime = watchKit.taskRuntimeMs, childPID > 0 { fields["taskRuntimeMs"] = .integer(Int64(runtime)) }
        return .object(fields)
    }

    // MARK: - The background refresh, on the device clock

    /// At start-up: the refresh saved by an earlier watch-os, and the clock's changes.
    func startRefreshes() {
        loadBudget()
        if let bytes = try? Filesystem.readFile(refreshPath), let json = try? JSONValue(parsing: bytes), let at = json["fireAt"]?.doubleValue {
            watchKit.refreshAt = at
        }
        system?.onClockChanged.append { [unowned self] _ in self.armRefresh() }
        armRefresh()
    }

    func scheduleRefresh(at seconds: Double) {
        watchKit.refreshAt = seconds
        watchKit.refreshesScheduled += 1
        watchKit.refreshFiresAt = nil
        if watchKit.systemTiming.realistic { saveBudget() }
        do {
            try Filesystem.writeAtomically(Array(JSONValue.object(["fireAt": .number(seconds)]).text.utf8), to: refreshPath)
        } catch {
            logger.warning("os.refresh-not-saved", ["error": "\(error)", "effect": "kept until watch-os stops"])
        }
        logger.info("os.refresh-scheduled", ["at": Timestamp.iso8601(seconds), "pid": childPID])
        armRefresh()
    }

    /// One timer at the refresh's time on the device clock (a frozen clock moves only when told: its
    /// change re-arms it).
    private func armRefresh() {
        if let timer = watchKit.refreshTimer { loop.cancel(timer) }
        watchKit.refreshTimer = nil
        guard let asked = watchKit.refreshAt, let clock = system?.clock else { return }
        let at = refreshFireTime(asked)
        let now = clock.now
        if now >= at { return refreshFellDue() }
        guard clock.mode != .frozen else { return }
        let milliseconds = UInt64(min((at - now) * 1000, 86_400_000).rounded(.up))
        watchKit.refreshTimer = loop.schedule(afterMilliseconds: milliseconds) { [weak self] in
            guard let self else { return }
            self.watchKit.refreshTimer = nil
            self.armRefresh()
        }
    }

    /// When the refresh asked for `asked` fires: then, with the immediate system; with the realistic one
    /// "shortly after" (a drawn delay) and never a fifth in an hour (`RefreshBudget`) — said once in the
    /// log, with why (`os.refresh-deferred`).
    private func refreshFireTime(_ asked: Double) -> Double {
        let timing = watchKit.systemTiming
        guard timing.realistic else { return asked }
        let delay = Double(timing.refreshDelaySeconds(index: watchKit.refreshesScheduled))
        let at = RefreshBudget.earliest(asked + delay, after: watchKit.refreshFiredTimes)
        watchKit.refreshFiresAt = at
        if watchKit.refreshDeferralTold != asked {
            watchKit.refreshDeferralTold = asked
            let overBudget = at > asked + delay
            let reason =
                overBudget
                ? "the app's budget: \(SystemTiming.refreshesPerHour) refreshes an hour are used (\(timing.reason))"
                : "shortly after its date (\(timing.reason))"
            if at > asked {
                watchKit.refreshDeferrals[overBudget ? "refresh-budget" : "refresh-shortly-after", default: 0] += 1
                // The running app notes it among its delegate calls (`runway watch events`).
                let delay = Int64(min(at - asked, 1e9) * 1000)
                system?.publish(SystemDeferredEvent(lane: "refresh", seq: Int64(watchKit.refreshesScheduled), delayMs: delay, reason: reason))
            }
            logger.notice(
                "os.refresh-deferred",
                ["asked": Timestamp.iso8601(asked), "fires": Timestamp.iso8601(at), "delaySeconds": Int64(at - asked), "reason": reason])
        }
        return at
    }

    /// The refresh's time has come: the running app is woken with its task, else it is launched in the
    /// background for it (as any background launch: not when deleted, force-quit or backing off).
    private func refreshFellDue() {
        guard let at = watchKit.refreshAt else { return }
        watchKit.refreshAt = nil
        watchKit.refreshesFired += 1
        if let now = system?.clock.now { watchKit.refreshFiredTimes.append(now) }
        watchKit.refreshDeferralTold = nil
        watchKit.refreshFiresAt = nil
        if watchKit.systemTiming.realistic { saveBudget() }
        try? Filesystem.removeDurably(refreshPath)
        logger.notice(
            "os.refresh-due", ["at": Timestamp.iso8601(at), "firedAt": Timestamp.iso8601(system?.clock.now ?? at), "appRunning": childPID > 0])
        if childPID > 0 {
            let event = JSONValue.object(["event": .string("backgroundRefresh")])
            for connection in control?.attachedClients ?? [] { connection.sendEvent(event) }
        } else {
            launchInBackground(reasonKey: AppLaunch.refreshReason, reason: "a background refresh the app scheduled fell due")
        }
    }
}
