@_exported import Foundation
import AppHost

// MARK: - WatchKit's background tasks
//
// watchOS wakes or launches a watch app in the background and hands its delegate's
// `handle(_ backgroundTasks:)` one task per reason; the app does its work and calls
// `setTaskCompletedWithSnapshot(_:)` as soon as it has finished — the system suspends the app once every
// task it was handed is complete, and a task still open when its time is up has expired. Here `watch-os`
// hands the tasks (docs/your-app.md, "The watch"): a `WKWatchConnectivityRefreshBackgroundTask` when it
// launched the app for the phone's content, a `WKApplicationRefreshBackgroundTask` when a refresh the app
// scheduled (`scheduleBackgroundRefresh(withPreferredDate:userInfo:scheduledCompletion:)`) fell due on
// the device clock. Each hand-over and completion is told to watch-os (`runway watch os status`:
// handed, completed, expired).

/// A task the system hands the app when it launches or wakes it in the background.
open class WKRefreshBackgroundTask: NSObject, @unchecked Sendable {
    private var completed = false
    private let lock = NSLock()
    /// What the app passed when it scheduled the task (a refresh), else nil.
    public let userInfo: (any NSSecureCoding & NSObjectProtocol)?

    init(userInfo: (any NSSecureCoding & NSObjectProtocol)? = nil) {
        self.userInfo = userInfo
        super.init()
    }

    /// Tells the system the app finished the task (once per task; later calls change nothing).
    /// `refreshSnapshot`: whether the app's snapshot should be taken again (no screen here: noted only).
    public func setTaskCompletedWithSnapshot(_ refreshSnapshot: Bool) {
        let first = lock.withLock {
            defer { completed = true }
            return !completed
        }
        guard first else { return }
        AppLaunch.reportTaskCompleted()
    }

    /// Whether the app completed it.
    var isCompleted: Bool { lock.withLock { completed } }

    private var handler: (() -> Void)?

    /// "A block that the system calls when the available runtime for a background task is about to
    /// expire": watch-os calls it (on the main queue) before it ends a launch whose budget is used up with
    /// this task open — the app can complete the task there, and then it is not counted expired — and
    /// clears it afterwards.
    public var expirationHandler: (() -> Void)? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    /// Runs the expiration handler once, if the task is still open and has one.
    func expire() {
        let run = lock.withLock { () -> (() -> Void)? in
            guard !completed else { return nil }
            defer { handler = nil }
            return handler
        }
        run?()
    }
}

/// The task for a refresh the app scheduled, fallen due.
public final class WKApplicationRefreshBackgroundTask: WKRefreshBackgroundTask, @unchecked Sendable {}

/// The task for updating the app's snapshot (no screen here: never handed by watch-os; the type is for
/// code written for watchOS, which switches on it).
public final class WKSnapshotRefreshBackgroundTask: WKRefreshBackgroundTask, @unchecked Sendable {
    /// Completes the snapshot task (WatchKit's form of it).
    public func setTaskCompleted(
        restoredDefaultState: Bool, estimatedSnapshotExpiration expirationDate: Date?, userInfo: (any NSSecureCoding & NSObjectProtocol)?
    ) {
        setTaskCompletedWithSnapshot(false)
    }
}

/// The task for WatchConnectivity content the iPhone sent while the app was not running.
public final class WKWatchConnectivityRefreshBackgroundTask: WKRefreshBackgroundTask, @unchecked Sendable {}

/// The task for a background URL session's events (no URL sessions here: never handed by watch-os).
public final class WKURLSessionRefreshBackgroundTask: WKRefreshBackgroundTask, @unchecked Sendable {
    /// The background session's identifier.
    public let sessionIdentifier: String

    init(sessionIdentifier: String) {
        self.sessionIdentifier = sessionIdentifier
        super.init()
    }
}
