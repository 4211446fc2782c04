import Foundation
import Glibc
import JSONText
import PairTesting
import Posix
import RunWayApp
import Testing

/// RunWay 1.4's languages through the real binaries (APP_SPEC G.4): the effective language from the
/// daemon's environment, the per-app setting, the pending reminders rewritten in place, the watch
/// following through the application context, the delete question. The invariant checker runs in each.
@Suite(.serialized) struct LanguageTests {
    static let t0 = SimulatedPair.t0, day = SimulatedPair.day
    static func locale(_ lang: String) -> [String: String] { ["LANG": lang] }

    /// A pair with both clocks frozen at t0, the phone started in `phoneEnvironment` (over the
    /// harness's empty language variables), one run recorded an hour before t0: four reminders pending.
    /// `body` gets the pair (cleaned up after it, as `withRunningPair` does) and the run's start.
    static func withPairWithReminders<T>(
        _ tag: String, phoneEnvironment: [String: String],
        _ body: (SimulatedPair, Double) throws -> T
    ) throws -> T {
        try withRunningPair(tag: tag, phone: nil) { pair in
            try pair.startPhone(environment: phoneEnvironment)
            try pair.freezeBoth()
            try pair.freezeWatch(at: t0 - 3600)
            let s = try pair.recordRun()
            #expect(try pair.reminders().pendingIDs == Stage.all)
            return try body(pair, s)
        }
    }

    static func bodies(_ language: AppLanguage) -> [String] { TextKey.reminders.map { AppTexts.text($0, language) } }

    func languageOf(_ pair: SimulatedPair) throws -> JSONValue { try pair.phoneJSON(["language"]) }

    func watchLanguage(_ pair: SimulatedPair) throws -> String? { try pair.status("watch")["language"]?.stringValue }

    // 1.
    @Test func anEnglishSystemGivesEnglish() throws {
        try Self.withPairWithReminders("lang-en", phoneEnvironment: Self.locale("en_US.UTF-8")) { pair, s in
            let language = try languageOf(pair)
            #expect(language["effective"] == .string("en"))
            #expect(language["appLanguage"] == .null)
            #expect(language["systemLanguages"] == .array([.string("en_US")]))
            #expect(language["supported"] == .array(["ko", "en", "ja"].map { .string($0) }))
            #expect(language["developmentRegion"] == .string("ko"))
            let state = try pair.reminders()
            #expect(state.pending.map(\.body) == Self.bodies(.en))
            #expect(Set(state.pending.map(\.body)).count == 4)
            #expect(state.pending.map(\.fireAt) == [7.0, 14, 21, 28].map { s + $0 * Self.day })
            #expect(try pair.phoneJSON(["settings"])["rows"]?.arrayValue?.first?["title"] == .string("Language"))
            // The watch (started with no language of its own: ko) follows the phone.
            try pair.waitUntil("the watch speaks English", timeout: 30) { try watchLanguage(pair) == "en" }
            #expect(try pair.status("watch")["languageSource"] == .string("phone"))
            try pair.expectDrainedAndClean()
        }
    }

    // 2.
    @Test func anUnsupportedSystemLanguageGivesTheDevelopmentRegion() throws {
        try Self.withPairWithReminders("lang-fr", phoneEnvironment: Self.locale("fr_FR.UTF-8")) { pair, _ in
            let language = try languageOf(pair)
            #expect(language["effective"] == .string("ko"))
            #expect(language["systemLanguages"] == .array([.string("fr_FR")]))
            #expect(try pair.reminders().pending.map(\.body) == Self.bodies(.ko))
            #expect(try pair.phoneJSON(["settings"])["rows"]?.arrayValue?.first?["title"] == .string("언어"))

            // 4. set fr: exit 2, one line, nothing changed; set en, then system: back to the environment's.
            let before = try pair.reminders()
            let french = try runTool(["phone", "language", "set", "fr", "--home", pair.phoneHome])
            #expect(french.status == 2)
            #expect(french.stderr.split(separator: "\n").count == 1)
            #expect(french.stderr.contains("supported: ko, en, ja, or system"))
            #expect(try languageOf(pair)["appLanguage"] == .null)
            #expect(try pair.reminders().pending == before.pending)
            #expect(try pair.phoneJSON(["language", "set", "en"])["effective"] == .string("en"))
            #expect(try pair.reminders().pending.map(\.body) == Self.bodies(.en))
            let system = try pair.phoneJSON(["language", "set", "system"])
            #expect(system["effective"] == .string("ko") && system["appLanguage"] == .null)
            #expect(try pair.reminders().pending.map(\.body) == Self.bodies(.ko))
            #expect(try pair.reminders().pending.map(\.fireAt) == before.pending.map(\.fireAt))
            try pair.expectDrainedAndClean()
        }
    }

    // 3.
    @Test func settingJapaneseRewritesThePendingRemindersAndTheWatchFollowsAcrossRestarts() throws {
        try Self.withPairWithReminders("lang-ja", phoneEnvironment: Self.locale("en_US.UTF-8")) { pair, _ in
            try pair.waitUntil("the watch speaks English", timeout: 30) { try watchLanguage(pair) == "en" }
            let before = try pair.reminders()
            #expect(before.pending.map(\.body) == Self.bodies(.en))

            let reschedulesBefore = try String(contentsOfFile: pair.phoneLog, encoding: .utf8).components(separatedBy: "event=reminders.rescheduled").count
            try pair.setLink(up: false)
            let set = try pair.phoneJSON(["language", "set", "ja"])
            #expect(set["effective"] == .string("ja") && set["appLanguage"] == .string("ja"))
            #expect(set["rewrittenReminders"]?.arrayValue?.count == 4)
            let after = try pair.reminders()
            #expect(after.pending.map(\.body) == Self.bodies(.ja))
            #expect(after.pendingIDs == before.pendingIDs)
            #expect(after.pending.map(\.fireAt) == before.pending.map(\.fireAt))
            let languages = try pair.notifications().json["pending"]?.arrayValue?.compactMap { $0["language"]?.stringValue }
            #expect(languages == ["ja", "ja", "ja", "ja"])
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.contains("event=app.relaunched reason=language-changed"))
            // Rewritten, not rescheduled.
            #expect(log.components(separatedBy: "event=reminders.rescheduled").count == reschedulesBefore)

            // The watch hears of it once the link is up.
            #expect(try watchLanguage(pair) == "en")
            try pair.setLink(up: true)
            try pair.waitUntil("the watch speaks Japanese", timeout: 30) { try watchLanguage(pair) == "ja" }

            // A home screen on show hears of each relaunch.
            let ui = try RunningTool(["phone", "ui", "--home", pair.phoneHome])
            defer { ui.signal(SIGKILL); _ = ui.wait() }
            try pair.waitUntil("runway phone ui is attached", timeout: 30) { ui.stdoutSoFar.contains("-- attached") }
            _ = try pair.phoneJSON(["language", "set", "en"])
            _ = try pair.phoneJSON(["language", "set", "ja"])
            do {
                try pair.waitUntil("the UI saw the relaunch", timeout: 30) { ui.stdoutSoFar.contains("app relaunched (language-changed): language ja") }
            } catch {
                Issue.record("\(error)\nUI said: \(ui.stdoutSoFar)\nphone log: \(pair.phone?.logTail(30) ?? "")")
            }
            #expect(ui.stdoutSoFar.contains("app relaunched (language-changed): language en"))

            // Kept across a phone restart (SIGKILL: nothing but the store survives), whatever its environment.
            pair.killPhone()
            try pair.startPhone(environment: Self.locale("en_US.UTF-8"))
            #expect(try languageOf(pair)["effective"] == .string("ja"))
            #expect(try languageOf(pair)["appLanguage"] == .string("ja"))
            #expect(try pair.reminders().pending == after.pending)
            // And the watch keeps it across its own restart.
            pair.killWatch()
            try pair.startWatch(environment: Self.locale("en_US.UTF-8"))
            #expect(try watchLanguage(pair) == "ja")

            // A context the phone app sets carries its language too.
            let file = pair.root + "/c.json"
            try #"{"theme": "night"}"#.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try runTool(["phone", "context", "set", "--home", pair.phoneHome, "--json-file", file]).status == 0)
            try pair.waitUntil("the watch has the new context", timeout: 30) {
                let context = try JSONValue(parsing: try runTool(["watch", "context", "get", "--home", pair.watchHome, "--json"]).stdout)
                return context["receivedApplicationContext"]?["theme"] == .string("night")
            }
            #expect(try watchLanguage(pair) == "ja")
            try pair.expectDrainedAndClean()
        }
    }

    /// The environment changed while the phone was off (no per-app setting): at its next launch the
    /// pending reminders are rewritten in the new language, same ids and fire dates, as after a change
    /// in Settings; the watch follows.
    @Test func aLaunchInAnotherSystemLanguageRewritesThePendingReminders() throws {
        try Self.withPairWithReminders("lang-env", phoneEnvironment: Self.locale("en_US.UTF-8")) { pair, _ in
            let before = try pair.reminders()
            pair.phone?.stop()
            try pair.startPhone(environment: ["LANGUAGE": "fr:ja_JP"])
            let after = try pair.reminders()
            #expect(after.pending.map(\.body) == Self.bodies(.ja))
            #expect(after.pendingIDs == before.pendingIDs && after.pending.map(\.fireAt) == before.pending.map(\.fireAt))
            try pair.waitUntil("the watch speaks Japanese", timeout: 30) { try watchLanguage(pair) == "ja" }
            try pair.expectDrainedAndClean()
        }
    }

    // 5.
    @Test func theDeleteQuestionSpeaksTheAppsLanguage() throws {
        try withRunningPair(tag: "lang-del", phone: nil) { pair in
            try pair.startPhone()  // no language in the environment: ko
            let ids = try pair.record(2)
            try pair.waitUntilDrained()
            let home = ["--home", pair.phoneHome]
            #expect(try languageOf(pair)["effective"] == .string("ko"))
            let korean = try runTool(["phone", "delete", ids[0]] + home, terminalInput: "n\n")
            #expect(korean.status == 1)
            #expect(korean.stdout.contains("이 러닝 기록을 삭제할까요?\n") && korean.stdout.contains(ids[0]))
            _ = try pair.phoneJSON(["language", "set", "ja"])
            // What the CLI asks the phone for: every text, in the app's language (the update alert's too).
            let strings = try pair.phoneJSON(["strings"])
            #expect(strings["language"] == .string("ja"))
            #expect(strings["strings"]?["update.watch"] == .string(AppTexts.text(.updateWatch, .ja)))
            #expect(strings["strings"]?.objectValue?.count == TextKey.allCases.count)
            let japanese = try runTool(["phone", "delete", ids[0]] + home, terminalInput: "n\n")
            #expect(japanese.status == 1)
            #expect(japanese.stdout.contains("このランの記録を削除しますか？\n"))
            // The rest of the command line stays English.
            #expect(japanese.stdout.contains("[y/N]") && japanese.stdout.contains("not deleted"))
            #expect(try pair.logbookIDs() == ids)
            try pair.delete(ids[0])
            #expect(try pair.logbookIDs() == [ids[1]])
            try pair.expectDrainedAndClean()
        }
    }

    /// The commands' exit statuses with no phone running: a valid request fails (1), an invalid one is
    /// refused as invalid (2) before anything is asked.
    @Test func withThePhoneDownAValidRequestFailsAndAnInvalidOneIsInvalid() throws {
        try withPair(tag: "lang-down") { pair in
            let home = ["--home", pair.phoneHome]
            for arguments in [["language"], ["language", "set", "en"], ["settings"], ["strings"]] {
                let result = try runTool(["phone"] + arguments + home)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            }
            let french = try runTool(["phone", "language", "set", "fr"] + home)
            #expect(french.status == 2)
            #expect(french.stderr.split(separator: "\n").count == 1)
        }
    }
}
