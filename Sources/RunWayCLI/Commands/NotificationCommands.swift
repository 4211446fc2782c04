import Connectivity
import Control
import JSONText
import Posix

/// `runway phone notifications` and `runway phone reminders [reschedule]`.
enum NotificationCommands {
    static let notifications = notifications(.phone)

    /// `runway phone notifications`, `runway watch notifications`: the device's notification centre, kept by
    /// its OS whether the app runs or not.
    static func notifications(_ device: DeviceRole) -> CLI.Command {
        let (name, home) = device == .phone ? ("phone", "P") : ("watch", "W")
        return CLI.Command(
            path: [name, "notifications"],
            synopsis: "--home \(home) [--json]",
            summary: """
                The \(name)'s notification centre: pending requests (at most 64) by fire date, and the delivered
                ones (the last 1000) in delivery order, in local time (TZ). Delivery happens when the \(name)'s clock
                reaches a fire date (runway clock), with deliveredAt = fireAt even if the \(name) was down then.
                """,
            specs: [CLI.homeSpec, CLI.jsonSpec],
            positionals: 0,
            run: { parsed in
                let result = try CLI.client(parsed, device).send(NotificationRequest.List())
                if parsed.has("json") { Output.out(result.json.text); return 0 }
                var lines = ["pending (\(result.pending.count) of at most \(result.pendingLimit))"]
                lines += result.pending.map { "  " + NotificationText.line($0, at: $0.fireAt) }
                lines.append("delivered (\(result.delivered.count))")
                lines += result.delivered.map { "  " + NotificationText.line($0, at: $0.deliveredAt) }
                Output.out(lines.joined(separator: "\n"))
                return 0
            })
    }

    /// `runway phone notifications open ID`, `runway watch notifications open ID`: the user opens a delivered
    /// notification.
    static func open(_ device: DeviceRole) -> CLI.Command {
        let (name, home) = device == .phone ? ("phone", "P") : ("watch", "W")
        return CLI.Command(
            path: [name, "notifications", "open"],
            synopsis: "ID --home \(home) [--json]",
            summary: """
                The user opens (taps) the delivered notification ID: it leaves the delivered list, the \(name)'s app
                comes to the foreground (launched if it is not running), and its UNUserNotificationCenterDelegate
                hears userNotificationCenter(_:didReceive:withCompletionHandler:) with the default action
                (UNNotificationDefaultActionIdentifier). Exit 1 if no delivered notification has that id.
                """,
            specs: [CLI.homeSpec, CLI.jsonSpec],
            positionals: 1,
            run: { parsed in
                guard let id = parsed.positionals.first else {
                    throw UsageError("the ID of a delivered notification is required (runway \(name) notifications lists them)")
                }
                let result = try CLI.client(parsed, device).send(
                    NotificationRequest.Open { $0.id = id })
                Output.out(parsed.has("json") ? result.json.text : "opened \(result.opened): the app hears \(result.actionIdentifier)")
                return 0
            })
    }

    static let reminders = CLI.Command(
        path: ["phone", "reminders"],
        synopsis: "--home P [--json]",
        summary: """
            The inactivity reminders: 7, 14, 21 and 28 days after the last run's start (past stages skipped;
            if all are past, one at now + 7 days), or with phone-daemon --reminders legacy RunWay 1.3.1's single
            one at last run + 7 days (nothing if that is past). Shows the last run, then each pending and
            delivered reminder.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            render(try CLI.client(parsed, .phone).send(ControlCommands.Reminders()), json: parsed.has("json"))
        })

    static let reschedule = CLI.Command(
        path: ["phone", "reminders", "reschedule"],
        synopsis: "--home P [--json]",
        summary: """
            Reschedules the inactivity reminders now, as opening the app does (all-past stages then move to
            the phone's now + 7 days), and shows the result. With no runs it removes them all.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            render(
                try CLI.client(parsed, .phone).send(ControlCommands.RemindersReschedule()), json: parsed.has("json"))
        })

    static func render(_ result: RemindersReply, json: Bool) -> Int32 {
        if json { Output.out(result.json.text); return 0 }
        let rule =
            result.rule == "legacy"
            ? "legacy: one reminder 7 days after the last run, none if that is past"
            : "7, 14, 21, 28 days after the last run"
        var lines = ["inactivity reminders (rule: \(rule))"]
        guard let last = result.lastRunAt.flatMap(Timestamp.parseISO8601) else {
            lines.append("no runs yet: nothing scheduled")
            Output.out(lines.joined(separator: "\n"))
            return 0
        }
        lines.append("last run  " + NotificationText.minutes(last))
        lines += result.pending.map { "pending   " + NotificationText.line($0, at: $0.fireAt) }
        lines += result.delivered.map { "delivered " + NotificationText.line($0, at: $0.deliveredAt) }
        Output.out(lines.joined(separator: "\n"))
        return 0
    }
}

enum NotificationText {
    /// `2026-10-08 16:00  runway.reminder.7d  일주일째 …`
    static func line(_ item: NotificationItem, at date: String?) -> String {
        "\(date.flatMap(Timestamp.parseISO8601).map(minutes) ?? "?")  \(item.id)  \(item.body)"
    }

    /// `2026-10-08 16:00` in local time.
    static func minutes(_ seconds: Double) -> String { String(TimeText.localDateTime(seconds).prefix(16)) }
}
