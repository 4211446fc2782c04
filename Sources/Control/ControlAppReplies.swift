import JSONText

// MARK: - RunWay's phone app: its language, its texts, its settings (APP_SPEC G)

/// `language`, `language-set`: the app's language — the per-app setting (null: follow the system), the
/// system's languages, the effective one and where it came from. `language-set` adds whether it changed
/// (the app was relaunched) and the pending reminders whose texts were rewritten.
package struct LanguageReply: ControlReply {
    package var supported: [String]
    package var developmentRegion: String
    @NullIfNil package var appLanguage: String?
    package var systemLanguages: [String]
    package var effective: String
    /// `app`, `system` or `developmentRegion`.
    package var source: String
    package var changed: Bool?
    package var rewrittenReminders: [String]?

    package init(supported: [String], developmentRegion: String, appLanguage: String?, systemLanguages: [String], effective: String, source: String) {
        self.supported = supported
        self.developmentRegion = developmentRegion
        self.appLanguage = appLanguage
        self.systemLanguages = systemLanguages
        self.effective = effective
        self.source = source
    }
}

/// `strings`: every text of the app, by key, in its effective language.
package struct StringsReply: ControlReply {
    package var language: String
    package var strings: [String: String]
    package init(language: String, strings: [String: String]) {
        self.language = language
        self.strings = strings
    }
}

/// `settings`: Settings › RunWay, its rows titled in the app's language.
package struct SettingsReply: ControlReply {
    package struct Row: Codable, Sendable, Equatable {
        package var key: String
        package var title: String
        package var value: String
        /// What the row opens (the language row: the system's setting).
        package var opens: String
        package init(key: String, title: String, value: String, opens: String) {
            self.key = key
            self.title = title
            self.value = value
            self.opens = opens
        }
    }
    package var language: String
    package var rows: [Row]
    package init(language: String, rows: [Row]) {
        self.language = language
        self.rows = rows
    }
}

// MARK: - The pre-flight check

/// `preflight`: the APPLE WATCH row and HEART RATE MODE, what they were decided from, and the versions.
package struct PreflightReply: ControlReply {
    package struct Row: Codable, Sendable, Equatable {
        /// `READY`, `NOT PAIRED`, `APP NOT INSTALLED`, `CHECKING`; legacy `CONNECTED`, `NOT CONNECTED`.
        package var label: String
        package var ok: Bool
        package init(label: String, ok: Bool) {
            self.label = label
            self.ok = ok
        }
    }
    package struct HeartRateMode: Codable, Sendable, Equatable {
        package var available: Bool
        package init(available: Bool) { self.available = available }
    }
    package var appleWatch: Row
    package var heartRateMode: HeartRateMode
    package var paired: Bool
    package var watchAppInstalled: Bool
    package var reachable: Bool
    package var activationState: String
    /// `current` or `legacy`.
    package var rule: String
    package var appVersion: String
    /// Null until the watch has said it.
    @NullIfNil package var watchAppVersion: String?
    @NullIfNil package var versionMismatch: Bool?
    /// When the versions differ: what the watch's screen says, in the app's language.
    package var watchSentence: String?

    package init(
        appleWatch: Row, heartRateMode: HeartRateMode, paired: Bool, watchAppInstalled: Bool, reachable: Bool, activationState: String, rule: String,
        appVersion: String, watchAppVersion: String?, versionMismatch: Bool?, watchSentence: String? = nil
    ) {
        self.appleWatch = appleWatch
        self.heartRateMode = heartRateMode
        self.paired = paired
        self.watchAppInstalled = watchAppInstalled
        self.reachable = reachable
        self.activationState = activationState
        self.rule = rule
        self.appVersion = appVersion
        self.watchAppVersion = watchAppVersion
        self.versionMismatch = versionMismatch
        self.watchSentence = watchSentence
    }
}

// MARK: - The simulated App Store and the update notice (RunWay 1.4, APP_SPEC F)

/// `appstore-set`, `appstore-fail`, `appstore-show`: what the App Store lookup answers (null: it fails,
/// `mode` network), after how long, the lookups made and the last URL asked (null: none yet).
package struct AppStoreReply: ControlReply {
    @NullIfNil package var answer: String?
    /// `answer` or `network`.
    package var mode: String
    package var delayMs: Int64
    package var lookups: Int64
    @NullIfNil package var lastURL: String?
    package init(answer: String?, mode: String, delayMs: Int64, lookups: Int64, lastURL: String?) {
        self.answer = answer
        self.mode = mode
        self.delayMs = delayMs
        self.lookups = lookups
        self.lastURL = lastURL
    }
}

/// `update-check`: what the check decided (`skipped-today`, `failed`, `not-newer`, `update`, …), the
/// store's version (null: none read), and why it failed (`reason`, only then).
package struct UpdateCheckReply: ControlReply {
    package var outcome: String
    @NullIfNil package var store: String?
    package var installed: String
    /// ISO 8601; null: never.
    @NullIfNil package var lastCheckedAt: String?
    package var reason: String?
    package init(outcome: String, store: String?, installed: String, lastCheckedAt: String?, reason: String? = nil) {
        self.outcome = outcome
        self.store = store
        self.installed = installed
        self.lastCheckedAt = lastCheckedAt
        self.reason = reason
    }
}

/// The update alert, as `update-status` shows it and as every attached UI gets it (`updateAvailable`).
package struct UpdateAlert: ControlRecord {
    /// `updateAvailable`.
    package var event: String
    package var version: String
    /// The store's trackViewUrl, as it came.
    package var storeURL: String
    package var title: String
    package var message: String
    /// The words `update-respond` takes (`update`, `later`), and their titles in the app's language.
    package var buttons: [String]
    package var buttonTitles: [String]
    package var language: String
    package init(version: String, storeURL: String, title: String, message: String, buttons: [String], buttonTitles: [String], language: String) {
        self.event = "updateAvailable"
        self.version = version
        self.storeURL = storeURL
        self.title = title
        self.message = message
        self.buttons = buttons
        self.buttonTitles = buttonTitles
        self.language = language
    }
}

/// `update-status`: the installed version, the last successful check, the alert showing (null: none).
package struct UpdateStatusReply: ControlReply {
    package var installed: String
    @NullIfNil package var lastCheckedAt: String?
    @NullIfNil package var alert: UpdateAlert?
    package var checking: Bool
    package var running: Bool
    package init(installed: String, lastCheckedAt: String?, alert: UpdateAlert?, checking: Bool, running: Bool) {
        self.installed = installed
        self.lastCheckedAt = lastCheckedAt
        self.alert = alert
        self.checking = checking
        self.running = running
    }
}

/// `update-respond`: the answer, and for `update` the store's URL opened.
package struct UpdateRespondReply: ControlReply {
    /// `update` or `later`.
    package var response: String
    package var opened: String?
    package init(response: String, opened: String? = nil) {
        self.response = response
        self.opened = opened
    }
}
