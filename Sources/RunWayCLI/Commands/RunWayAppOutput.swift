import Connectivity
import Control
import JSONText
import Posix
import RunWayDomain

// MARK: - RunWay's own app: its language, settings, texts and reminders

extension ControlCommands.Language: CLIOutput {
    static func render(_ reply: LanguageReply, of command: Self, _ context: DerivedCLI.Context) -> String { RunWayText.language(reply) }
}

extension ControlCommands.LanguageSet: CLIOutput {
    static func render(_ reply: LanguageReply, of command: Self, _ context: DerivedCLI.Context) -> String {
        let rewritten = reply.rewrittenReminders?.count ?? 0
        return RunWayText.language(reply) + "\n"
            + (reply.changed == true ? "the app was relaunched in \(reply.effective); \(rewritten) pending reminder(s) rewritten" : "unchanged")
    }
}

extension ControlCommands.Settings: CLIOutput {
    static func render(_ reply: SettingsReply, of command: Self, _ context: DerivedCLI.Context) -> String {
        (["settings (\(reply.language))"] + reply.rows.map { "  \($0.title)  \($0.value)  → \($0.opens)" }).joined(separator: "\n")
    }
}

extension ControlCommands.Strings: CLIOutput {
    static func render(_ reply: StringsReply, of command: Self, _ context: DerivedCLI.Context) -> String {
        (["strings (\(reply.language))"] + reply.strings.keys.sorted().map { "  \($0)  \(reply.strings[$0] ?? "")" }).joined(separator: "\n")
    }
}

extension ControlCommands.Reminders: CLIOutput {
    static func render(_ reply: RemindersReply, of command: Self, _ context: DerivedCLI.Context) -> String { RunWayText.reminders(reply) }
}

extension ControlCommands.RemindersReschedule: CLIOutput {
    static func render(_ reply: RemindersReply, of command: Self, _ context: DerivedCLI.Context) -> String { RunWayText.reminders(reply) }
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
