// MARK: - The phone app's settings (Settings › RunWay): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let appSettingsCommands: [any ControlCommand.Type] = [Language.self, LanguageSet.self, Strings.self, Settings.self]

    /// `language`: the app's language setting.
    package enum Language: ControlCommand {
        package typealias Reply = LanguageReply
        package static let spec = ControlCommandSpec(Self.self, "language", [.phone], "the app's language setting")
    }

    /// `language-set`: Settings › RunWay › Language.
    package enum LanguageSet: ControlCommand {
        package typealias Reply = LanguageReply
        package static let language = ControlArgument<String>(
            "language", .choice(["ko", "en", "ja", "system"]), required: true, "the app's language, or system to follow the system's")
        package static let spec = ControlCommandSpec(Self.self, "language-set", [.phone], arguments: [language], "set the app's language")
    }

    /// `strings`: the app's texts in its effective language.
    package enum Strings: ControlCommand {
        package typealias Reply = StringsReply
        package static let spec = ControlCommandSpec(Self.self, "strings", [.phone], "the app's texts in its effective language")
    }

    /// `settings`: Settings › RunWay, as the system's Settings app shows it.
    package enum Settings: ControlCommand {
        package typealias Reply = SettingsReply
        package static let spec = ControlCommandSpec(Self.self, "settings", [.phone], "Settings › RunWay")
    }
}
