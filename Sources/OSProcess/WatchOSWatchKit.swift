import Control
import AppHost
import JSONText
import Posix

/// What the watch app's WatchKit, ClockKit and WidgetKit told watch-os on its notify socket: the
/// background refresh it scheduled, the timeline reloads it asked for, the haptics it played.
struct WatchKitRecord {
    /// The refresh pending (device time, seconds), kept in `HOME/background-refresh.json` too.
    var refreshAt: Double?
    var refreshTimer: EventLoop.TimerID?
    var refreshesScheduled = 0
    var refreshesFired = 0
    /// Reloads asked for, by kind (`clockkit.reloadTimeline`, `widgetkit.all`, `widgetkit.kind.KIND`, …).
    var reloads: [String: Int] = [:]
    var haptics: [String: Int] = [:]
}

// MARK: - Background tasks, refreshes and reloads, as watchOS keeps them

extension WatchOS {
    var refreshPath: String { home.path + "/background-refresh.json" }

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
        reply.haptics = watchKit.haptics.mapValues { Int64($0) }
    }

    // MARK: - The background refresh, on the device clock

    /// At start-up: the refresh saved by an earlier watch-os, and the clock's changes.
    func startRefreshes() {
        if let bytes = try? Filesystem.readFile(refreshPath), let json = try? JSONValue(parsing: bytes), let at = json["fireAt"]?.doubleValue {
            watchKit.refreshAt = at
        }
        system?.onClockChanged.append { [unowned self] _ in self.armRefresh() }
        armRefresh()
    }

    func scheduleRefresh(at seconds: Double) {
        watchKit.refreshAt = seconds
        watchKit.refreshesScheduled += 1
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
        guard let at = watchKit.refreshAt, let clock = system?.clock else { return }
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

    /// The refresh's time has come: the running app is woken with its task, else it is launched in the
    /// background for it (as any background launch: not when deleted, force-quit or backing off).
    private func refreshFellDue() {
        guard let at = watchKit.refreshAt else { return }
        watchKit.refreshAt = nil
        watchKit.refreshesFired += 1
        try? Filesystem.removeDurably(refreshPath)
        logger.notice("os.refresh-due", ["at": Timestamp.iso8601(at), "appRunning": childPID > 0])
        if childPID > 0 {
            let event = JSONValue.object(["event": .string("backgroundRefresh")])
            for connection in control?.attachedClients ?? [] { connection.sendEvent(event) }
        } else {
            launchInBackground(reasonKey: AppLaunch.refreshReason, reason: "a background refresh the app scheduled fell due")
        }
    }
}
