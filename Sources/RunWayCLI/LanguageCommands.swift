import Posix
import Connectivity
import Control
import JSONText
import RunWayApp

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
            let result = try CLI.client(parsed, .phone).send(ControlRequest(ControlCommands.language))
            Output.out(parsed.has("json") ? result.text : render(result))
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
            let result = try CLI.client(parsed, .phone).send(ControlCommands.languageSet.request { $0[ControlCommands.LanguageSet.language] = name })
            if parsed.has("json") { Output.out(result.text); return 0 }
            let rewritten = result["rewrittenReminders"]?.arrayValue?.count ?? 0
            Output.out(
                render(result) + "\n"
                    + (result["changed"]?.boolValue == true
                        ? "the app was relaunched in \(result["effective"]?.stringValue ?? "?"); \(rewritten) pending reminder(s) rewritten"
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
            let result = try CLI.client(parsed, .phone).send(ControlRequest(ControlCommands.settings))
            if parsed.has("json") { Output.out(result.text); return 0 }
            let rows = (result["rows"]?.arrayValue ?? []).map { row in
                "  \(row["title"]?.stringValue ?? "?")  \(row["value"]?.stringValue ?? "")  → \(row["opens"]?.stringValue ?? "")"
            }
            Output.out((["settings (\(result["language"]?.stringValue ?? "?"))"] + rows).joined(separator: "\n"))
            return 0
        })

    static let strings = CLI.Command(
        path: ["phone", "strings"],
        synopsis: "--home P [--json]",
        summary: "Every user-visible text of the app, by key, in the app's effective language (the catalogue).",
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try CLI.client(parsed, .phone).send(ControlRequest(ControlCommands.strings))
            if parsed.has("json") { Output.out(result.text); return 0 }
            let table = result["strings"]?.objectValue ?? [:]
            let lines = table.keys.sorted().map { "  \($0)  \(table[$0]?.stringValue ?? "")" }
            Output.out((["strings (\(result["language"]?.stringValue ?? "?"))"] + lines).joined(separator: "\n"))
            return 0
        })

    static let all = [show, set, settings, strings]

    static func render(_ result: JSONValue) -> String {
        let system = (result["systemLanguages"]?.arrayValue ?? []).compactMap(\.stringValue)
        return """
            effective     \(result["effective"]?.stringValue ?? "?") (from \(result["source"]?.stringValue ?? "?"))
            app setting   \(result["appLanguage"]?.stringValue ?? "none (follows the system)")
            system        \(system.isEmpty ? "none" : system.joined(separator: ", "))
            supported     \((result["supported"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")) (development region \(result["developmentRegion"]?.stringValue ?? "?"))
            """
    }

    /// One text of the app in its effective language, asked of the phone, which owns the language.
    static func text(_ key: TextKey, client: ControlClient) throws -> String {
        let result = try client.send(ControlRequest(ControlCommands.strings))
        return result["strings"]?[key.rawValue]?.stringValue ?? AppTexts.text(key, .developmentRegion)
    }
}
