/// What an app tells its OS (`phone-os`, `watch-os`) on `NOTIFY_SOCKET`, besides sd_notify's own lines
/// (`READY=1`, `STATUS=`, `MAINPID=`, `FDSTORE=1`): one typed notice (issue 53), written as one line by
/// `line` and read back by `init?(line:)` — the one encoder and the one decoder of the `X_…=` lines; the
/// OS handles each case in one exhaustive switch (`DeviceOperatingSystem.appNotified`).
package enum AppNotice: Sendable, Equatable {
    /// A first delivery: the app's session took something from the link (a userInfo committed, a message,
    /// a context; on the watch also a file or a transfer finished). The OS counts it for its launch.
    case delivered
    /// A message handed to the app's delegate: a background app's budget is granted again, as iOS gives
    /// an app the time to handle a message it wakes for.
    case message
    /// The app's device has been quiet for the idle interval the OS asked for: its background work is
    /// done, and the OS may suspend it (issue 50).
    case idle
    /// A workout session runs in the app (true) or ended: the OS keeps an app running a workout alive in
    /// the background (no budget runs).
    case workout(running: Bool)
    /// WatchKit handed the app's delegate a background task: open until completed, or expired.
    case taskHanded
    /// The app completed a background task (`setTaskCompletedWithSnapshot`).
    case taskCompleted
    /// The app scheduled a background refresh at this device time, seconds since 1970
    /// (`scheduleBackgroundRefresh`): the OS launches or wakes it when it falls due.
    case refreshScheduled(at: Double)
    /// The app asked for its complication's timeline to be reloaded (ClockKit, WidgetKit): its kind.
    case complicationReload(kind: String)
    /// The app played a haptic (`WKInterfaceDevice.play(_:)`): its type.
    case haptic(type: String)
    /// A watch switch happened while the phone app ran, and its session's delegate implements neither
    /// `sessionDidBecomeInactive(_:)` nor `sessionDidDeactivate(_:)` — the methods Apple says an iOS app
    /// "must implement … to support quick switching": it opted out of switching, and phone-os terminates
    /// it in the background (issue 50, row 6).
    case watchSwitchOptOut

    /// The notice as the line the app writes (`X_WORKOUT=1`); a word is one line without `=`, at most 200
    /// bytes.
    package var line: String {
        switch self {
        case .delivered: "X_DELIVERED=1"
        case .message: "X_MESSAGE=1"
        case .idle: "X_IDLE=1"
        case let .workout(running): "X_WORKOUT=\(running ? 1 : 0)"
        case .taskHanded: "X_TASK_HANDED=1"
        case .taskCompleted: "X_TASK_COMPLETED=1"
        case let .refreshScheduled(at): "X_REFRESH_AT=\(at)"
        case let .complicationReload(kind): "X_RELOAD=\(Self.word(kind))"
        case let .haptic(type): "X_HAPTIC=\(Self.word(type))"
        case .watchSwitchOptOut: "X_WATCH_SWITCH_OPT_OUT=1"
        }
    }

    /// The notice a line says, or nil for a line that is no notice (sd_notify's own, or one it does not
    /// know: a newer app's, which an OS ignores).
    package init?(line: Substring) {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        let value = String(line[line.index(after: equals)...])
        switch line[..<equals] {
        case "X_DELIVERED" where value == "1": self = .delivered
        case "X_MESSAGE" where value == "1": self = .message
        case "X_IDLE" where value == "1": self = .idle
        case "X_WORKOUT" where value == "1" || value == "0": self = .workout(running: value == "1")
        case "X_TASK_HANDED" where value == "1": self = .taskHanded
        case "X_TASK_COMPLETED" where value == "1": self = .taskCompleted
        case "X_REFRESH_AT":
            guard let at = Double(value), at.isFinite else { return nil }
            self = .refreshScheduled(at: at)
        case "X_RELOAD": self = .complicationReload(kind: Self.word(value))
        case "X_HAPTIC": self = .haptic(type: Self.word(value))
        case "X_WATCH_SWITCH_OPT_OUT" where value == "1": self = .watchSwitchOptOut
        default: return nil
        }
    }

    /// `text` as one word of a notice: no line breaks or `=`, at most 200 bytes, never empty.
    package static func word(_ text: String) -> String {
        var word = String(text.map { $0 == "\n" || $0 == "\r" || $0 == "=" ? "_" : $0 })
        while word.utf8.count > 200 { word.removeLast() }
        return word.isEmpty ? "_" : word
    }
}
