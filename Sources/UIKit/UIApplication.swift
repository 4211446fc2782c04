import AppHost
import Foundation

/// A sliver of UIKit: the application's state, which is what decides where WatchConnectivity code may
/// wait for a screen and where it must not. iOS launches an app in the background to hand it a transfer —
/// no screen, `applicationState == .background` — and RunWay 1.3 lost its runs by saving only once its
/// home screen appeared. Here the state is the simulated iOS's (`phone-os`): how it launched the app,
/// then `runway phone app open` (active) and `close` (background). An app with no OS of its own (started by
/// hand, or the watch) is active.
///
/// As in the SDK, the class and its members are `@MainActor`: `UIApplication.shared.applicationState`
/// is read on the main actor (a nonisolated read does not compile in Swift 6 mode, as in Xcode); the
/// notification names are `nonisolated`. The notifications are posted on `NotificationCenter.default`,
/// on the main queue, as UIKit posts them; the app's main thread must run it (`RunLoop.main.run()` or
/// `dispatchMain()`).
@MainActor
open class UIApplication: NSObject, _UIApplicationSwift5State {
    /// The app's state: `active` on screen, `background` launched for work with no screen.
    /// (`inactive`, the moment between, is not simulated.)
    public enum State: Int, Sendable {
        case active = 0
        case inactive = 1
        case background = 2
    }

    /// The app's one application object.
    public static let shared: UIApplication = {
        StateObserver.start()
        return UIApplication()
    }()

    /// Posted when the app comes to the foreground and is active.
    nonisolated public static let didBecomeActiveNotification = StateObserver.named("UIApplicationDidBecomeActiveNotification")
    /// Posted just before the app comes to the foreground.
    nonisolated public static let willEnterForegroundNotification = StateObserver.named("UIApplicationWillEnterForegroundNotification")
    /// Posted when the app is about to stop being active (before `didEnterBackgroundNotification`).
    nonisolated public static let willResignActiveNotification = StateObserver.named("UIApplicationWillResignActiveNotification")
    /// Posted when the app goes to the background (its screen gone).
    nonisolated public static let didEnterBackgroundNotification = StateObserver.named("UIApplicationDidEnterBackgroundNotification")

    override private init() {
        super.init()
    }

    /// The state now, as the device's OS last said it. On the main actor in Swift 6 mode; in Swift 5 mode
    /// the extension below answers a read from any thread (see `_UIApplicationSwift5State`).
    @available(swift, introduced: 6)
    open var applicationState: State { StateObserver.isInForeground() ? .active : .background }
}

/// What Swift 5 mode reads, as Xcode compiles it: the SDK's `UIApplication` comes from Objective-C, whose
/// main-actor isolation Swift 5 mode does not enforce (a read off the main thread compiles, and is the
/// Main Thread Checker's to report at run time), while Swift 6 mode refuses it. A Swift declaration is
/// enforced in both modes, so Swift 5 code reads this nonisolated twin instead (the class's own member
/// is introduced in Swift 6), and Swift 6 code the main actor's: each mode accepts what Xcode accepts.
public protocol _UIApplicationSwift5State {}

extension _UIApplicationSwift5State {
    @available(swift, obsoleted: 6)
    public var applicationState: UIApplication.State { StateObserver.isInForeground() ? .active : .background }
}

/// Posts UIKit's notifications when the device's OS changes the app's state: started by the first use of
/// a notification's name or of `shared`, so the posts begin before anyone asks for `shared`.
private enum StateObserver {
    static func named(_ name: String) -> Notification.Name {
        start()
        return Notification.Name(name)
    }

    static func start() { _ = started }

    /// As the device's OS last said it, read without waiting for the device's thread (the main thread
    /// must not: a delegate callback there may be waiting for it). No device: active.
    static func isInForeground() -> Bool {
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment() else { return true }
        return host.isInForegroundNow
    }

    private static let started: Void = {
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment() else { return }
        // Posted, not waited for: the first use may be on the main thread while the device's thread
        // waits for it.
        host.mailbox.post {
            host.onApplicationStateChange.append { foreground in
                let names =
                    foreground
                    ? ["UIApplicationWillEnterForegroundNotification", "UIApplicationDidBecomeActiveNotification"]
                    : ["UIApplicationWillResignActiveNotification", "UIApplicationDidEnterBackgroundNotification"]
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        let application = UIApplication.shared
                        for name in names { NotificationCenter.default.post(name: Notification.Name(name), object: application) }
                    }
                }
            }
        }
    }()
}
