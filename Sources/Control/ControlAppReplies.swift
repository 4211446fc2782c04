import JSONText

// MARK: - RunWay's phone app: its language, its texts, its settings (APP_SPEC G)

/// `language`, `language-set`: the app's language — the per-app setting (null: follow the system), the
/// system's languages, the effective one and where it came from. `language-set` adds whether it changed
/// (the app was relaunched) and the pending reminders whose texts were rewritten.
public struct LanguageReply: ControlReply {
    public var supported: [String]
    public var developmentRegion: String
    @NullIfNil public var appLanguage: String?
    public var systemLanguages: [String]
    public var effective: String
    /// `app`, `system` or `developmentRegion`.
    public var source: String
    public var changed: Bool?
    public var rewrittenReminders: [String]?

    public init(supported: [String], developmentRegion: String, appLanguage: String?, systemLanguages: [String], effective: String, source: String) {
        self.supported = supported
        self.developmentRegion = developmentRegion
        self.appLanguage = appLanguage
        self.systemLanguages = systemLanguages
        self.effective = effective
        self.source = source
    }
}

/// `strings`: every text of the app, by key, in its effective language.
public struct StringsReply: ControlReply {
    public var language: String
    public var strings: [String: String]
    public init(language: String, strings: [String: String]) {
        self.language = language
        self.strings = strings
    }
}

/// `settings`: Settings › RunWay, its rows titled in the app's language.
public struct SettingsReply: ControlReply {
    public struct Row: Codable, Sendable, Equatable {
        public var key: String
        public var title: String
        public var value: String
        /// What the row opens (the language row: the system's setting).
        public var opens: String
        public init(key: String, title: String, value: String, opens: String) {
            self.key = key
            self.title = title
            self.value = value
            self.opens = opens
        }
    }
    public var language: String
    public var rows: [Row]
    public init(language: String, rows: [Row]) {
        self.language = language
        self.rows = rows
    }
}

// MARK: - The pre-flight check

/// `preflight`: the APPLE WATCH row and HEART RATE MODE, what they were decided from, and the versions.
public struct PreflightReply: ControlReply {
    public struct Row: Codable, Sendable, Equatable {
        /// `READY`, `NOT PAIRED`, `APP NOT INSTALLED`, `CHECKING`; legacy `CONNECTED`, `NOT CONNECTED`.
        public var label: String
        public var ok: Bool
        public init(label: String, ok: Bool) {
            self.label = label
            self.ok = ok
        }
    }
    public struct HeartRateMode: Codable, Sendable, Equatable {
        public var available: Bool
        public init(available: Bool) { self.available = available }
    }
    public var appleWatch: Row
    public var heartRateMode: HeartRateMode
    public var paired: Bool
    public var watchAppInstalled: Bool
    public var reachable: Bool
    public var activationState: String
    /// `current` or `legacy`.
    public var rule: String
    public var appVersion: String
    /// Null until the watch has said it.
    @NullIfNil public var watchAppVersion: String?
    @NullIfNil public var versionMismatch: Bool?
    /// When the versions differ: what the watch's screen says, in the app's language.
    public var watchSentence: String?

    public init(
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
public struct AppStoreReply: ControlReply {
    @NullIfNil public var answer: String?
    /// `answer` or `network`.
    public var mode: String
    public var delayMs: Int64
    public var lookups: Int64
    @NullIfNil public var lastURL: String?
    public init(answer: String?, mode: String, delayMs: Int64, lookups: Int64, lastURL: String?) {
        self.answer = answer
        self.mode = mode
        self.delayMs = delayMs
        self.lookups = lookups
        self.lastURL = lastURL
    }
}

/// `update-check`: what the check decided (`skipped-today`, `failed`, `not-newer`, `update`, …), the
/// store's version (null: none read), and why it failed (`reason`, only then).
public struct UpdateCheckReply: ControlReply {
    public var outcome: String
    @NullIfNil public var store: String?
    public var installed: String
    /// ISO 8601; null: never.
    @NullIfNil public var lastCheckedAt: String?
    public var reason: String?
    public init(outcome: String, store: String?, installed: String, lastCheckedAt: String?, reason: String? = nil) {
        self.outcome = outcome
        self.store = store
        self.installed = installed
        self.lastCheckedAt = lastCheckedAt
        self.reason = reason
    }
}

/// The update alert, as `update-status` shows it and as every attached UI gets it (`updateAvailable`).
public struct UpdateAlert: ControlRecord {
    /// `updateAvailable`.
    public var event: String
    public var version: String
    /// The store's trackViewUrl, as it came.
    public var storeURL: String
    public var title: String
    public var message: String
    /// The words `update-respond` takes (`update`, `later`), and their titles in the app's language.
    public var buttons: [String]
    public var buttonTitles: [String]
    public var language: String
    public init(version: String, storeURL: String, title: String, message: String, buttons: [String], buttonTitles: [String], language: String) {
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
public struct UpdateStatusReply: ControlReply {
    public var installed: String
    @NullIfNil public var lastCheckedAt: String?
    @NullIfNil public var alert: UpdateAlert?
    public var checking: Bool
    public var running: Bool
    public init(installed: String, lastCheckedAt: String?, alert: UpdateAlert?, checking: Bool, running: Bool) {
        self.installed = installed
        self.lastCheckedAt = lastCheckedAt
        self.alert = alert
        self.checking = checking
        self.running = running
    }
}

/// `update-respond`: the answer, and for `update` the store's URL opened.
public struct UpdateRespondReply: ControlReply {
    /// `update` or `later`.
    public var response: String
    public var opened: String?
    public init(response: String, opened: String? = nil) {
        self.response = response
        self.opened = opened
    }
}
