import Posix
import Connectivity
import Control
import JSONText
import RunWayDomain

/// `runway phone language [set ko|en|ja|system]`, `runway phone settings`, `runway phone strings`: the
/// app's language (APP_SPEC G). The app has no language screen; `language set` stands in for the
/// system's Settings › RunWay › Language.
enum LanguageCommands {
    static let show = CLI.Command(
        path: ["phone", "language"],
        synopsis: "--home P [--json]",
        summary: """
            The phone app's language: the supported ones (ko, en, ja; ko is the development region), the
            per-app setting (none: follow the system), the system's preferred languages (LANGUAGE, then
            LC_ALL, LC_MESSAGES, LANG of the phone-daemon's environment) and the effective language — the
            per-app setting, else the first supported system language, else ko. The watch follows it.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try CLI.client(parsed, .phone).send(ControlCommands.Language())
            Output.out(parsed.has("json") ? result.json.text : render(result))
            return 0
        })

    static let set = CLI.Command(
        path: ["phone", "language", "set"],
        synopsis: "ko|en|ja|system --home P [--json]",
        summary: """
            Sets the phone app's language, as the system's Settings › RunWay › Language does (system: follow
            the system's languages again). Kept as system state across restarts, and applied like the
            system's relaunch of the app: its texts switch, the pending reminders get their texts rewritten
            in the new language with the same ids and fire dates, and the watch is told through the
            application context. Anything but ko, en, ja or system is invalid input (exit 2), changing nothing.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 1,
        run: { parsed in
            guard let name = parsed.positionals.first else { throw UsageError("a language is required: ko, en, ja or system") }
            guard name == "system" || AppLanguage(rawValue: name) != nil else {
                throw ControlError.invalid(
                    "\(OneLine.quote(name)) is not a language RunWay offers; supported: \(AppLanguage.codes.joined(separator: ", ")), or system")
            }
            let result = try CLI.client(parsed, .phone).send(
                ControlCommands.LanguageSet { $0.language = name })
            if parsed.has("json") { Output.out(result.json.text); return 0 }
            let rewritten = result.rewrittenReminders?.count ?? 0
            Output.out(
                render(result) + "\n"
                    + (result.changed == true
                        ? "the app was relaunched in \(result.effective); \(rewritten) pending reminder(s) rewritten"
                        : "unchanged"))
            return 0
        })

    static let settings = CLI.Command(
        path: ["phone", "settings"],
        synopsis: "--home P [--json]",
        summary: """
            The app's settings rows, titled in the app's language. The Language row ("언어", "Language",
            "言語") opens the system's setting — runway phone language set — and nothing inside the app.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try CLI.client(parsed, .phone).send(ControlCommands.Settings())
            if parsed.has("json") { Output.out(result.json.text); return 0 }
            let rows = result.rows.map { row in "  \(row.title)  \(row.value)  → \(row.opens)" }
            Output.out((["settings (\(result.language))"] + rows).joined(separator: "\n"))
            return 0
        })

    static let strings = CLI.Command(
        path: ["phone", "strings"],
        synopsis: "--home P [--json]",
        summary: "Every user-visible text of the app, by key, in the app's effective language (the catalogue).",
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try CLI.client(parsed, .phone).send(ControlCommands.Strings())
            if parsed.has("json") { Output.out(result.json.text); return 0 }
            let lines = result.strings.keys.sorted().map { "  \($0)  \(result.strings[$0] ?? "")" }
            Output.out((["strings (\(result.language))"] + lines).joined(separator: "\n"))
            return 0
        })

    static let all = [show, set, settings, strings]

    static func render(_ result: LanguageReply) -> String {
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
}
