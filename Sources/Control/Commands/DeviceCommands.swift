import JSONText

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
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.devices, ["status"]) { device, _ in
            device == "phone"
                ? """
                The phone's state in sections: SESSION (activation, pairing, the two devices), LINK (connected,
                reachable), OUTBOX (what the phone sends), INBOX (what it received, quarantined, failed commits), APP
                (the app's bundle id and process, what its session holds; for RunWay also versions, flights stored,
                save path, UIs, reminders) and OS (the process; under phone-os also the app's state, launches by
                reason, declined launches, reclaims, budget). --json prints the daemon's status object as it is.
                """
                : """
                The watch's state in sections: SESSION (activation, pairing, the two devices), LINK (connected or out of
                range, reachable), OUTBOX (userInfo transfers not yet delivered, on the wire, acknowledged), INBOX, APP
                (the app's bundle id and process; for RunWay also versions, the watch app installed and in the
                foreground, its language — the phone's, from the application context, or the watch's own system's)
                and OS (the process). --json prints the daemon's status object as it is.
                """
        }
        package init() {}
    }

    /// `reminders`: the phone app's run reminders.
    package struct Reminders: ControlCommand {
        package typealias Reply = RemindersReply
        package static let spec = ControlCommandSpec(Self.self, "reminders", [.phone], "the run reminders")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["reminders"]) { _, _ in
            """
            The inactivity reminders: 7, 14, 21 and 28 days after the last run's start (past stages skipped;
            if all are past, one at now + 7 days), or with phone-daemon --reminders legacy RunWay 1.3.1's single
            one at last run + 7 days (nothing if that is past). Shows the last run, then each pending and
            delivered reminder.
            """
        }
        package init() {}
    }

    /// `reminders-reschedule`: the run reminders scheduled again, as opening the app does.
    package struct RemindersReschedule: ControlCommand {
        package typealias Reply = RemindersReply
        package static let spec = ControlCommandSpec(
            Self.self, "reminders-reschedule", [.phone], "reschedule the run reminders, as opening the app does")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["reminders", "reschedule"]) { _, _ in
            """
            Reschedules the inactivity reminders now, as opening the app does (all-past stages then move to
            the phone's now + 7 days), and shows the result. With no runs it removes them all.
            """
        }
        package init() {}
    }

    /// `link`: the watch's link to the phone, cut or restored (watch-os keeps it while the app sleeps).
    package struct Link: ControlCommand {
        package typealias Reply = LinkReply
        @Argument(.choice(["up", "down"]), "the link's state") package var state: String
        package static let spec = ControlCommandSpec(
            Self.self, "link", [.watch, .watchOS], errors: [appHoldsTheLink],
            "cut or restore the link to the phone (under watch-os, kept while the app sleeps and across its launches)")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .link,
            [
                .top(["link", "down"], .watch, alias: true, sets: ["state": .string("down")]) { _, _ in
                    "Takes the watch out of range: the link drops and stays down; transfers keep queueing on the watch, nothing is lost."
                },
                .top(["link", "up"], .watch, alias: true, sets: ["state": .string("up")]) { _, _ in
                    "Brings the watch back in range: it reconnects to the phone and the queued transfers flow again."
                },
            ], repliesInJSON: false)
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
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .devices,
            ["on", "off"].map { state in
                .device(["complication", state], on: .watch, sets: ["state": .string(state)]) { _, _ in
                    "Puts the watch app's complication \(state == "on" ? "on the active watch face" : "off the watch face"). The phone sees it at once in isComplicationEnabled (and sessionWatchStateDidChange); while it is off the phone's remainingComplicationUserInfoTransfers is 0."
                }
            })
        package init() {}
    }

    /// `switch-watch`: another paired watch made the active one, by the app's session or, while the app
    /// is not running, by phone-os.
    package struct SwitchWatch: ControlCommand {
        package typealias Reply = SwitchWatchReply
        @Argument(
            .string(bytes: 1...4096), "the watch to make active: its device id, or its home as runway pair was given it", cli: .positional("WATCH"))
        package var watch: String
        package static let spec = ControlCommandSpec(
            Self.self, "switch-watch", [.phone, .phoneOS],
            errors: [
                .invalid("no watch by that device id or home is paired with this phone (7005 deviceNotPaired)"),
                .failure("a switch is already under way (7016 sessionInactive); phone-os: the app is suspended or starting"),
            ],
            "make a paired watch the active one: the session goes inactive, delivers what the old watch sent, then deactivates; the app activates again")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.devices, [.device(["switch-watch"], on: .phone, switchHelp)])
        static let switchHelp: @Sendable (String, String) -> String = { _, _ in
            """
            Makes WATCH — a watch home, the name of a registered pair, or a watch's device id — the phone's
            active watch. It must be paired with the phone (runway pair adds watches; one is active at a time).
            While the phone's app runs, its session goes inactive (sessionDidBecomeInactive), delivers what the
            old watch had already sent, closes the old watch's link and then deactivates (sessionDidDeactivate);
            the app activates again to talk to the new watch. What was queued for the old watch stays queued for
            it and goes when it is active again. Under phone-os with the app not running, the OS changes it and
            the app learns it at its next launch. The watch already active: nothing happens, and it says so. A
            watch not paired with the phone: one line, exit 2.
            """
        }
        package init() {}
    }
}
