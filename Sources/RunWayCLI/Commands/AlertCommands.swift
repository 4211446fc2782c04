import Connectivity
import Control
import JSONText
import Posix
import RunWayDomain

/// `runway phone alerts`: the Alerts view (1.3, #15), month → day, with remembered toggles (#16).
enum AlertCommands {
    static let alerts = CLI.Command(
        path: ["phone", "alerts"],
        synopsis: "--home P [--expand all|YYYY-MM[,...]] [--toggle YYYY-MM] [--reset-groups] [--json]",
        summary: """
            The Alerts view: every GPWS alert (SINK RATE, OVERSPEED) of the stored flights, grouped by month, then
            by day, newest first, in local time (TZ). A month the user toggled (--toggle, remembered by the phone)
            keeps its state; one never touched is expanded only if it is the newest; --expand shows more for one
            call; --reset-groups forgets the toggles. With --json, a flat array in arrival order: id, flightId,
            runId, at (UTC), type, mode, value, target.
            """,
        specs: [CLI.homeSpec, PhoneCommands.expandSpec, GroupToggles.toggleSpec, GroupToggles.resetSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let expansion = try LogbookText.Expansion.parse(parsed.value("expand"))
            let toggle = try GroupToggles.toggleKey(parsed)
            let calendar = LogbookCalendar.current()
            let client = try CLI.client(parsed, .phone)
            let alerts = try client.send(ControlCommands.Alerts()).value.arrayValue ?? []
            let months = AlertGrouping.group(alerts, calendar: calendar, at: at)
            let remembered = try GroupToggles.apply(parsed, client: client, view: .alerts, toggle: toggle, newest: months.first?.key)
            if parsed.has("json") {
                Output.out(JSONValue.array(alerts).text)
            } else {
                Output.out(render(months, total: alerts.count, calendar: calendar, expansion: expansion, remembered: remembered))
            }
            return 0
        })

    static func at(_ alert: JSONValue) -> Double { alert["at"]?.stringValue.flatMap(Timestamp.parseISO8601) ?? 0 }

    static func render(
        _ months: [AlertGrouping.AlertMonthGroup<JSONValue>], total: Int, calendar: LogbookCalendar,
        expansion: LogbookText.Expansion, remembered: [String: Bool]
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
            ? "heart rate \(Format.heartRate(value)) (zone \(target))"
            : "pace \(Format.pace(value)) (target \(target))"
        return
            "\(Format.pad(minute / 60)):\(Format.pad(minute % 60))  \(alert["type"]?.stringValue ?? "")  \(reading)  flight \(alert["flightId"]?.stringValue ?? "")"
    }
}

/// `--toggle YYYY-MM` and `--reset-groups`, the same for the Logbook and the Alerts view (#16).
enum GroupToggles {
    static let toggleSpec = ArgumentSpec.option("toggle", "YYYY-MM", "expand or collapse that month, and have the phone remember it")
    static let resetSpec = ArgumentSpec.flag("reset-groups", "forget every remembered toggle (back to: only the newest month expanded)")

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
        if parsed.has("reset-groups") {
            _ = try client.send(ControlCommands.GroupsReset { $0.view = name })
        }
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
}
