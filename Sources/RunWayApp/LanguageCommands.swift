import Control
import JSONText
import Posix
import PropertyLists
import RunWayDomain

// MARK: - The phone app's language (APP_SPEC G)

/// The application-context key the phone tells the watch its language with.
let appLanguageContextKey = "appLanguage"

extension LanguageResolution {
    /// The resolution for this process: `appLanguage` over the environment it was started with.
    static func current(appLanguage: AppLanguage?) -> LanguageResolution {
        var environment: [String: String] = [:]
        for name in environmentNames {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return LanguageResolution(appLanguage: appLanguage, environment: environment)
    }
}

extension RunWayPhoneApp {
    /// The app's language now: the stored per-app setting over the daemon's environment.
    var language: LanguageResolution {
        LanguageResolution.current(appLanguage: (try? AppLanguageSetting.load(database)) ?? nil)
    }

    /// At launch: the reminders write in the effective language from now on, and pending ones written
    /// in another (the environment changed while the phone was off) are rewritten, as after a change
    /// in Settings. Runs after the launch's delivery: what fell due while the phone was off was
    /// delivered in the language it was scheduled in. A store that cannot take the rewrite (a full
    /// disk) does not stop the launch: the texts stay as they were, and the next change rewrites them.
    func applyLanguageAtLaunch() {
        let resolution = language
        reminders.service.language = resolution.effective.rawValue
        let rewritten = reminders.service.rewritePendingTexts(in: resolution.effective)
        logger.info(
            "startup.language",
            [
                "effective": resolution.effective.rawValue, "source": resolution.source,
                "appLanguage": resolution.appLanguage?.rawValue ?? "none", "rewritten": rewritten.count,
            ])
    }

    /// Registers the language commands, and the phone's `context-set` (the app adds its language to the
    /// context it sets), over the session's (so after `SessionCommands.register`).
    func registerLanguageCommands(on router: ControlRouter) {
        router.on(ControlCommands.Language.self) { [unowned self] _ in language.reply }
        router.on(ControlCommands.LanguageSet.self) { [unowned self] args in try setLanguage(args.language) }
        router.on(ControlCommands.Strings.self) { [unowned self] _ in
            let effective = language.effective
            return StringsReply(language: effective.rawValue, strings: AppTexts.all(effective))
        }
        router.on(ControlCommands.Settings.self) { [unowned self] _ in settings() }
        // The session's context-set, registered before, with the app's language added to the context.
        router.replace(ControlCommands.ContextSet.self) { [unowned self] args in
            var context = try UserInfo(userInfoJSON: args.payload)
            context[appLanguageContextKey] = .string(language.effective.rawValue)
            return ContextSetReply(version: try session.updateApplicationContext(context))
        }
    }

    /// `language-set {"language":"ko|en|ja|system"}`: the system's Settings › RunWay › Language. Applied
    /// as iOS applies it, by relaunching the app: the setting and the pending reminders' new texts in
    /// one transaction (same ids, same fire dates: not a reschedule), then the watch is told through the
    /// application context.
    func setLanguage(_ name: String) throws -> LanguageReply {
        let chosen: AppLanguage?
        if name == "system" {
            chosen = nil
        } else if let language = AppLanguage(rawValue: name) {
            chosen = language
        } else {
            throw ControlError.invalid(
                "\(OneLine.quote(name)) is not a language RunWay offers; supported: \(AppLanguage.codes.joined(separator: ", ")), or system")
        }
        let before = language
        let after = LanguageResolution.current(appLanguage: chosen)
        try database.transaction { try AppLanguageSetting.save(chosen, database) }
        // The centre takes the rewritten texts at the end of this turn, all together.
        let rewritten = reminders.service.rewritePendingTexts(in: after.effective)
        let changed = before.appLanguage != after.appLanguage
        if changed {
            logger.notice(
                "app.relaunched",
                [
                    "reason": "language-changed", "from": before.effective.rawValue, "to": after.effective.rawValue,
                    "appLanguage": after.appLanguage?.rawValue ?? "system", "rewritten": rewritten.count,
                ])
            // A home screen on show is the relaunched app's: it now speaks the new language.
            let event: JSONValue = .object([
                "event": .string("appRelaunched"), "reason": .string("language-changed"),
                "language": .string(after.effective.rawValue),
            ])
            for client in control.attachedClients { client.sendEvent(event) }
        }
        tellWatchLanguage()
        var reply = after.reply
        reply.changed = changed
        reply.rewrittenReminders = rewritten
        return reply
    }

    /// The app's settings screen: its rows, each with its localised title. The language row opens the
    /// system's setting (stood for by `runway phone language set`), nothing inside the app (#49).
    func settings() -> SettingsReply {
        let effective = language.effective
        return SettingsReply(
            language: effective.rawValue,
            rows: [
                SettingsReply.Row(
                    key: TextKey.settingsLanguage.rawValue, title: AppTexts.text(.settingsLanguage, effective), value: effective.rawValue,
                    opens: "system settings: runway phone language set ko|en|ja|system")
            ])
    }

    /// Puts the effective language into the application context if it is not there yet (a no-op when
    /// it is). The context is durable and only its newest value travels, so whatever happens to the
    /// link the watch ends up with the phone's language. Called after activation, when the watch app's
    /// state changes (a context can be set only while it is installed) and after a change.
    func tellWatchLanguage() {
        guard session.isActivated, session.isPaired, session.isWatchAppInstalled else { return }
        let effective = language.effective.rawValue
        var context = session.applicationContext
        guard context[appLanguageContextKey]?.stringValue != effective else { return }
        context[appLanguageContextKey] = .string(effective)
        do {
            let version = try session.updateApplicationContext(context)
            logger.info("language.sent", ["language": effective, "contextVersion": version])
        } catch {
            logger.warning("language.not-sent", ["language": effective, "error": "\(error)", "retry": "when the watch app's state changes"])
        }
    }
}

// MARK: - The watch follows

extension RunWayWatchApp {
    /// The watch app's language: the phone's, from the last application context that carried one
    /// (durable); until one has arrived, the watch's own environment's.
    var language: (effective: AppLanguage, source: String) {
        if let name = session.receivedApplicationContext[appLanguageContextKey]?.stringValue,
            let language = AppLanguage(rawValue: name)
        {
            return (language, "phone")
        }
        return (LanguageResolution.current(appLanguage: nil).effective, "watch-system")
    }

    var languageStatusFields: [String: JSONValue] {
        let (effective, source) = language
        return ["language": .string(effective.rawValue), "languageSource": .string(source)]
    }
}
