import Connectivity
import JSONText

/// The catalogue of the control protocol: every command, its arguments and its failures, in one place.
/// The daemons' router, the `runway` CLI's requests, `runway man` and `docs/protocol.md` all read it.
package enum ControlCommands {
    static let both: Set<ControlServerKind> = [.phone, .watch]
    /// What the OS answers: the device's own process when the OS runs there, phone-os when it runs the phone.
    static let os: Set<ControlServerKind> = [.phone, .watch, .phoneOS, .watchOS]

    /// Every command: the 7 still declared as `ControlCommandSpec` values below (their keys in
    /// `ControlCatalogueArguments.swift`), then those declared as types. These stay values, each for its
    /// reason: `logbook`, `flight`, `alerts` and `events` reply in JSON with no reply type
    /// (`ControlCommandSpec.replyTypes` says why), which a type needs; `attach`, `os-attach-app` and
    /// `events` keep the connection past their reply (`attach` and `events` until it closes,
    /// `os-attach-app` for the clock's changes and the notifications delivered), which only a
    /// `(request, connection)` handler has; `app` takes other arguments and answers another reply on each
    /// server (the watch's actions and `WatchAppReply`, the OS's and `OSStatusReply`), where a type has one
    /// `Reply`, and under the OS its `open` answers once the app is ready, from the OS's list of
    /// connections waiting (`DeviceOperatingSystem.openWaiters`), not from a handler.
    package static let all: [ControlCommandSpec] =
        [
            events,
            logbook, flight, attach, alerts,
            app, osAttachApp,
        ] + declared.map { $0.spec }

    /// The commands declared as types (`ControlCommand`), family by family: each family's list is in its
    /// own file, beside its types (`Sources/Control/Commands`), so a command joining a family is named
    /// there, not here; only a new family adds a line here.
    package static let declared: [any ControlCommand.Type] =
        sessionAPICommands + liveRunCommands + inspectionCommands + logbookCommands + viewGroupCommands + appUpdateCommands + watchCommands
        + linkConditionCommands + faultCapCommands + appSettingsCommands + deviceCommands + osCommands + osServiceCommands

    /// The OS services' calls, service by service (`Sources/Control/Commands/OS*Requests.swift`): each an
    /// `OSRequest` too, which the OS answers (`SystemServices.requests`); a new service adds its list here.
    package static let osServiceCommands: [any ControlCommand.Type] = ClockRequest.commands + NotificationRequest.commands + HealthRequest.commands

    // MARK: - The session's delegate calls, on both devices

    package static let events = ControlCommandSpec(
        "events", both, arguments: [Events.limit, Events.follow], errors: [.invalid("the connection already receives events")],
        "the session's delegate calls: the recent ones and, with follow, each as it happens")

    // MARK: - The phone

    package static let logbook = ControlCommandSpec("logbook", [.phone], "every stored flight, streamed")
    package static let flight = ControlCommandSpec(
        "flight", [.phone], arguments: [Flight.id], errors: [.failure("no flight has that id")], "one flight with its analysis")
    package static let attach = ControlCommandSpec("attach", [.phone], reply: AttachReply.self, "become the app's UI: events until the connection closes")
    package static let alerts = ControlCommandSpec("alerts", [.phone], "the alerts of every flight")

    // MARK: - The app's state, on the watch and under the OS

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

    // MARK: - The running app's connection to its OS (phone-os, watch-os)

    package static let osAttachApp = ControlCommandSpec(
        "os-attach-app", [.phoneOS, .watchOS], reply: OSClockEvent.self,
        "the running app's connection to its OS: the clock now, then its changes and each delivered notification")
}
