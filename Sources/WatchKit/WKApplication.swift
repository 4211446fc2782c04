@_exported import Foundation
import HealthKit

// MARK: - The app object and its delegate (WatchKit's WKApplication, WKExtension)
//
// watchOS makes these calls, and watch-os makes them in the same order (`WatchKitLifecycle`):
// - launched in the foreground (`runway watch app open`, `runway watch record`):
//   `applicationDidFinishLaunching`, `applicationDidBecomeActive`;
// - launched in the background (for the phone's content, a refresh that fell due):
//   `applicationDidFinishLaunching`, then `handle(_ backgroundTasks:)` with its task;
// - relaunched after it died during a workout session: `applicationDidFinishLaunching`, then
//   `handleActiveWorkoutRecovery()`;
// - closed (`runway watch app close`): `applicationWillResignActive`, `applicationDidEnterBackground`;
// - opened from the background: `applicationWillEnterForeground`, `applicationDidBecomeActive`.
// The calls come on the main queue (the app's `main` runs it: `RunLoop.main.run()` or `dispatchMain()`),
// once the app has set its delegate — set it first thing, before `WCSession.default.activate()`.

/// The app's state: on screen and in front of the user, or running without a screen.
public enum WKApplicationState: Int, Sendable {
    case active = 0
    /// Between the two (a transition): never reported here.
    case inactive = 1
    case background = 2
}

/// What watchOS tells the app about its life (WatchKit's `WKApplicationDelegate`). Every method is
/// optional: the default does nothing, and `handle(_:)` completes each task at once.
@MainActor public protocol WKApplicationDelegate: AnyObject {
    func applicationDidFinishLaunching()
    func applicationDidBecomeActive()
    func applicationWillResignActive()
    func applicationWillEnterForeground()
    func applicationDidEnterBackground()
    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>)
    /// The phone started a workout for this app (`HKHealthStore.startWatchApp(with:completion:)`):
    /// start its `HKWorkoutSession` here. watch-os launched the app in the background for it if it was
    /// not running.
    func handle(_ workoutConfiguration: HKWorkoutConfiguration)
    /// The app was relaunched after it died during an active workout session (watch-os relaunches it
    /// in the background): take the session back with `HKHealthStore.recoverActiveWorkoutSession`.
    func handleActiveWorkoutRecovery()
}

extension WKApplicationDelegate {
    public func applicationDidFinishLaunching() {}
    public func applicationDidBecomeActive() {}
    public func applicationWillResignActive() {}
    public func applicationWillEnterForeground() {}
    public func applicationDidEnterBackground() {}
    public func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks { task.setTaskCompletedWithSnapshot(false) }
    }
    public func handle(_ workoutConfiguration: HKWorkoutConfiguration) {}
    public func handleActiveWorkoutRecovery() {}
}

/// The same calls under the name watch apps used before watchOS 7 (WatchKit's `WKExtensionDelegate`).
@MainActor public protocol WKExtensionDelegate: AnyObject {
    func applicationDidFinishLaunching()
    func applicationDidBecomeActive()
    func applicationWillResignActive()
    func applicationWillEnterForeground()
    func applicationDidEnterBackground()
    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>)
    /// The phone started a workout for this app (`HKHealthStore.startWatchApp(with:completion:)`):
    /// start its `HKWorkoutSession` here. watch-os launched the app in the background for it if it was
    /// not running.
    func handle(_ workoutConfiguration: HKWorkoutConfiguration)
    /// The app was relaunched after it died during an active workout session (watch-os relaunches it
    /// in the background): take the session back with `HKHealthStore.recoverActiveWorkoutSession`.
    func handleActiveWorkoutRecovery()
}

extension WKExtensionDelegate {
    public func applicationDidFinishLaunching() {}
    public func applicationDidBecomeActive() {}
    public func applicationWillResignActive() {}
    public func applicationWillEnterForeground() {}
    public func applicationDidEnterBackground() {}
    public func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks { task.setTaskCompletedWithSnapshot(false) }
    }
    public func handle(_ workoutConfiguration: HKWorkoutConfiguration) {}
    public func handleActiveWorkoutRecovery() {}
}

/// The watch app's one application object (WatchKit's `WKApplication`, watchOS 7 and later).
public final class WKApplication: NSObject, @unchecked Sendable {
    private static let sharedApplication = WKApplication()
    public static func shared() -> WKApplication { sharedApplication }

    override private init() { super.init() }

    /// The app's delegate (held weakly: keep it alive yourself). Set it before activating the session.
    public weak var delegate: (any WKApplicationDelegate)? {
        didSet { WatchKitLifecycle.shared.delegateChanged() }
    }

    /// `active` while on screen, `background` otherwise, as watch-os says.
    public var applicationState: WKApplicationState { WatchKitLifecycle.shared.state }

    /// Asks for a `WKApplicationRefreshBackgroundTask` at `preferredFireDate` on the device's clock (one
    /// at a time: a new request replaces the one pending). watch-os keeps it whether the app runs or not:
    /// `runway clock advance` past it, or the time coming, wakes the app or launches it in the background.
    /// `userInfo` is handed back only to the process that scheduled it (a relaunched app gets nil).
    public func scheduleBackgroundRefresh(
        withPreferredDate preferredFireDate: Date, userInfo: (any NSSecureCoding & NSObjectProtocol)?,
        scheduledCompletion: @escaping ((any Error)?) -> Void
    ) {
        scheduledCompletion(WatchKitLifecycle.shared.scheduleRefresh(at: preferredFireDate, userInfo: userInfo))
    }
}

/// The application object under its pre-watchOS 7 name (WatchKit's `WKExtension`): the same app, the same
/// calls, its own delegate property.
public final class WKExtension: NSObject, @unchecked Sendable {
    private static let sharedExtension = WKExtension()
    public static func shared() -> WKExtension { sharedExtension }

    override private init() { super.init() }

    /// The extension's delegate (held weakly: keep it alive yourself). Set it before activating the session.
    public weak var delegate: (any WKExtensionDelegate)? {
        didSet { WatchKitLifecycle.shared.delegateChanged() }
    }

    public var applicationState: WKApplicationState { WatchKitLifecycle.shared.state }

    /// `WKApplication.scheduleBackgroundRefresh(withPreferredDate:userInfo:scheduledCompletion:)`.
    public func scheduleBackgroundRefresh(
        withPreferredDate preferredFireDate: Date, userInfo: (any NSSecureCoding & NSObjectProtocol)?,
        scheduledCompletion: @escaping ((any Error)?) -> Void
    ) {
        scheduledCompletion(WatchKitLifecycle.shared.scheduleRefresh(at: preferredFireDate, userInfo: userInfo))
    }
}
