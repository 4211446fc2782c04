import Glibc

/// How an app's process tells its OS (`phone-os`, `watch-os`) an `AppNotice`, and has the call recorded in
/// its device's delegate trace (`runway watch events`) when the device runs in the process: the path of
/// `AppLaunch` (AppHost) and of an Apple-named module that needs no device of its own — WidgetKit, whose
/// `WidgetCenter` only tells the OS, compiles this and no device (docs/performance.md, "What each product
/// compiles").
package enum AppNotifier {
    /// The variable in which `phone-os` and `watch-os` tell the app they launch their own pid.
    package static let osPIDVariable = "RUNWAY_OS_PID"

    /// Whether an OS (phone-os, watch-os) launched this process.
    package static var isUnderOS: Bool { getenv(osPIDVariable) != nil }

    /// Records a call the app made to its system (`name`, `kind`) in the device's delegate trace: set by the
    /// device when it is made in this process (AppHost's `DeviceHost`), nil before — a call made then is
    /// told to the OS only, as it always was.
    package nonisolated(unsafe) static var recordSystemCall: (@Sendable (_ name: String, _ kind: String) -> Void)?

    /// Tells the OS `notice` (only under an OS): its one line (`AppNotice.line`), and the app's pid.
    package static func tell(_ notice: AppNotice) {
        guard isUnderOS else { return }
        ServiceNotifier.notify("\(notice.line)\nMAINPID=\(getpid())")
    }

    /// Tells the OS the app asked for a reload of `kind` (ClockKit's, WidgetKit's: one line, at most 200
    /// bytes of it), recorded in the device's trace when the device runs here.
    package static func reportReload(_ kind: String) {
        recordSystemCall?("complicationReload", AppNotice.word(kind))
        tell(.complicationReload(kind: kind))
    }
}
