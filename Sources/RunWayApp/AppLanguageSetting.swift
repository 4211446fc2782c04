import Control
import JSONText
import Storage
import UserNotifications
import RunWayDomain

/// Which language the app speaks, and why (APP_SPEC G.1): the per-app setting if there is one, else
/// the first of the system's preferred languages that the app supports, else the development region.
public struct LanguageResolution: Equatable, Sendable {
    /// The per-app setting (iOS Settings › RunWay › Language); nil: follow the system.
    public var appLanguage: AppLanguage?
    /// The system's preferred languages, most preferred first: each entry of `LANGUAGE` (a colon
    /// list), then `LC_ALL`, `LC_MESSAGES`, `LANG`; unset or empty ones left out, the codeset and
    /// modifier dropped (`en_US.UTF-8` → `en_US`).
    public var systemLanguages: [String]
    public var effective: AppLanguage
    /// `app` (the per-app setting), `system` (one of the system's languages) or `developmentRegion`.
    public var source: String

    /// The environment variables read, in order of preference.
    public static let environmentNames = ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"]

    public init(appLanguage: AppLanguage?, environment: [String: String]) {
        self.appLanguage = appLanguage
        systemLanguages = Self.systemLanguages(environment: environment)
        if let appLanguage {
            effective = appLanguage
            source = "app"
        } else if let supported = systemLanguages.lazy.compactMap(Self.supported(_:)).first {
            effective = supported
            source = "system"
        } else {
            effective = AppLanguage.developmentRegion
            source = "developmentRegion"
        }
    }

    /// The preferred languages the environment names, in order (`C` and `POSIX` included: they are
    /// simply not supported).
    public static func systemLanguages(environment: [String: String]) -> [String] {
        var result: [String] = []
        for name in environmentNames {
            guard let value = environment[name], !value.isEmpty else { continue }
            let entries = name == "LANGUAGE" ? value.split(separator: ":").map(String.init) : [value]
            for entry in entries {
                let locale = entry.split(separator: ".", maxSplits: 1).first.map { String($0.split(separator: "@").first ?? $0) } ?? ""
                if !locale.isEmpty { result.append(locale) }
            }
        }
        return result
    }

    /// The app's language for a locale name, by its language subtag (`ja_JP` → ja, `en-GB` → en,
    /// `fr_FR` → nil, `C` → nil).
    public static func supported(_ locale: String) -> AppLanguage? {
        let language = locale.split(whereSeparator: { $0 == "_" || $0 == "-" }).first.map { $0.lowercased() } ?? ""
        return AppLanguage(rawValue: language)
    }

    /// As `language` answers it.
    public var reply: LanguageReply {
        LanguageReply(
            supported: AppLanguage.codes, developmentRegion: AppLanguage.developmentRegion.rawValue, appLanguage: appLanguage?.rawValue,
            systemLanguages: systemLanguages, effective: effective.rawValue, source: source)
    }
}

/// The per-app language, as iOS keeps it: system state in `app_settings` (key `appLanguage`, a JSON
/// string), beside the device clock; absent when the app follows the system.
public enum AppLanguageSetting {
    public static func load(_ database: Database) throws -> AppLanguage? {
        let query = try database.statement(literal: "SELECT value FROM app_settings WHERE key = 'appLanguage'")
        defer { query.reset() }
        guard try query.step(), let value = try? JSONValue(parsing: Array(query.string(at: 0).utf8)) else { return nil }
        return value.stringValue.flatMap(AppLanguage.init(rawValue:))
    }

    /// Stores `language`, or removes the setting (`nil`: follow the system). Joins the caller's
    /// transaction, if one is open.
    public static func save(_ language: AppLanguage?, _ database: Database) throws {
        if let language {
            let upsert = try database.statement(
                literal: """
                    INSERT INTO app_settings (key, value) VALUES ('appLanguage', ?)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """)
            try upsert.bind(JSONValue.string(language.rawValue).text, at: 1)
            try upsert.run()
        } else {
            try database.execute("DELETE FROM app_settings WHERE key = 'appLanguage'")
        }
    }
}

// MARK: - Rebuilding what was written in the old language

extension RunReminderService {
    /// Rewrites the pending reminders' title and body in `language`, keeping each one's id and fire
    /// date: iOS stores a notification's content as it was when scheduled, so a language change must
    /// write it again — and must not reschedule, which could move the basis. Returns the ids rewritten.
    @discardableResult
    public func rewritePendingTexts(in language: AppLanguage) -> [String] {
        self.language = language.rawValue
        var rewritten: [String] = []
        for request in pendingReminders() {
            let title = ReminderTexts.title(language: language.rawValue)
            let elapsedDays = Self.elapsedDays(ofIdentifier: request.identifier)
            let body = ReminderTexts.body(elapsedDays: elapsedDays, language: language.rawValue)
            guard
                request.content.title != title || request.content.body != body
                    || (request.content.userInfo["language"] as? String) != language.rawValue
            else { continue }
            center.add(self.request(Planned(id: request.identifier, fireAt: Self.fireAt(of: request), elapsedDays: elapsedDays)))
            rewritten.append(request.identifier)
        }
        return rewritten
    }

    /// The stage an id stands for (`runway.reminder.14d` → 14; the old single reminder's id → 7).
    public static func elapsedDays(ofIdentifier id: String) -> Int {
        stages.first { identifier(elapsedDays: $0) == id } ?? 7
    }
}
