import AppHost
import JSONText
import Posix

// MARK: - The launch's deadlines (`AppSupervision` carried out)

extension DeviceOperatingSystem {
    /// Sets the one timer at the supervision's next deadline (READY=1 due, the budget's end, the first
    /// delivery's), after any event that may move it.
    func rearmSupervision() {
        if let supervisionTimer { loop.cancel(supervisionTimer) }
        supervisionTimer = nil
        guard childPID > 0, let deadline = supervision.nextDeadline else { return }
        let now = loop.nowNanoseconds
        supervisionTimer = loop.schedule(afterNanoseconds: deadline > now ? deadline - now : 0) { [weak self] in
            guard let self else { return }
            self.supervisionTimer = nil
            self.actOnSupervision()
        }
    }

    private func actOnSupervision() {
        guard childPID > 0 else { return }
        let now = loop.nowNanoseconds
        switch supervision.due(at: now) {
        case nil:
            // Woken early: wait for the deadline again (never a timer at a deadline already passed).
            if let deadline = supervision.nextDeadline, deadline > now { rearmSupervision() }
        case let .killNeverReady(reason)?:
            logger.warning("os.launch-timed-out", ["pid": childPID, "reason": reason])
            killedNeverReady = true
            endApp(SIGKILL)
        case let .reclaim(reason)?:
            // A budget runs only in the background (`AppSupervision.budgetStops`), and on while the OS
            // itself suspended the app: suspended or not, it is reclaimed at the budget's end.
            guard state == .background || (state == .suspended && suspendedBySystem) else { return }
            if supervision.runtimeEndsFirst, !expiryWarned { runtimeRanOut() }
            // WatchKit tasks still open: their expiration handlers run first ("A block that the system
            // calls when the available runtime for a background task is about to expire"), for a grace.
            if state == .background, tasksOpen > 0, !expiryWarned {
                expiryWarned = true
                logger.notice("os.tasks-expiring", ["pid": childPID, "open": tasksOpen, "graceMs": Self.expirationGraceMilliseconds])
                let event = JSONValue.object(["event": .string("tasksExpiring")])
                for connection in control?.attachedClients ?? [] { connection.sendEvent(event) }
                let pid = childPID
                loop.schedule(afterMilliseconds: Self.expirationGraceMilliseconds) { [weak self] in
                    guard let self, self.childPID == pid, !self.endingApp else { return }
                    self.reclaim(reason)
                }
                return
            }
            reclaim(reason)
        }
    }

    /// How long an app has to run its tasks' expiration handlers before it is ended.
    static let expirationGraceMilliseconds: UInt64 = 1000

    func reclaim(_ reason: String) {
        guard childPID > 0, !endingApp else { return }
        reclaims += 1
        logger.notice("os.reclaimed", ["pid": childPID, "reason": reason])
        endApp(SIGKILL)
    }

    /// Kills (or stops) the app on the OS's own account: its exit is then no failure of the app's.
    func endApp(_ signal: Int32) {
        guard childPID > 0 else { return }
        endingApp = true
        if state == .suspended && signal != SIGKILL { ProcessStop.signal(childPID, SIGCONT) }
        ProcessStop.signal(childPID, signal)
    }

    /// The app opted out of watch switching (issue 50, row 6): terminated once it is in the background.
    func terminateIfOptedOutOfSwitching() {
        guard switchOptedOut, state == .background || (state == .suspended && suspendedBySystem) else { return }
        reclaim(AppLaunch.watchSwitchOptOutReason)
    }
}
