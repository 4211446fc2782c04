import Control
import Posix
import RunWayDomain

// MARK: - RunWay's own app: its language, settings, texts and reminders

extension Render {
    static let runWayApp: [Render] = [
        .of(ControlCommands.Language.self) { reply, _, _ in RunWayText.language(reply) },
        .of(ControlCommands.LanguageSet.self) { reply, _, _ in
            RunWayText.language(reply) + "\n"
                + (reply.changed == true
                    ? "the app was relaunched in \(reply.effective); \(reply.rewrittenReminders?.count ?? 0) pending reminder(s) rewritten" : "unchanged")
        },
        .of(ControlCommands.Settings.self) { reply, _, _ in
            (["settings (\(reply.language))"] + reply.rows.map { "  \($0.title)  \($0.value)  → \($0.opens)" }).joined(separator: "\n")
        },
        .of(ControlCommands.Strings.self) { reply, _, _ in
            (["strings (\(reply.language))"] + reply.strings.keys.sorted().map { "  \($0)  \(reply.strings[$0] ?? "")" }).joined(separator: "\n")
        },
        .of(ControlCommands.Reminders.self) { reply, _, _ in RunWayText.reminders(reply) },
        .of(ControlCommands.RemindersReschedule.self) { reply, _, _ in RunWayText.reminders(reply) },
    ]
}

enum RunWayText {
    static func language(_ result: LanguageReply) -> String {
        """
        effective     \(result.effective) (from \(result.source))
        app setting   \(result.appLanguage ?? "none (follows the system)")
        system        \(result.systemLanguages.isEmpty ? "none" : result.systemLanguages.joined(separator: ", "))
        supported     \(result.supported.joined(separator: ", ")) (development region \(result.developmentRegion))
        """
    }

    /// One text of the app in its effective language, asked of the phone, which owns the language.
    static func text(_ key: TextKey, client: DeviceClient) throws -> String {
        let result = try client.send(ControlCommands.Strings())
        return result.strings[key.rawValue] ?? AppTexts.text(key, .developmentRegion)
    }

    static func reminders(_ result: RemindersReply) -> String {
        let rule =
            result.rule == "legacy" ? "legacy: one reminder 7 days after the last run, none if that is past" : "7, 14, 21, 28 days after the last run"
        var lines = ["inactivity reminders (rule: \(rule))"]
        guard let last = result.lastRunAt.flatMap(Timestamp.parseISO8601) else { return (lines + ["no runs yet: nothing scheduled"]).joined(separator: "\n") }
        lines.append("last run  " + NotificationText.minutes(last))
        lines += result.pending.map { "pending   " + NotificationText.line($0, at: $0.fireAt) }
        lines += result.delivered.map { "delivered " + NotificationText.line($0, at: $0.deliveredAt) }
        return lines.joined(separator: "\n")
    }
}
