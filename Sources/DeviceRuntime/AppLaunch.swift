import Glibc
import Posix

/// How an OS (`phone-os`, `watch-os`) launched the app's process: in the foreground or the background,
/// and for what (`RUNWAY_LAUNCH_MODE`, `RUNWAY_LAUNCH_REASON`); and what the app tells its OS besides
/// `READY=1` on `NOTIFY_SOCKET`. Without an OS (a daemon started by hand) neither is set: the app is in
/// the foreground, as it always was.
public enum AppLaunch {
    public static let modeVariable = "RUNWAY_LAUNCH_MODE"
    public static let reasonVariable = "RUNWAY_LAUNCH_REASON"
    /// The reason watch-os gives when the phone has content for the watch app (what watchOS hands the
    /// app as a `WKWatchConnectivityRefreshBackgroundTask`).
    public static let watchConnectivityReason = "phone-content"
    /// Sent on `NOTIFY_SOCKET` when the app completes its background task (`setTaskCompletedWithSnapshot`).
    public static let taskCompletedNotice = "X_TASK_COMPLETED=1"

    /// `foreground`, `background`, or nil when no OS launched the app.
    public static var mode: String? { DeviceEnvironment.value(modeVariable) }
    public static var reason: String? { DeviceEnvironment.value(reasonVariable) }

    /// A workout session runs in the app (`X_WORKOUT=1`) or ended (`X_WORKOUT=0`): the OS keeps an app
    /// running a workout alive in the background (no budget runs).
    public static func reportWorkout(running: Bool) {
        guard getenv(PhoneActivation.osPIDVariable) != nil else { return }
        ServiceNotifier.notify("X_WORKOUT=\(running ? 1 : 0)\nMAINPID=\(getpid())")
    }

    /// Tells the OS the app completed its background task (only under an OS).
    public static func reportTaskCompleted() {
        guard getenv(PhoneActivation.osPIDVariable) != nil else { return }
        ServiceNotifier.notify("\(taskCompletedNotice)\nMAINPID=\(getpid())")
    }
}
