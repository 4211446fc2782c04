/// Which program answers a command on its control socket.
public enum ControlServerKind: String, Sendable, CaseIterable {
    case phone, watch
    /// `phone-os`, the phone's simulated iOS (`HOME/os.sock`).
    case phoneOS = "phone-os"

    /// The program's name, as a user knows it.
    public var programName: String {
        switch self {
        case .phone: "phone-daemon"
        case .watch: "watch-agent"
        case .phoneOS: "phone-os"
        }
    }
}

/// One command of the control protocol: who answers it and on what terms. Every command a daemon
/// answers is declared here, once; a daemon's `ControlRouter` refuses any other, and refuses a test
/// command or a session command by these declarations before any handler runs.
public struct ControlCommandSpec: Sendable {
    public let name: String
    public let servers: Set<ControlServerKind>
    /// The session's API: answered with 7004 `sessionNotActivated` until the session is activated.
    public let needsActivatedSession: Bool
    /// Fault injection for tests: refused unless the daemon was started with `--enable-test-commands`.
    public let isTestCommand: Bool
    public let summary: String

    init(_ name: String, _ servers: Set<ControlServerKind>, session: Bool = false, test: Bool = false, _ summary: String) {
        self.name = name
        self.servers = servers
        self.needsActivatedSession = session
        self.isTestCommand = test
        self.summary = summary
    }
}

/// The catalogue of the control protocol: every command, in one place.
public enum ControlCommands {
    private static let both: Set<ControlServerKind> = [.phone, .watch]

    public static let all: [ControlCommandSpec] = [
        // The session's generic API (WCSession), on both devices.
        .init("transfer-userinfo", both, session: true, "queue a userInfo transfer (payload)"),
        .init("received", both, session: true, "the userInfo dictionaries received, oldest first (limit)"),
        .init("context-set", both, session: true, "update the application context (payload)"),
        .init("context-get", both, session: true, "the application context sent and the one received"),
        .init("message", both, session: true, "send a message and wait for its reply, or only for its delivery (payload, timeoutMs, replyExpected)"),
        .init("transfers", both, session: true, "outstanding userInfo transfers: keys and sizes (limit)"),
        .init("cancel", both, session: true, "cancel an outstanding transfer not yet on its way (transferId)"),
        .init("quarantine", both, "transfers received that could not be taken (limit)"),
        .init("quarantine-remove", both, "remove a quarantined transfer (id) or all of them (all)"),
        .init("events", both, "the session's delegate calls: the recent ones (limit) and, with follow, each as it happens"),
        // Every device.
        .init("status", both, "the device's state: session, link, store, versions"),
        .init("clock-show", both, "the device clock"),
        .init("clock-set", both, "set the device clock (at, timeZone)"),
        .init("clock-advance", both, "move the device clock on (seconds)"),
        .init("clock-reset", both, "the device clock follows the system clock again"),
        .init("run-start", both, "start a live run (mode, ...)"),
        .init("run-sample", both, "feed the live run one sample"),
        .init("run-status", both, "the live run"),
        .init("run-stop", both, "stop the live run, saving it as a flight"),
        .init("run-replay", both, "replay a scripted run"),
        .init("store-limit", both, test: true, "cap the store's size in pages (pages; 0 lifts it)"),
        // The phone.
        .init("logbook", [.phone], "every stored flight, streamed"),
        .init("flight", [.phone], "one flight with its analysis (id)"),
        .init("delete", [.phone], "delete a flight (id)"),
        .init("attach", [.phone], "become the app's UI: events until the connection closes"),
        .init("preflight", [.phone], "the pre-flight Apple Watch row (legacy)"),
        .init("language", [.phone], "the app's language setting"),
        .init("language-set", [.phone], "set the app's language (language)"),
        .init("strings", [.phone], "the app's texts in its effective language"),
        .init("settings", [.phone], "Settings › RunWay"),
        .init("notifications", [.phone], "the notification centre: pending and delivered"),
        .init("reminders", [.phone], "the run reminders"),
        .init("reminders-reschedule", [.phone], "reschedule the run reminders, as opening the app does"),
        .init("notification-add", [.phone], "add a notification (id, inSeconds, body): for the tests of the centre's rules"),
        .init("alerts", [.phone], "the alerts of a run"),
        .init("groups", [.phone], "the alert groups"),
        .init("group-set", [.phone], "switch an alert group on or off"),
        .init("groups-reset", [.phone], "the alert groups' defaults"),
        .init("appstore-set", [.phone], "the simulated App Store's answer"),
        .init("appstore-fail", [.phone], "make the App Store lookup fail"),
        .init("appstore-show", [.phone], "the simulated App Store"),
        .init("update-check", [.phone], "look for a newer version now"),
        .init("update-status", [.phone], "the update notice"),
        .init("update-respond", [.phone], "answer the update alert (update or later)"),
        .init("test-run-state", [.phone], test: true, "pretend a run is in progress (running)"),
        // The watch.
        .init("record", [.watch], "record runs and queue them for the phone (count, seed, ...)"),
        .init("link", [.watch], "cut or restore the link to the phone (action)"),
        .init(
            "app", [.watch, .phoneOS],
            "the app's state: install, uninstall, foreground, background (watch); open, close, force-quit, suspend, resume (phone-os)"),
        .init("fail-next", [.watch], test: true, "the next N userInfo transfers fail with an error (count, code)"),
        .init("workout-fault", [.watch], test: true, "make the watch refuse or ignore a workout start (mode)"),
        // phone-os.
        .init("os-status", [.phoneOS], "the app's state, launches by reason, reclaims, the budget"),
        .init("os-jetsam", [.phoneOS], "kill the app at once, as memory pressure does"),
    ]

    private static let byName: [String: ControlCommandSpec] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    public static func spec(_ name: String) -> ControlCommandSpec? { byName[name] }

    /// The commands `server` answers.
    public static func answered(by server: ControlServerKind) -> [ControlCommandSpec] { all.filter { $0.servers.contains(server) } }
}
