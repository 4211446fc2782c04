import Control
import JSONText
import Posix
import RunWayDomain

/// The phone's update notice (RunWay 1.4, APP_SPEC F): the rule (`AppUpdateService`) wired to the
/// simulated App Store endpoint, the device clock's local date and the run state; the alert showing,
/// if any, until `respond update|later`.
final class PhoneUpdates {
    let service: AppUpdateService
    let endpoint: AppStoreEndpoint
    /// The alert on screen (in memory, as a SwiftUI alert is).
    var alert: AppUpdateService.Update?
    /// The hidden test command `test-run-state`'s stand-in for a phone-led run (a real one,
    /// `runway phone run start`, counts too).
    var isRunning = false

    init(service: AppUpdateService, endpoint: AppStoreEndpoint) {
        self.service = service
        self.endpoint = endpoint
    }

    /// The alert showing, in `language`, as `update-status` shows it and the UIs get it; nil: none.
    func alert(_ language: AppLanguage) -> UpdateAlert? {
        guard let alert else { return nil }
        return UpdateAlert(
            version: alert.version, storeURL: alert.storeURL, title: UpdateTexts.title(language),
            message: UpdateTexts.message(version: alert.version, language), buttons: UpdateTexts.buttons,
            buttonTitles: UpdateTexts.buttonTitles(language), language: language.rawValue)
    }
}

extension RunWayPhoneApp {
    func makeUpdates() throws -> PhoneUpdates {
        let endpoint = try AppStoreEndpoint(database: database, loop: context.loop, logger: logger)
        let service = try AppUpdateService(installed: session.appVersion, database: database, logger: logger)
        let calendar = LogbookCalendar.current()
        service.now = context.deviceNow
        service.localDate = { calendar.date(of: $0) }
        // `runViewModel.isRunning`: a phone-led run in progress (or the test stand-in).
        service.isRunning = { [unowned self] in self.updates.isRunning || self.phoneRuns?.runs.run != nil }
        service.lookup = { done in endpoint.lookup(url: AppUpdateService.lookupURL, done) }
        return PhoneUpdates(service: service, endpoint: endpoint)
    }

    /// Runs the update rule; an alert goes to every attached UI. `done` gets the report.
    func checkForUpdate(_ done: @escaping (AppUpdateService.Report) -> Void = { _ in }) {
        updates.service.check { [unowned self] report in
            if let update = report.update {
                self.updates.alert = update
                let event = self.updates.alert(self.language.effective)?.json ?? .null
                for client in self.control.attachedClients { client.sendEvent(event) }
            }
            done(report)
        }
    }

    /// `appstore-*`, `update-*` and the hidden `test-run-state`; false if `request` is none of them.
    func registerUpdateCommands(on router: ControlRouter) {
        router.on(ControlCommands.AppstoreSet.self) { [unowned self] args in
            let body: String
            if let raw = args.body {
                body = raw
            } else {
                guard let version = args.version else { throw ControlError.invalid("appstore-set needs a version or a body") }
                if let problem = AppVersion.problem(version) { throw ControlError.invalid(problem) }
                body = AppStoreEndpoint.answer(version: version, url: args.url ?? AppStoreEndpoint.defaultStoreURL)
            }
            try updates.endpoint.set(body: body, delayMilliseconds: args.delayMs)
            return updates.endpoint.reply
        }
        router.on(ControlCommands.AppstoreFail.self) { [unowned self] args in
            try updates.endpoint.set(body: nil, delayMilliseconds: args.delayMs)
            return updates.endpoint.reply
        }
        router.on(ControlCommands.AppstoreShow.self) { [unowned self] _ in updates.endpoint.reply }
        router.on(ControlCommands.UpdateCheck.self) { [unowned self] _, later in
            checkForUpdate { report in later.reply(report.reply) }
        }
        router.on(ControlCommands.UpdateStatus.self) { [unowned self] _ in
            UpdateStatusReply(
                installed: session.appVersion, lastCheckedAt: updates.service.lastCheckedAt.map { Timestamp.iso8601($0) },
                alert: updates.alert(language.effective), checking: updates.service.isChecking, running: updates.isRunning)
        }
        router.on(ControlCommands.UpdateRespond.self) { [unowned self] args in
            let answer = args.answer  // update or later: there is no "skip this version"
            guard let alert = updates.alert else { throw ControlError("no update alert is showing; nothing to respond to") }
            updates.alert = nil
            if answer == "update" {
                logger.info("update.open-store", ["url": alert.storeURL])
                return UpdateRespondReply(response: answer, opened: alert.storeURL)
            } else {
                logger.info("update.later", ["version": alert.version])
                return UpdateRespondReply(response: answer)
            }
        }
        router.on(ControlCommands.TestRunState.self) { [unowned self] args in
            updates.isRunning = args.running
            logger.notice("test.run-state", ["running": updates.isRunning])
            return TestRunStateReply(running: updates.isRunning)
        }
    }
}
