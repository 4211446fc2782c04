import Control
import JSONText
import Posix
import RunWayDomain

// MARK: - RunWay's phone app: the Logbook, a flight, its alerts, deleting one, the home screen

/// `runway phone logbook`: month → week, with remembered toggles (#16); `--json` streamed straight through.
extension ControlCommands.Logbook: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let parsed = context.parsed
        let expansion = try LogbookText.Expansion.parse(parsed.value("expand"))
        let toggle = try GroupToggles.toggleKey(parsed)
        let calendar = try GroupToggles.calendar(parsed)
        let client = try context.client()
        if context.json && toggle == nil {
            _ = try GroupToggles.apply(parsed, client: client, view: .logbook, toggle: nil, newest: nil)
            // Straight through: the daemon streams the JSON text, we copy it to stdout.
            try client.send(command.request) { Output.writeBytes(1, $0) }
            Output.writeBytes(1, [0x0A])
            return 0
        }
        let flights = try client.send(command).value.arrayValue ?? []
        let newest = LogbookText.monthKeys(flights, calendar: calendar).first
        let remembered = try GroupToggles.apply(parsed, client: client, view: .logbook, toggle: toggle, newest: newest)
        Output.out(
            context.json ? JSONValue.array(flights).text : LogbookText.render(flights, calendar: calendar, expansion: expansion, remembered: remembered))
        return 0
    }
}

extension Render {
    /// The Flight Summary, its charts, and, a past flight from the Logbook, the way to delete it (#25, #26).
    static let logbook: [Render] = [
        .of(ControlCommands.Flight.self) { reply, command, context in
            let charts =
                context.parsed.has("no-charts")
                ? []
                : FlightCharts.render(
                    reply.value, style: Terminal.glyphStyle(ascii: context.parsed.has("ascii")), width: Terminal.isTerminal ? Terminal.size().columns : 80)
            return ([FlightSummaryText.render(reply.value, calendar: .current())] + charts).joined(separator: "\n")
                + "\n  delete: runway phone delete \(reply.value["id"]?.stringValue ?? command.id)"
        }
    ]
}

/// `runway phone alerts`: the Alerts view (1.3, #15), month → day, with remembered toggles (#16).
extension ControlCommands.Alerts: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let parsed = context.parsed
        let expansion = try LogbookText.Expansion.parse(parsed.value("expand"))
        let toggle = try GroupToggles.toggleKey(parsed)
        let calendar = LogbookCalendar.current()
        let client = try context.client()
        let alerts = try client.send(command).value.arrayValue ?? []
        let months = AlertGrouping.group(alerts, calendar: calendar, at: AlertText.at)
        let remembered = try GroupToggles.apply(parsed, client: client, view: .alerts, toggle: toggle, newest: months.first?.key)
        Output.out(
            context.json
                ? JSONValue.array(alerts).text
                : AlertText.render(months, total: alerts.count, calendar: calendar, expansion: expansion, remembered: remembered))
        return 0
    }
}

/// `runway phone delete ID`: after a confirmation on the terminal, asked in the app's language (#27).
extension ControlCommands.Delete: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let client = try context.client()
        if !context.parsed.has("yes") {
            guard isatty(0) == 1 else { throw UsageError("refusing to delete without confirmation: stdin is not a terminal (add --yes)") }
            let summary = try client.send(ControlCommands.Flight { $0.id = command.id }).value
            // The question is the app's, in the app's language (#27); the flight line and [y/N] are the CLI's.
            let question = try RunWayText.text(.deleteConfirm, client: client)
            Output.write(1, "\(question)\n\(LogbookText.line(summary, calendar: .current()))\n[y/N] ")
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                Output.out("not deleted")
                return 1
            }
        }
        _ = try client.send(command)
        Output.out("deleted \(command.id.uppercased())")
        return 0
    }
}

/// `runway phone ui`: attaches like the home screen; on a terminal, the phone's screen redrawn in place
/// (docs/views.md), otherwise a line per event.
extension ControlCommands.Attach: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let parsed = context.parsed
        let expansion = try LogbookText.Expansion.parse(parsed.value("expand"))
        let calendar = try GroupToggles.calendar(parsed)
        restoreDefaultSignals([SIGINT, SIGTERM])
        // Attach first, then list: a flight saved in between is in the listing and also comes as an
        // event, and its arrival number tells which it is. Nothing falls between the two.
        let client = try context.client()
        let attached = try client.send(command)
        let flights = try context.client().send(ControlCommands.Logbook()).value.arrayValue ?? []
        var shownUpTo = flights.compactMap { $0["arrival"]?.intValue }.max() ?? 0
        let remembered = try context.client().send(ControlCommands.Groups { $0.view = "logbook" }).remembered
        let logbook = LogbookText.render(flights, calendar: calendar, expansion: expansion, remembered: remembered)
        let drained = Int(attached.drained)
        if Terminal.isTerminal {
            return try PhoneScreen(
                client: client, home: try CLI.homePath(parsed, .phone), logbook: logbook, drained: drained, calendar: calendar, shownUpTo: shownUpTo,
                stored: flights.count, status: try context.client().send(ControlCommands.Status()),
                preflight: try context.client().send(ControlCommands.Preflight())
            ).run()
        }
        Output.out(logbook)
        if drained > 0 { Output.out("(the home screen saved \(drained) flight(s) that were waiting for it)") }
        Output.out("-- attached; new flights appear below (Ctrl-C to leave) --")
        while let event = try client.nextEvent() {
            if let line = PhoneEvents.line(event, calendar: calendar, shownUpTo: &shownUpTo) { Output.out(line) }
        }
        Output.out("-- the phone closed the connection --")
        return 0
    }
}

/// What `phone ui` shows of one event from the phone, or nil for one it does not show (a flight the
/// listing already had: its arrival number is not above the listing's).
enum PhoneEvents {
    static func line(_ event: JSONValue, calendar: LogbookCalendar, shownUpTo: inout Int) -> String? {
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
            if event["versionMismatch"]?.boolValue == true { line += " version-mismatch watch=\(event["watchAppVersion"]?.stringValue ?? "?")" }
            return line
        case "updateAvailable":
            return UpdateText.alertBox(event)
        default:
            return nil
        }
    }
}

enum AlertText {
    static func at(_ alert: JSONValue) -> Double { alert["at"]?.stringValue.flatMap(Timestamp.parseISO8601) ?? 0 }

    static func render(
        _ months: [AlertGrouping.AlertMonthGroup<JSONValue>], total: Int, calendar: LogbookCalendar, expansion: LogbookText.Expansion,
        remembered: [String: Bool]
    ) -> String {
        guard total > 0 else { return "No alerts." }
        var lines = ["Alerts: \(total) (local time)"]
        for (index, month) in months.enumerated() {
            let expanded = expansion.expands(month.key, isNewest: index == 0, remembered: remembered)
            let name = "\(month.key) \(LogbookText.monthNames[month.month - 1]) \(month.year)"
            lines.append("\(expanded ? "[-]" : "[+]") \(name)  \(month.count == 1 ? "1 alert" : "\(month.count) alerts")")
            guard expanded else { continue }
            for day in month.days {
                lines.append("    \(day.date.weekday) \(day.date)")
                for alert in day.entries { lines.append("      " + line(alert, calendar: calendar)) }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `07:42  SINK RATE  heart rate 118 bpm (zone 140-160)  flight ID`
    static func line(_ alert: JSONValue, calendar: LogbookCalendar) -> String {
        let minute = calendar.localTime(of: at(alert)).minute
        let value = alert["value"]?.doubleValue ?? 0, target = alert["target"]?.stringValue ?? ""
        let reading =
            alert["mode"]?.stringValue == FlightMode.heartRate.rawValue
            ? "heart rate \(Format.heartRate(value)) (zone \(target))" : "pace \(Format.pace(value)) (target \(target))"
        return
            "\(Format.pad(minute / 60)):\(Format.pad(minute % 60))  \(alert["type"]?.stringValue ?? "")  \(reading)  flight \(alert["flightId"]?.stringValue ?? "")"
    }
}

/// `--toggle YYYY-MM`, `--reset-groups` and `--first-weekday`, the same for the Logbook and the Alerts view (#16).
enum GroupToggles {
    /// The month in `--toggle`, checked before anything changes (exit 2).
    static func toggleKey(_ parsed: ParsedArguments) throws(UsageError) -> String? {
        guard let key = parsed.value("toggle") else { return nil }
        guard GroupExpansion.isMonthKey(key) else { throw UsageError("--toggle takes a month like 2026-11, not \(OneLine.quote(key))") }
        return key
    }

    /// Forgets (`--reset-groups`), then flips `toggle` from the state it shows now; returns what the phone
    /// remembers afterwards.
    static func apply(_ parsed: ParsedArguments, client: DeviceClient, view: GroupExpansion.View, toggle: String?, newest: String?) throws -> [String: Bool] {
        let name = view.rawValue
        if parsed.has("reset-groups") { _ = try client.send(ControlCommands.GroupsReset { $0.view = name }) }
        var remembered = try client.send(ControlCommands.Groups { $0.view = name }).remembered
        if let toggle {
            let now = GroupExpansion.isExpanded(toggle, isNewest: toggle == newest, remembered: remembered)
            _ = try client.send(
                ControlCommands.GroupSet {
                    $0.view = name
                    $0.key = toggle
                    $0.expanded = !now
                })
            remembered[toggle] = !now
        }
        return remembered
    }

    static func calendar(_ parsed: ParsedArguments) throws(UsageError) -> LogbookCalendar {
        guard let name = parsed.value("first-weekday") else { return .current() }
        guard let day = Weekday(shortName: name) else {
            throw UsageError("--first-weekday must be one of sun, mon, tue, wed, thu, fri, sat, not \(OneLine.quote(name))")
        }
        return .current(firstWeekday: day)
    }
}
