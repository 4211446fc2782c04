import DeviceRuntime
import Foundation
import Posix

// MARK: - RunWay Pair's extension: WatchKit's background refresh task for WatchConnectivity
//
// watchOS launches a watch app that is not running in the background when the iPhone sends it content —
// a userInfo, a complication, an application context, a file — and hands its `WKApplicationDelegate` a
// `WKWatchConnectivityRefreshBackgroundTask` (WatchKit): "When your app receives a background task, you
// must … call the task's setTaskCompletedWithSnapshot(_:) method as soon as you finish", and Apple's
// guidance is to keep the task until `WCSession.default.hasContentPending` is false. WatchKit itself is
// not simulated; these types carry its names, in this module, so that code written for it reads the same.
// `watch-os` launches the app for such content (reason `phone-content`); once the session is activated
// the app's `WKApplication.shared().delegate` is handed one task. Completing it tells watch-os
// (`backgroundTasksCompleted` in `runway watch os status`); the background budget still decides when the
// app is reclaimed.

/// A task the system hands the app when it launches or wakes it in the background (WatchKit's).
open class WKRefreshBackgroundTask: NSObject, @unchecked Sendable {
    private var completed = false
    private let lock = NSLock()

    override init() { super.init() }

    /// Tells the system the app finished the task; once per task.
    public func setTaskCompletedWithSnapshot(_ refreshSnapshot: Bool) {
        lock.lock()
        let first = !completed
        completed = true
        lock.unlock()
        guard first else { return }
        AppLaunch.reportTaskCompleted()
    }
}

/// The task for WatchConnectivity content the iPhone sent while the app was not running.
public final class WKWatchConnectivityRefreshBackgroundTask: WKRefreshBackgroundTask, @unchecked Sendable {}

/// The part of WatchKit's application delegate that receives background tasks.
public protocol WKApplicationDelegate: AnyObject {
    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>)
}

/// The app's object (WatchKit's `WKApplication`): where its delegate is set.
public final class WKApplication: @unchecked Sendable {
    private static let sharedApplication = WKApplication()
    public static func shared() -> WKApplication { sharedApplication }

    /// The delegate (weak, as WatchKit's). Set it before `WCSession.default.activate()`.
    public weak var delegate: (any WKApplicationDelegate)?

    /// Whether this launch was for WatchConnectivity content (watch-os's reason).
    static var launchedForWatchConnectivity: Bool { AppLaunch.reason == AppLaunch.watchConnectivityReason }

    /// Called once the session is activated, on the delegate queue: the launch's task, if it had one.
    func handOverLaunchTask() {
        guard Self.launchedForWatchConnectivity else { return }
        let task = WKWatchConnectivityRefreshBackgroundTask()
        guard let delegate else {
            // Nobody to take it: the system's own default, completed at once.
            task.setTaskCompletedWithSnapshot(false)
            return
        }
        delegate.handle([task])
    }
}
