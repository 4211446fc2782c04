import Posix

// MARK: - The phone's logbook, its alerts, its home screen and its pre-flight row: each command one type (`ControlCommand`)

extension ControlCommands {
    /// The options of the grouped views (`runway phone logbook`, `alerts`, `ui`): the CLI's own, read by their output.
    package static let expandOption = ArgumentSpec.option("expand", "WHAT", "all, or the months to expand besides the newest (2026-10,2026-09)")
    package static let toggleOption = ArgumentSpec.option("toggle", "YYYY-MM", "expand or collapse that month, and have the phone remember it")
    package static let resetGroupsOption = ArgumentSpec.flag(
        "reset-groups", "forget every remembered toggle (back to: only the newest month expanded)")
    package static let firstWeekdayOption = ArgumentSpec.option(
        "first-weekday", "DAY", "the day weeks start on (sun, mon, ..., sat); default: the locale's")

    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let logbookCommands: [any ControlCommand.Type] = [Logbook.self, Flight.self, Attach.self, Alerts.self, Delete.self, Preflight.self]

    /// `logbook`: every stored flight, streamed a page at a time. Its reply is JSON (`JSONReply`): an
    /// array written straight from the store, in bounded memory, which a reply type would hold whole.
    package struct Logbook: ControlCommand {
        package typealias Reply = JSONReply
        package static let spec = ControlCommandSpec(Self.self, "logbook", [.phone], "every stored flight, streamed")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway, ["logbook"], options: [expandOption, toggleOption, resetGroupsOption, firstWeekdayOption],
            synopsis: "HOME [--expand all|YYYY-MM[,...]] [--toggle YYYY-MM] [--reset-groups] [--first-weekday DAY] [--json]"
        ) { _, _ in
            """
            The Logbook: every flight stored on the phone, grouped by month, then by week, newest first, in
            local time (TZ). A month the user toggled (--toggle, remembered by the phone; --reset-groups forgets)
            keeps its state; one never touched is expanded only if it is the newest; older months are one line
            each (flights, distance) unless --expand names them. Weeks start on the locale's first day (LC_ALL, LC_TIME or LANG, after
            CLDR: en_US, ko_KR, ja_JP Sunday; en_GB, de_DE Monday; C/POSIX Monday) or on --first-weekday.
            With --json, a flat JSON array in arrival order, each flight with id, arrival, startedAt, endedAt
            (ISO 8601, UTC), distanceKm, durationSeconds, averagePaceSecondsPerKm, averageHeartRate and mode.
            """
        }
        package init() {}
    }

    /// `flight`: one flight with its analysis. Its reply is JSON (`JSONReply`), written from the flight's
    /// one declaration (`Flight.fields`).
    package struct Flight: ControlCommand {
        package typealias Reply = JSONReply
        @Argument(.format(.flightID), "the flight's id", cli: .positional("ID")) package var id: String
        package static let spec = ControlCommandSpec(
            Self.self, "flight", [.phone], errors: [.failure("no flight has that id")], "one flight with its analysis")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway, ["flight"],
            options: [.flag("no-charts", "the summary without the pictures"), .flag("ascii", "ASCII pictures, not braille and block characters")]
        ) { _, _ in
            """
            The Flight Summary of one stored flight: distance, duration, pace, heart rate, splits — then pace and
            heart rate over the run as charts (braille; --ascii or a locale that is not UTF-8: ASCII) and the
            splits as bars. --no-charts leaves the pictures out.
            """
        }
        package init() {}
    }

    /// `attach`: the connection becomes the app's UI: it answers, then sends events until it closes.
    package struct Attach: ControlCommand {
        package typealias Reply = AttachReply
        package static let spec = ControlCommandSpec(Self.self, "attach", [.phone], "become the app's UI: events until the connection closes")
        /// `runway phone ui`: the home screen, attached until Ctrl-C (no `--json`: its output never ends).
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway, ["ui"], options: [expandOption, firstWeekdayOption], repliesInJSON: false,
            synopsis: "HOME [--expand all|YYYY-MM[,...]] [--first-weekday DAY]"
        ) { _, _ in
            """
            Attaches to the phone like its home screen: shows the Logbook, then each flight as it is saved
            (and each notification as it is delivered: "notification: BODY", a relaunch in another
            language: "app relaunched (language-changed): language ja", each change of the Pre-flight
            APPLE WATCH row: "watch: APPLE WATCH READY", and an update alert as a box ending with its buttons in
            the app's language, [업데이트] [나중에] in ko);
            attaching reschedules the inactivity reminders and runs the update check (at most once a day), as
            opening the app does. It stays until Ctrl-C or the phone goes. On a terminal it is a screen redrawn in
            place (the alternate screen, given back on exit): a header (the APPLE WATCH row, reachability, flights
            stored), the Logbook, and a pane of the latest events; otherwise the lines above, one per event.
            Attaching drains any flights the app was holding for a UI (all of them in --save-path ui-drain;
            saving never waits for this in the default path).
            """
        }
        package init() {}
    }

    /// `alerts`: the alerts of every flight. Its reply is JSON (`JSONReply`): `FlightAlert`'s `--json`
    /// form, from its one declaration.
    package struct Alerts: ControlCommand {
        package typealias Reply = JSONReply
        package static let spec = ControlCommandSpec(Self.self, "alerts", [.phone], "the alerts of every flight")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway, ["alerts"], options: [expandOption, toggleOption, resetGroupsOption],
            synopsis: "HOME [--expand all|YYYY-MM[,...]] [--toggle YYYY-MM] [--reset-groups] [--json]"
        ) { _, _ in
            """
            The Alerts view: every GPWS alert (SINK RATE, OVERSPEED) of the stored flights, grouped by month, then
            by day, newest first, in local time (TZ). A month the user toggled (--toggle, remembered by the phone)
            keeps its state; one never touched is expanded only if it is the newest; --expand shows more for one
            call; --reset-groups forgets the toggles. With --json, a flat array in arrival order: id, flightId,
            runId, at (UTC), type, mode, value, target.
            """
        }
        package init() {}
    }

    /// `delete`: delete a flight (the reminders are rescheduled).
    package struct Delete: ControlCommand {
        package typealias Reply = DeleteReply
        @Argument(.format(.flightID), "the flight's id", cli: .positional("ID")) package var id: String
        package static let spec = ControlCommandSpec(Self.self, "delete", [.phone], errors: [.failure("no flight has that id")], "delete a flight")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway, ["delete"], options: [.flag("yes", "do not ask for confirmation")], repliesInJSON: false
        ) { _, _ in
            """
            Deletes a stored past flight, after a confirmation on the terminal, asked in the app's language
            (--yes skips it; without a terminal --yes is required). An unknown id changes nothing.
            """
        }
        package init() {}
    }

    /// `preflight`: the pre-flight screen's Apple Watch row.
    package struct Preflight: ControlCommand {
        package typealias Reply = PreflightReply
        @Argument(.bool, "RunWay 1.3.1's row (reachability)", cli: .option(help: "RunWay 1.3.1's row (reachability) and its own heart-rate rule"))
        package var legacy = false
        package static let spec = ControlCommandSpec(Self.self, "preflight", [.phone], "the pre-flight Apple Watch row")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["preflight"]) { _, _ in
            """
            The Pre-flight check (RunWay 1.3.2): the APPLE WATCH row — NOT PAIRED, APP NOT INSTALLED or READY;
            CHECKING while the session is still activating — and HEART RATE MODE, available exactly when the
            row is ok. Reachability is not consulted. With --legacy, RunWay 1.3.1's row: CONNECTED or NOT
            CONNECTED from reachability, with no activation guard (NOT PAIRED while activating). A VERSION line
            shows when the watch app's version differs from the phone app's.
            """
        }
        package init() {}
    }
}
