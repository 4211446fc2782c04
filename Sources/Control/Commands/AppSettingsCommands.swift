// MARK: - The phone app's settings (Settings › RunWay): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let appSettingsCommands: [any ControlCommand.Type] = [Language.self, LanguageSet.self, Strings.self, Settings.self]

    /// `language`: the app's language setting.
    package struct Language: ControlCommand {
        package typealias Reply = LanguageReply
        package static let spec = ControlCommandSpec(Self.self, "language", [.phone], "the app's language setting")
        package init() {}
    }

    /// `language-set`: Settings › RunWay › Language.
    package struct LanguageSet: ControlCommand {
        package typealias Reply = LanguageReply
        @Argument(.choice(["ko", "en", "ja", "system"]), "the app's language, or system to follow the system's") package var language: String
        package static let spec = ControlCommandSpec(Self.self, "language-set", [.phone], "set the app's language")
        package init() {}
    }

    /// `strings`: the app's texts in its effective language.
    package struct Strings: ControlCommand {
        package typealias Reply = StringsReply
        package static let spec = ControlCommandSpec(Self.self, "strings", [.phone], "the app's texts in its effective language")
        package init() {}
    }

    /// `settings`: Settings › RunWay, as the system's Settings app shows it.
    package struct Settings: ControlCommand {
        package typealias Reply = SettingsReply
        package static let spec = ControlCommandSpec(Self.self, "settings", [.phone], "Settings › RunWay")
        package init() {}
    }
}
