import Connectivity
import JSONText

/// The catalogue of the control protocol: every command, its arguments and its failures, in one place.
/// The daemons' router, the `runway` CLI's requests, `runway man` and `docs/protocol.md` all read it.
package enum ControlCommands {
    static let both: Set<ControlServerKind> = [.phone, .watch]
    /// What the OS answers: the device's own process when the OS runs there, phone-os when it runs the phone.
    static let os: Set<ControlServerKind> = [.phone, .watch, .phoneOS, .watchOS]

    /// Every command: the 17 still declared as `ControlCommandSpec` values below (their keys in
    /// `ControlCatalogueArguments.swift`), then those declared as types. These stay values: the OS's own
    /// (`status`, `reminders*`, `os-status`, `os-jetsam`, `os-attach-app`, `device-*`, and `link`, `app`,
    /// `complication`, `switch-watch`, which the OS processes answer too) are not converted yet;
    /// `logbook`, `flight`, `alerts` and `events` reply in JSON with no reply type
    /// (`ControlCommandSpec.replyTypes` says why), which a type needs; `attach` and `events` keep the
    /// connection past their reply (events until it closes), which only a `(request, connection)` handler
    /// has.
    package static let all: [ControlCommandSpec] =
        [
            events,
            status,
            logbook, flight, attach, reminders,
            remindersReschedule, alerts,
            link, app, complication,
            osStatus, osJetsam, osAttachApp, deviceLock, deviceReboot, switchWatch,
        ] + declared.map { $0.spec }

    /// The commands declared as types (`ControlCommand`), family by family: each family's list is in its
    /// own file, beside its types (`Sources/Control/Commands`), so a command joining a family is named
    /// there, not here; only a new family adds a line here.
    package static let declared: [any ControlCommand.Type] =
        sessionAPICommands + liveRunCommands + inspectionCommands + logbookCommands + viewGroupCommands + appUpdateCommands + watchCommands
        + linkConditionCommands + faultCapCommands + appSettingsCommands + osServiceCommands

    /// The OS services' calls, service by service (`Sources/Control/Commands/OS*Requests.swift`): each an
    /// `OSRequest` too, which the OS answers (`SystemServices.requests`); a new service adds its list here.
    package static let osServiceCommands: [any ControlCommand.Type] = ClockRequest.commands + NotificationRequest.commands + HealthRequest.commands

    // MARK: - The session's delegate calls, on both devices

    package static let events = ControlCommandSpec(
        "events", both, arguments: [Events.limit, Events.follow], errors: [.invalid("the connection already receives events")],
        "the session's delegate calls: the recent ones and, with follow, each as it happens")

    // MARK: - Every device

    package static let status = ControlCommandSpec(
        "status", os, reply: StatusReply.self, "the device's state: session, link, store, versions (phone-os: what the OS knows while the app is not running)")

    // MARK: - The phone

    package static let logbook = ControlCommandSpec("logbook", [.phone], "every stored flight, streamed")
    package static let flight = ControlCommandSpec(
        "flight", [.phone], arguments: [Flight.id], errors: [.failure("no flight has that id")], "one flight with its analysis")
    package static let attach = ControlCommandSpec("attach", [.phone], reply: AttachReply.self, "become the app's UI: events until the connection closes")
    package static let reminders = ControlCommandSpec("reminders", [.phone], reply: RemindersReply.self, "the run reminders")
    package static let remindersReschedule = ControlCommandSpec(
        "reminders-reschedule", [.phone], reply: RemindersReply.self, "reschedule the run reminders, as opening the app does")
    package static let alerts = ControlCommandSpec("alerts", [.phone], "the alerts of every flight")

    // MARK: - The watch

    package static let link = ControlCommandSpec(
        "link", [.watch, .watchOS], arguments: [Link.state], reply: LinkReply.self,
        errors: [.failure("watch-os, once it has launched the watch app: the app holds the link (reason appHoldsTheLink; the CLI asks the app)")],
        "cut or restore the link to the phone (under watch-os, kept while the app sleeps and across its launches)")
    package static let app = ControlCommandSpec(
        "app", [.watch, .phoneOS, .watchOS], on: [.watch: [App.watchAction], .phoneOS: [App.osAction, App.version], .watchOS: [App.watchOSAction]],
        replies: [.watch: WatchAppReply.self, .phoneOS: OSStatusReply.self, .watchOS: OSStatusReply.self],
        errors: [
            .failure("the app's state does not allow it (foreground while not installed; close, suspend or resume from the wrong state)"),
            .failure("phone-os: open while the app is not installed, or the phone not unlocked since it restarted"),
            .failure("phone-os: install of a version older than the one installed (a downgrade, which iOS refuses)"),
            .invalid("phone-os: a version that is not N(.N){0,3}, or a version with another action"),
            .failure("watch-os: open while the watch app is not installed, or uninstall of an app that is not"),
        ],
        "the app's state: install, uninstall, foreground, background (watch); open, close, force-quit, suspend, resume, install, uninstall (phone-os and watch-os)"
    )
    package static let complication = ControlCommandSpec(
        "complication", [.watch, .watchOS], arguments: [Complication.state], reply: ComplicationReply.self,
        errors: [
            .failure("watch-os: the watch app is not installed"),
            .failure("watch-os, once it has launched the watch app: its session holds it (reason appHoldsTheLink; the CLI asks the app)"),
        ],
        "put the app's complication on the active watch face, or take it off (the phone's isComplicationEnabled)")

    // MARK: - Several watches

    package static let switchWatch = ControlCommandSpec(
        "switch-watch", [.phone, .phoneOS], arguments: [SwitchWatch.watch],
        reply: SwitchWatchReply.self,
        errors: [
            .invalid("no watch by that device id or home is paired with this phone (7005 deviceNotPaired)"),
            .failure("a switch is already under way (7016 sessionInactive); phone-os: the app is suspended or starting"),
        ],
        "make a paired watch the active one: the session goes inactive, delivers what the old watch sent, then deactivates; the app activates again")
    // MARK: - phone-os

    package static let osStatus = ControlCommandSpec(
        "os-status", [.phoneOS, .watchOS], reply: OSStatusReply.self, "the app's state, launches by reason, reclaims, the budget")
    package static let osAttachApp = ControlCommandSpec(
        "os-attach-app", [.phoneOS, .watchOS], reply: OSClockEvent.self,
        "the running app's connection to its OS: the clock now, then its changes and each delivered notification")
    package static let deviceLock = ControlCommandSpec(
        "device-lock", [.phoneOS], arguments: [DeviceLock.state], reply: OSStatusReply.self,
        "lock or unlock the phone; the first unlock after a restart makes it reachable again")
    package static let deviceReboot = ControlCommandSpec(
        "device-reboot", [.phoneOS], reply: OSStatusReply.self,
        "restart the phone: the app stops, the phone is locked and unreachable to the watch until it is unlocked")
    package static let osJetsam = ControlCommandSpec(
        "os-jetsam", [.phoneOS, .watchOS], reply: OSStatusReply.self, errors: [.failure("the app is not running")],
        "kill the app at once, as memory pressure does")
}
