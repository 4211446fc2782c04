import Connectivity
import Control
import JSONText
import Posix
import RunWayDomain

/// `runway phone ...`
enum PhoneCommands {
    static let status = CLI.Command(
        path: ["phone", "status"],
        synopsis: "--home P [--json]",
        summary: """
            The phone's state in sections: SESSION (activation, pairing, the two devices), LINK (connected,
            reachable), OUTBOX (what the phone sends), INBOX (what it received, quarantined, failed commits), APP
            (versions, flights stored, save path, UIs, reminders) and OS (the process; under phone-os also the
            app's state, launches by reason, declined launches, reclaims, budget). --json prints the daemon's
            status object as it is.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try CLI.client(parsed, .phone).send(ControlCommands.Status()).json
            if parsed.has("json") {
                Output.out(result.text)
                return 0
            }
            // Under phone-os, the OS section says what the phone's iOS does with the app.
            let os = try? PhoneOSCommands.client(parsed).send(ControlCommands.OSStatus())
            Output.out(DeviceStatusText.render(result, os: os))
            return 0
        })

    static let logbook = CLI.Command(
        path: ["phone", "logbook"],
        synopsis: "--home P [--expand all|YYYY-MM[,...]] [--toggle YYYY-MM] [--reset-groups] [--first-weekday DAY] [--json]",
        summary: """
            The Logbook: every flight stored on the phone, grouped by month, then by week, newest first, in
            local time (TZ). A month the user toggled (--toggle, remembered by the phone; --reset-groups forgets)
            keeps its state; one never touched is expanded only if it is the newest; older months are one line
            each (flights, distance) unless --expand names them. Weeks start on the locale's first day (LC_ALL, LC_TIME or LANG, after
            CLDR: en_US, ko_KR, ja_JP Sunday; en_GB, de_DE Monday; C/POSIX Monday) or on --first-weekday.
            With --json, a flat JSON array in arrival order, each flight with id, arrival, startedAt, endedAt
            (ISO 8601, UTC), distanceKm, durationSeconds, averagePaceSecondsPerKm, averageHeartRate and mode.
            """,
        specs: [CLI.homeSpec, expandSpec, GroupToggles.toggleSpec, GroupToggles.resetSpec, firstWeekdaySpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let expansion = try LogbookText.Expansion.parse(parsed.value("expand"))
            let toggle = try GroupToggles.toggleKey(parsed)
            let calendar = try calendar(parsed)
            let client = try CLI.client(parsed, .phone)
            if parsed.has("json") && toggle == nil {
                _ = try GroupToggles.apply(parsed, client: client, view: .logbook, toggle: nil, newest: nil)
                // Straight through: the daemon streams the JSON text, we copy it to stdout.
                try client.send(ControlCommands.Logbook().request) { Output.writeBytes(1, $0) }
                Output.writeBytes(1, [0x0A])
                return 0
            }
            let flights = try client.send(ControlCommands.Logbook()).value.arrayValue ?? []
            let remembered = try GroupToggles.apply(
                parsed, client: client, view: .logbook, toggle: toggle,
                newest: LogbookText.monthKeys(flights, calendar: calendar).first)
            Output.out(
                parsed.has("json")
                    ? JSONValue.array(flights).text
                    : LogbookText.render(flights, calendar: calendar, expansion: expansion, remembered: remembered))
            return 0
        })

    static let flight = CLI.Command(
        path: ["phone", "flight"],
        synopsis: "ID --home P [--no-charts] [--ascii] [--json]",
        summary: """
            The Flight Summary of one stored flight: distance, duration, pace, heart rate, splits — then pace and
            heart rate over the run as charts (braille; --ascii or a locale that is not UTF-8: ASCII) and the
            splits as bars. --no-charts leaves the pictures out.
            """,
        specs: [CLI.homeSpec, .flag("no-charts", "the summary without the pictures"), Terminal.asciiSpec, CLI.jsonSpec],
        positionals: 1,
        run: { parsed in
            guard let id = parsed.positionals.first else { throw UsageError("a flight ID is required") }
            let result = try CLI.client(parsed, .phone).send(ControlCommands.Flight { $0.id = id }).value
            let charts =
                parsed.has("no-charts")
                ? []
                : FlightCharts.render(
                    result, style: Terminal.glyphStyle(ascii: parsed.has("ascii")), width: Terminal.isTerminal ? Terminal.size().columns : 80)
            // A past flight, from the Logbook: its summary ends with the way to delete it (#25, #26).
            Output.out(
                parsed.has("json")
                    ? result.text
                    : ([FlightSummaryText.render(result, calendar: .current())] + charts).joined(separator: "\n")
                        + "\n  delete: runway phone delete \(result["id"]?.stringValue ?? id)")
            return 0
        })

    static let delete = CLI.Command(
        path: ["phone", "delete"],
        synopsis: "ID --home P [--yes]",
        summary: """
            Deletes a stored past flight, after a confirmation on the terminal, asked in the app's language
            (--yes skips it; without a terminal --yes is required). An unknown id changes nothing.
            """,
        specs: [CLI.homeSpec, .flag("yes", "do not ask for confirmation")],
        positionals: 1,
        run: { parsed in
            guard let id = parsed.positionals.first else { throw UsageError("a flight ID is required") }
            let client = try CLI.client(parsed, .phone)
            if !parsed.has("yes") {
                guard isatty(0) == 1 else {
                    throw UsageError("refusing to delete without confirmation: stdin is not a terminal (add --yes)")
                }
                let summary = try client.send(ControlCommands.Flight { $0.id = id }).value
                // The question is the app's, in the app's language (#27); the flight line and [y/N] are the CLI's.
                let question = try LanguageCommands.text(.deleteConfirm, client: client)
                Output.write(1, "\(question)\n\(FlightSummaryText.headline(summary, calendar: .current()))\n[y/N] ")
                guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                    Output.out("not deleted")
                    return 1
                }
            }
            _ = try client.send(ControlCommands.Delete { $0.id = id })
            Output.out("deleted \(id.uppercased())")
            return 0
        })

    static let ui = CLI.Command(
        path: ["phone", "ui"],
        synopsis: "--home P [--expand all|YYYY-MM[,...]] [--first-weekday DAY]",
        summary: """
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
            """,
        specs: [CLI.homeSpec, expandSpec, firstWeekdaySpec],
        positionals: 0,
        run: { parsed in
            let expansion = try LogbookText.Expansion.parse(parsed.value("expand"))
            let calendar = try calendar(parsed)
            restoreDefaultSignals([SIGINT, SIGTERM])
            // Attach first, then list: a flight saved in between is in the listing and also comes as an
            // event, and its arrival number tells which it is. Nothing falls between the two.
            let client = try CLI.client(parsed, .phone)
            let attached = try client.send(ControlCommands.Attach())
            let flights = try CLI.client(parsed, .phone).send(ControlCommands.Logbook()).value.arrayValue ?? []
            var shownUpTo = flights.compactMap { $0["arrival"]?.intValue }.max() ?? 0
            let remembered = try CLI.client(parsed, .phone).send(
                ControlCommands.Groups { $0.view = "logbook" }
            ).remembered
            let logbook = LogbookText.render(flights, calendar: calendar, expansion: expansion, remembered: remembered)
            let drained = Int(attached.drained)
            // On a terminal: the phone's screen, redrawn in place (docs/views.md). Otherwise a line per event.
            if Terminal.isTerminal {
                return try PhoneScreen(
                    client: client, home: try CLI.homePath(parsed, .phone), logbook: logbook, drained: drained,
                    calendar: calendar, shownUpTo: shownUpTo, stored: flights.count,
                    status: try CLI.client(parsed, .phone).send(ControlCommands.Status()),
                    preflight: try CLI.client(parsed, .phone).send(ControlCommands.Preflight())
                ).run()
            }
            Output.out(logbook)
            if drained > 0 {
                Output.out("(the home screen saved \(drained) flight(s) that were waiting for it)")
            }
            Output.out("-- attached; new flights appear below (Ctrl-C to leave) --")
            while let event = try client.nextEvent() {
                if let line = eventLine(event, calendar: calendar, shownUpTo: &shownUpTo) { Output.out(line) }
            }
            Output.out("-- the phone closed the connection --")
            return 0
        })

    /// What `phone ui` shows of one event from the phone, or nil for one it does not show (a flight the
    /// listing already had: its arrival number is not above the listing's).
    static func eventLine(_ event: JSONValue, calendar: LogbookCalendar, shownUpTo: inout Int) -> String? {
        switch event["event"]?.stringValue {
        case "flightSaved":
            guard let flight = event["flight"], let arrival = flight["arrival"]?.intValue, arrival > shownUpTo else { return nil }
            shownUpTo = arrival
            return "saved: " + LogbookText.line(flight, calendar: calendar)
        case "notificationDelivered":
            return "notification: \(event["body"]?.stringValue ?? "")"
        case "appRelaunched":
            return "app relaunched (\(event["reason"]?.stringValue ?? "?")): language \(event["language"]?.stringValue ?? "?")"
        case "mirroring":
            return "mirroring: \(event["state"]?.stringValue ?? "?") run \(event["runId"]?.stringValue ?? "?")"
                + (event["failureReason"]?.stringValue.map { " (\($0))" } ?? "")
        case "watchState":
            var line = "watch: APPLE WATCH \(event["appleWatch"]?["label"]?.stringValue ?? "?")"
            line += " reachable=\(event["reachable"]?.boolValue ?? false)"
            if event["versionMismatch"]?.boolValue == true {
                line += " version-mismatch watch=\(event["watchAppVersion"]?.stringValue ?? "?")"
            }
            return line
        case "updateAvailable":
            return BeforeRunCommands.alertBox(event)
        default:
            return nil
        }
    }

    // MARK: - Shared options

    static let expandSpec = ArgumentSpec.option("expand", "WHAT", "all, or the months to expand besides the newest (2026-10,2026-09)")
    static let firstWeekdaySpec = ArgumentSpec.option("first-weekday", "DAY", "the day weeks start on (sun, mon, ..., sat); default: the locale's")

    static func calendar(_ parsed: ParsedArguments) throws(UsageError) -> LogbookCalendar {
        guard let name = parsed.value("first-weekday") else { return .current() }
        guard let day = Weekday(shortName: name) else {
            throw UsageError("--first-weekday must be one of sun, mon, tue, wed, thu, fri, sat, not \(OneLine.quote(name))")
        }
        return .current(firstWeekday: day)
    }
}
