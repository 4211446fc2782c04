import Posix

// MARK: - The phone app's settings (Settings › RunWay): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let appSettingsCommands: [any ControlCommand.Type] = [Language.self, LanguageSet.self, Strings.self, Settings.self]

    /// `language`: the app's language setting.
    package struct Language: ControlCommand {
        package typealias Reply = LanguageReply
        package static let spec = ControlCommandSpec(Self.self, "language", [.phone], "the app's language setting")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["language"]) { _, _ in
            """
            The phone app's language: the supported ones (ko, en, ja; ko is the development region), the
            per-app setting (none: follow the system), the system's preferred languages (LANGUAGE, then
            LC_ALL, LC_MESSAGES, LANG of the phone-daemon's environment) and the effective language — the
            per-app setting, else the first supported system language, else ko. The watch follows it.
            """
        }
        package init() {}
    }

    /// `language-set`: Settings › RunWay › Language.
    package struct LanguageSet: ControlCommand {
        package typealias Reply = LanguageReply
        @Argument(
            .choice(["ko", "en", "ja", "system"]), "the app's language, or system to follow the system's",
            cli: .positional("ko|en|ja|system") { "\(OneLine.quote($0)) is not a language RunWay offers; supported: ko, en, ja, or system" })
        package var language: String
        package static let spec = ControlCommandSpec(Self.self, "language-set", [.phone], "set the app's language")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["language", "set"]) { _, _ in
            """
            Sets the phone app's language, as the system's Settings › RunWay › Language does (system: follow
            the system's languages again). Kept as system state across restarts, and applied like the
            system's relaunch of the app: its texts switch, the pending reminders get their texts rewritten
            in the new language with the same ids and fire dates, and the watch is told through the
            application context. Anything but ko, en, ja or system is invalid input (exit 2), changing nothing.
            """
        }
        package init() {}
    }

    /// `strings`: the app's texts in its effective language.
    package struct Strings: ControlCommand {
        package typealias Reply = StringsReply
        package static let spec = ControlCommandSpec(Self.self, "strings", [.phone], "the app's texts in its effective language")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["strings"]) { _, _ in
            "Every user-visible text of the app, by key, in the app's effective language (the catalogue)."
        }
        package init() {}
    }

    /// `settings`: Settings › RunWay, as the system's Settings app shows it.
    package struct Settings: ControlCommand {
        package typealias Reply = SettingsReply
        package static let spec = ControlCommandSpec(Self.self, "settings", [.phone], "Settings › RunWay")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["settings"]) { _, _ in
            """
            The app's settings rows, titled in the app's language. The Language row ("언어", "Language",
            "言語") opens the system's setting — runway phone language set — and nothing inside the app.
            """
        }
        package init() {}
    }
}
