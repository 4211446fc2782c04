/// The app's languages (RunWay 1.4, seed 002): `CFBundleLocalizations` = ko, en, ja, and
/// `CFBundleDevelopmentRegion` = ko, the fallback when none of the user's languages is supported.
public enum AppLanguage: String, CaseIterable, Sendable {
    case ko, en, ja

    /// `CFBundleDevelopmentRegion`.
    public static let developmentRegion: AppLanguage = .ko

    /// The codes in declaration order, for messages and JSON (`ko, en, ja`).
    public static var codes: [String] { allCases.map(\.rawValue) }
}

/// Every user-visible text of the app, one key each (APP_SPEC G.3).
///
/// Structural CLI output — help, headings, labels, GPWS call-outs — is English by choice and is not here.
public enum TextKey: String, CaseIterable, Sendable {
    case reminder7d = "reminder.7d"
    case reminder14d = "reminder.14d"
    case reminder21d = "reminder.21d"
    case reminder28d = "reminder.28d"
    /// The update alert (issue 13): title, message (`{version}` is the store's version), the watch
    /// sentence of seed #61, and the two buttons.
    case updateTitle = "update.title"
    case updateMessage = "update.message"
    case updateWatch = "update.watch"
    case updateButtonUpdate = "update.button.update"
    case updateButtonLater = "update.button.later"
    /// The question before a past flight is deleted (#27).
    case deleteConfirm = "delete.confirm"
    /// The settings row that sends the user to the system's Settings › RunWay › Language (#49).
    case settingsLanguage = "settings.language"

    /// The reminder stage's key (7, 14, 21, 28 days after the last run; anything else is the 28-day one).
    public static func reminder(elapsedDays: Int) -> TextKey {
        switch elapsedDays {
        case 7: .reminder7d
        case 14: .reminder14d
        case 21: .reminder21d
        default: .reminder28d
        }
    }

    public static let reminders: [TextKey] = [.reminder7d, .reminder14d, .reminder21d, .reminder28d]

    /// Placeholders the text must carry in every language (filled by `AppTexts.text(_:_:filling:)`).
    public var placeholders: [String] { self == .updateMessage ? ["{version}"] : [] }
}

/// The catalogue: a Swift table of literals, because `String(localized:)` and `.lproj` lookup through
/// Foundation's `Bundle` are not there on Linux without Foundation, and because the seed's String
/// Catalog lesson (#36) is that only a literal written out in the source is a translation anyone can see.
///
/// One exhaustive `switch` per key over `AppLanguage`: a key without a language, or a fourth language
/// without its texts, does not compile. `CatalogueTests` checks what the compiler cannot — no empty
/// entry, each language in its own script, the placeholders everywhere, four different reminder texts.
///
/// Korean marked *seed* is quoted from the seeds; every other text is this simulator's proposal
/// (APP_SPEC G.3 and section 4, "Texts").
public enum AppTexts {
    public static func text(_ key: TextKey, _ language: AppLanguage) -> String {
        switch key {
        case .reminder7d:
            switch language {
            case .ko: "일주일째 활주로가 비어있어요. 오늘 다시 이륙해볼까요?"  // seed
            case .en: "Your runway has been empty for a week. Ready to take off again today?"
            case .ja: "滑走路が空いたまま1週間が経ちました。今日、もう一度離陸してみませんか？"
            }
        case .reminder14d:
            switch language {
            case .ko: "2주째 활주로가 비어있어요. 가볍게 한 번 이륙해볼까요?"
            case .en: "Two weeks of an empty runway. How about a short take-off today?"
            case .ja: "滑走路が空いたまま2週間です。今日は軽く離陸してみませんか？"
            }
        case .reminder21d:
            switch language {
            case .ko: "3주째 활주로가 비어있어요. 관제탑이 이륙 허가를 기다리고 있어요."
            case .en: "Three weeks of an empty runway. The tower is waiting to clear you for take-off."
            case .ja: "滑走路が空いたまま3週間です。管制塔が離陸許可を出そうと待っています。"
            }
        case .reminder28d:
            switch language {
            case .ko: "한 달째 활주로가 비어있어요. 오늘 다시 관제탑에 불을 켜볼까요?"  // seed
            case .en: "Your runway has been empty for a month. Shall we switch the tower lights back on today?"
            case .ja: "滑走路が空いたまま1か月です。今日、管制塔にもう一度明かりを灯しませんか？"
            }
        case .updateTitle:
            switch language {
            case .ko: "새 버전이 나왔어요"
            case .en: "A new version is available"
            case .ja: "新しいバージョンがあります"
            }
        case .updateMessage:
            switch language {
            case .ko: "RunWay {version} 버전이 App Store에 올라왔어요."
            case .en: "RunWay {version} is available on the App Store."
            case .ja: "RunWay {version}がApp Storeで公開されています。"
            }
        case .updateWatch:
            switch language {
            case .ko: "Apple Watch 앱도 같이 업데이트해주세요. 두 앱의 버전이 다르면 기기 사이 동작이 어긋날 수 있어요."  // seed #61
            case .en: "Please update the Apple Watch app too. If the two apps' versions differ, the devices may not work together correctly."
            case .ja: "Apple Watchアプリも一緒にアップデートしてください。2つのアプリのバージョンが異なると、デバイス間の動作がずれることがあります。"
            }
        case .updateButtonUpdate:
            switch language {
            case .ko: "업데이트"
            case .en: "Update"
            case .ja: "アップデート"
            }
        case .updateButtonLater:
            switch language {
            case .ko: "나중에"
            case .en: "Later"
            case .ja: "後で"
            }
        case .deleteConfirm:
            switch language {
            case .ko: "이 러닝 기록을 삭제할까요?"  // seed #27
            case .en: "Delete this run?"
            case .ja: "このランの記録を削除しますか？"
            }
        case .settingsLanguage:
            switch language {
            case .ko: "언어"  // seed
            case .en: "Language"
            case .ja: "言語"
            }
        }
    }

    /// The text with its placeholders filled: `text(.updateMessage, .ja, filling: ["version": "1.4"])`.
    public static func text(_ key: TextKey, _ language: AppLanguage, filling values: [String: String]) -> String {
        var result = text(key, language)
        for (name, value) in values { result = result.replacing("{\(name)}", with: value) }
        return result
    }

    /// Every key's text in `language`, keyed by the key's name (the `strings` control command).
    public static func all(_ language: AppLanguage) -> [String: String] {
        var table: [String: String] = [:]
        for key in TextKey.allCases { table[key.rawValue] = text(key, language) }
        return table
    }

    /// The update alert as issue 13 shows it: title, message with the version, the watch sentence
    /// (#61) as its own paragraph, and the buttons (update first: it recommends, it does not block).
    public static func updateAlert(version: String, language: AppLanguage) -> (title: String, message: String, buttons: [String]) {
        (
            text(.updateTitle, language),
            text(.updateMessage, language, filling: ["version": version]) + "\n\n" + text(.updateWatch, language),
            [text(.updateButtonUpdate, language), text(.updateButtonLater, language)]
        )
    }
}
