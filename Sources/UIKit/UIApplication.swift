import AppHost
import Foundation

/// A sliver of UIKit: the application's state, which is what decides where WatchConnectivity code may
/// wait for a screen and where it must not. iOS launches an app in the background to hand it a transfer —
/// no screen, `applicationState == .background` — and RunWay 1.3 lost its runs by saving only once its
/// home screen appeared. Here the state is the simulated iOS's (`phone-os`): how it launched the app,
/// then `runway phone app open` (active) and `close` (background). An app with no OS of its own (started by
/// hand, or the watch) is active.
///
/// The notifications are posted on `NotificationCenter.default`, on the main queue, as UIKit posts them;
/// the app's main thread must run it (`RunLoop.main.run()` or `dispatchMain()`).
open class UIApplication: NSObject, @unchecked Sendable {
    /// The app's state: `active` on screen, `background` launched for work with no screen.
    /// (`inactive`, the moment between, is not simulated.)
    public enum State: Int, Sendable {
        case active = 0
        case inactive = 1
        case background = 2
    }

    /// The app's one application object.
    public static let shared: UIApplication = {
        let application = UIApplication()
        application.observe()
        return application
    }()

    /// Posted when the app comes to the foreground and is active.
    public static let didBecomeActiveNotification = named("UIApplicationDidBecomeActiveNotification")
    /// Posted just before the app comes to the foreground.
    public static let willEnterForegroundNotification = named("UIApplicationWillEnterForegroundNotification")
    /// Posted when the app goes to the background (its screen gone).
    public static let didEnterBackgroundNotification = named("UIApplicationDidEnterBackgroundNotification")

    /// Observing a name starts the application object, so the posts begin before anyone asks for
    /// `shared`.
    private static func named(_ name: String) -> Notification.Name {
        _ = shared
        return Notification.Name(name)
    }

    override private init() {
        super.init()
    }

    /// The state now, as the device's OS last said it.
    open var applicationState: State {
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment() else { return .active }
        return host.mailbox.sync { host.isInForeground ? .active : .background }
    }

    private func observe() {
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment() else { return }
        host.mailbox.sync {
            host.onApplicationStateChange.append { [weak self] foreground in
                guard let self else { return }
                let names =
                    foreground
                    ? [Self.willEnterForegroundNotificationName, Self.didBecomeActiveNotificationName] : [Self.didEnterBackgroundNotificationName]
                DispatchQueue.main.async {
                    for name in names { NotificationCenter.default.post(name: Notification.Name(name), object: self) }
                }
            }
        }
    }

    private static let didBecomeActiveNotificationName = "UIApplicationDidBecomeActiveNotification"
    private static let willEnterForegroundNotificationName = "UIApplicationWillEnterForegroundNotification"
    private static let didEnterBackgroundNotificationName = "UIApplicationDidEnterBackgroundNotification"
}
