import Control
import OSServices
import JSONText
import PairTesting
import Posix
import RunWayApp
import Storage
import Testing
@testable import UserNotifications

/// The app's catalogue (APP_SPEC G.3, G.4 unit test), the language rule (G.1) and the rewrite of
/// pending reminders a language change makes.
@Suite struct CatalogueTests {
    static func isHangul(_ s: Unicode.Scalar) -> Bool { (0xAC00...0xD7A3).contains(s.value) }
    static func isKana(_ s: Unicode.Scalar) -> Bool { (0x3040...0x30FF).contains(s.value) }
    static func isHan(_ s: Unicode.Scalar) -> Bool { (0x4E00...0x9FFF).contains(s.value) }

    // MARK: - The catalogue

    /// A key without a language does not compile (one exhaustive switch per key); what the compiler
    /// cannot see — an empty or blank entry — fails here.
    @Test func everyKeyHasATextInEveryLanguage() {
        #expect(AppLanguage.codes == ["ko", "en", "ja"])
        #expect(AppLanguage.developmentRegion == .ko)
        for key in TextKey.allCases {
            for language in AppLanguage.allCases {
                let text = AppTexts.text(key, language)
                #expect(text.contains { !$0.isWhitespace }, "\(key.rawValue) has no \(language.rawValue) text")
            }
        }
        for language in AppLanguage.allCases {
            #expect(AppTexts.all(language).count == TextKey.allCases.count)
        }
    }

    /// What each language's texts look like: an exhaustive switch, so a fourth language does not
    /// compile until someone says how its script is told.
    static func isWritten(_ text: String, in language: AppLanguage) -> Bool {
        let scalars = text.unicodeScalars
        switch language {
        case .ko: return scalars.contains(where: isHangul)
        case .en: return !scalars.contains { isHangul($0) || isKana($0) || isHan($0) }
        case .ja: return scalars.contains { isKana($0) || isHan($0) } && !scalars.contains(where: isHangul)
        }
    }

    /// A text copied into the wrong language (English left in the Japanese column) fails here.
    @Test func eachLanguageIsWrittenInItsOwnScript() {
        for key in TextKey.allCases {
            for language in AppLanguage.allCases {
                #expect(Self.isWritten(AppTexts.text(key, language), in: language), "\(key.rawValue) is not written in \(language.rawValue)")
            }
        }
    }

    @Test func theFourReminderStagesDifferWithinEachLanguage() {
        for language in AppLanguage.allCases {
            let bodies = TextKey.reminders.map { AppTexts.text($0, language) }
            #expect(Set(bodies).count == 4, "two reminder stages share a text in \(language.rawValue)")
            #expect([7, 14, 21, 28].map { ReminderTexts.body(elapsedDays: $0, language: language.rawValue) } == bodies)
        }
        // An unknown code gets the development region's.
        #expect(ReminderTexts.body(elapsedDays: 14, language: "fr") == AppTexts.text(.reminder14d, .ko))
    }

    @Test func placeholdersAreInEveryLanguageAndFilled() {
        for key in TextKey.allCases {
            for language in AppLanguage.allCases {
                for placeholder in key.placeholders {
                    #expect(AppTexts.text(key, language).contains(placeholder), "\(key.rawValue) \(language.rawValue) lacks \(placeholder)")
                }
            }
        }
        #expect(AppTexts.text(.updateMessage, .en, filling: ["version": "1.4"]) == "RunWay 1.4 is available on the App Store.")
    }

    /// The Korean the seeds quote, verbatim (#27, #49, #61, seed 001's reminders).
    @Test func theSeedsKoreanIsQuotedExactly() {
        #expect(AppTexts.text(.deleteConfirm, .ko) == "이 러닝 기록을 삭제할까요?")
        #expect(AppTexts.text(.settingsLanguage, .ko) == "언어")
        #expect(AppTexts.text(.updateWatch, .ko) == "Apple Watch 앱도 같이 업데이트해주세요. 두 앱의 버전이 다르면 기기 사이 동작이 어긋날 수 있어요.")
        #expect(AppTexts.text(.reminder7d, .ko) == "일주일째 활주로가 비어있어요. 오늘 다시 이륙해볼까요?")
        #expect(AppTexts.text(.reminder28d, .ko) == "한 달째 활주로가 비어있어요. 오늘 다시 관제탑에 불을 켜볼까요?")
    }

    /// G.4 test 5's first half, until the update notice (issue 13) exists to show it through the binaries.
    @Test func theUpdateAlertUnderJapaneseCarriesTheWatchSentence() {
        let alert = AppTexts.updateAlert(version: "1.4", language: .ja)
        #expect(alert.title == "新しいバージョンがあります")
        #expect(alert.message.contains("RunWay 1.4がApp Store"))
        #expect(alert.message.contains(AppTexts.text(.updateWatch, .ja)))
        #expect(alert.buttons == ["アップデート", "後で"])
    }

    // MARK: - The rule

    static func effective(_ environment: [String: String], app: AppLanguage? = nil) -> String {
        LanguageResolution(appLanguage: app, environment: environment).effective.rawValue
    }

    @Test func theEffectiveLanguage() {
        #expect(Self.effective(["LANG": "en_US.UTF-8"]) == "en")
        #expect(Self.effective(["LANG": "fr_FR.UTF-8"]) == "ko")
        #expect(Self.effective([:]) == "ko")
        #expect(Self.effective(["LANG": "C.UTF-8", "LC_ALL": "POSIX"]) == "ko")
        #expect(Self.effective(["LANG": "ja_JP.UTF-8"], app: .en) == "en")
        // LANGUAGE first, entry by entry; then LC_ALL, LC_MESSAGES, LANG; empty ones do not count.
        #expect(Self.effective(["LANGUAGE": "fr:de_DE:ja", "LC_ALL": "en_US.UTF-8"]) == "ja")
        #expect(Self.effective(["LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "ja_JP", "LANG": "en_US"]) == "ja")
        #expect(Self.effective(["LC_ALL": "fr_FR", "LANG": "en_GB.UTF-8"]) == "en")
        #expect(Self.effective(["LANG": "ko-KR"]) == "ko")
        #expect(Self.effective(["LANG": "ja_JP.eucJP@euro"]) == "ja")
        let resolution = LanguageResolution(appLanguage: nil, environment: ["LANGUAGE": "fr:en", "LANG": "en_US.UTF-8"])
        #expect(resolution.systemLanguages == ["fr", "en", "en_US"])
        #expect(resolution.source == "system")
        #expect(resolution.reply.json["appLanguage"] == .null)
    }

    // MARK: - The rewrite

    @Test func aLanguageChangeRewritesThePendingRemindersKeepingIdsFireDatesAndOrder() throws {
        let directory = makeTemporaryDirectory("lang")
        let osDatabase = try Database(path: directory + "/os.sqlite")
        try Migrator.migrate(osDatabase, SystemServices.migrations)
        let system = try SystemServices(database: osDatabase, loop: EventLoop(), logger: .silent)
        let center = system.center
        let t0 = 1_790_838_000.0
        try system.clock.set(t0, frozen: true)
        let service = RunReminderService(rule: .current, center: UNUserNotificationCenter(channel: system), logger: .silent) { t0 - 3600 }
        try service.reschedule(now: t0, reason: "test")
        try center.add(.init(id: "other", fireAt: t0 + 60, title: "x", body: "not a reminder", language: "ko"), now: t0)
        let before = try center.pending()
        #expect(before.filter { RunReminderService.isReminder($0.id) }.allSatisfy { $0.language == "ko" })

        let rewritten = service.rewritePendingTexts(in: .ja)
        let after = try center.pending()
        #expect(rewritten == ["runway.reminder.7d", "runway.reminder.14d", "runway.reminder.21d", "runway.reminder.28d"])
        #expect(after.map(\.id) == before.map(\.id))
        #expect(after.map(\.fireAt) == before.map(\.fireAt))
        #expect(after.map(\.addedAt) == before.map(\.addedAt))
        #expect(after.first { $0.id == "other" }?.body == "not a reminder")
        for request in after where RunReminderService.isReminder(request.id) {
            #expect(request.language == "ja")
            #expect(request.body == AppTexts.text(.reminder(elapsedDays: RunReminderService.elapsedDays(ofIdentifier: request.id)), .ja))
        }
        // Already so: nothing to write. And reminders scheduled from now on are written in Japanese.
        #expect(service.rewritePendingTexts(in: .ja).isEmpty)
        try center.removePending(RunReminderService.allIdentifiers)
        try service.reschedule(now: t0 + 1, reason: "test")
        #expect(try center.pending().filter { RunReminderService.isReminder($0.id) }.count == 4)
        #expect(try center.pending().filter { RunReminderService.isReminder($0.id) }.allSatisfy { $0.language == "ja" })

        // The per-app setting is the app's, in its own store (app_settings).
        let database = try Database(path: directory + "/app.sqlite")
        try Migrator.migrate(database, RunWayStore.migrations)
        #expect(try AppLanguageSetting.load(database) == nil)
        try AppLanguageSetting.save(.ja, database)
        #expect(try AppLanguageSetting.load(database) == .ja)
        try AppLanguageSetting.save(nil, database)
        #expect(try AppLanguageSetting.load(database) == nil)
    }
}
