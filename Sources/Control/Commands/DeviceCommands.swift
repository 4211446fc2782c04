// MARK: - The device's own state (status, the watch's link and face, the phone's watches and reminders): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`). The OS processes answer
    /// some of them too, while the app is not running (`status`, `switch-watch`) or holds nothing
    /// (`link`, `complication` under watch-os).
    static let deviceCommands: [any ControlCommand.Type] = [
        Status.self, Reminders.self, RemindersReschedule.self, Link.self, Complication.self, SwitchWatch.self,
    ]

    /// `status`: the device's state, from its own process or, while the app is not running, its OS's.
    package struct Status: ControlCommand {
        package typealias Reply = StatusReply
        package static let spec = ControlCommandSpec(
            Self.self, "status", os, "the device's state: session, link, store, versions (phone-os: what the OS knows while the app is not running)")
        package init() {}
    }

    /// `reminders`: the phone app's run reminders.
    package struct Reminders: ControlCommand {
        package typealias Reply = RemindersReply
        package static let spec = ControlCommandSpec(Self.self, "reminders", [.phone], "the run reminders")
        package init() {}
    }

    /// `reminders-reschedule`: the run reminders scheduled again, as opening the app does.
    package struct RemindersReschedule: ControlCommand {
        package typealias Reply = RemindersReply
        package static let spec = ControlCommandSpec(
            Self.self, "reminders-reschedule", [.phone], "reschedule the run reminders, as opening the app does")
        package init() {}
    }

    /// `link`: the watch's link to the phone, cut or restored (watch-os keeps it while the app sleeps).
    package struct Link: ControlCommand {
        package typealias Reply = LinkReply
        @Argument(.choice(["up", "down"]), "the link's state") package var state: String
        package static let spec = ControlCommandSpec(
            Self.self, "link", [.watch, .watchOS], errors: [appHoldsTheLink],
            "cut or restore the link to the phone (under watch-os, kept while the app sleeps and across its launches)")
        package init() {}
    }

    /// `complication`: the app's complication on the active watch face, or off it.
    package struct Complication: ControlCommand {
        package typealias Reply = ComplicationReply
        @Argument(.choice(["on", "off"]), "on the watch face, or off it") package var state: String
        package static let spec = ControlCommandSpec(
            Self.self, "complication", [.watch, .watchOS],
            errors: [
                .failure("watch-os: the watch app is not installed"),
                .failure("watch-os, once it has launched the watch app: its session holds it (reason appHoldsTheLink; the CLI asks the app)"),
            ],
            "put the app's complication on the active watch face, or take it off (the phone's isComplicationEnabled)")
        package init() {}
    }

    /// `switch-watch`: another paired watch made the active one, by the app's session or, while the app
    /// is not running, by phone-os.
    package struct SwitchWatch: ControlCommand {
        package typealias Reply = SwitchWatchReply
        @Argument(.string(bytes: 1...4096), "the watch to make active: its device id, or its home as runway pair was given it") package var watch: String
        package static let spec = ControlCommandSpec(
            Self.self, "switch-watch", [.phone, .phoneOS],
            errors: [
                .invalid("no watch by that device id or home is paired with this phone (7005 deviceNotPaired)"),
                .failure("a switch is already under way (7016 sessionInactive); phone-os: the app is suspended or starting"),
            ],
            "make a paired watch the active one: the session goes inactive, delivers what the old watch sent, then deactivates; the app activates again")
        package init() {}
    }
}
