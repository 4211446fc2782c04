import Control
import Foundation
import JSONText
import Posix
import Storage
import UserNotifications
import WatchConnectivity
import RunWayDomain

/// RunWay's phone app, as a tenant of the simulated phone: its store in its container, its model, its
/// session delegate on the public `WatchConnectivity` API, its reminders on `UserNotifications`, and its
/// own control commands (the Logbook, the Flight Summary, the home screen, runs, language, updates).
///
/// Launch follows RunWay 1.3's cold-launch fix, one log line a step: open the store → build the app model
/// with it → set the session's delegate → activate. Only then can transfers arrive, and each is saved the
/// moment it does, with no UI attached.
package final class RunWayPhoneApp: NSObject, UNUserNotificationCenterDelegate {
    package struct Options: Sendable {
        package var savePath: SavePath = .immediate
        /// `legacy` brings back RunWay 1.3.1's single inactivity reminder (`--reminders legacy`).
        package var reminderRule: RunReminderService.Rule = .current
        /// How long a phone-led start waits for the watch's answer before it is `unconfirmed`.
        package var mirroringConfirmTimeoutMilliseconds = 10_000
        /// Who saves a run to Health: once (the device that recorded it) or legacy (the double save, #28).
        package var healthRule: HealthSaveRule = .once
        package init() {}
    }

    let options: Options
    let context: AppContext
    let logger: Logger
    let session = AppSession()
    package private(set) var database: Database!
    package private(set) var store: FlightStore!
    package private(set) var viewModel: RunViewModel!
    package private(set) var service: PhoneConnectivityService!
    var app: AppConnectivity!
    /// Files received and sent (`AppFiles.swift`).
    var files: AppFiles!
    let reminderHook = ReminderHook()
    /// The inactivity reminders (`PhoneReminders.swift`).
    var reminders: PhoneReminders!
    /// The update notice and the simulated App Store endpoint (`PhoneUpdates.swift`).
    var updates: PhoneUpdates!
    /// Runs led by the phone (`runway phone run ...`, `PhoneRuns.swift`).
    var phoneRuns: PhoneRunController!
    private var drainDeferred = false
    var control: ControlServer { context.control }

    package init(options: Options, context: AppContext) {
        self.options = options
        self.context = context
        logger = context.logger
        super.init()
    }

    /// The app's launch: store, model, delegate, activation — then its commands wait for the control
    /// socket, which the device opens once the session is activated.
    package func launch() throws {
        // 1. The store (the database context) — before anything can arrive.
        database = try RunWayStore.open(container: context.container, logger: logger, fail: context.fail)
        context.registerStore(database)
        store = FlightStore(database: database)
        logger.info("startup.store-opened", ["path": RunWayStore.path(container: context.container)])
        reminders = PhoneReminders(store: store, rule: options.reminderRule, now: context.deviceNow, loop: context.loop, logger: logger)
        UNUserNotificationCenter.current().delegate = self
        updates = try makeUpdates()
        logger.info("startup.app-version", ["version": session.appVersion])
        applyLanguageAtLaunch()

        // 2. The app model, wired to the store.
        viewModel = RunViewModel(savePath: options.savePath, logger: logger)
        viewModel.reminders = reminderHook
        viewModel.now = context.deviceNow
        reminderHook.onReschedule = { [unowned self] in self.reminders.rescheduleAfterSave() }
        viewModel.attach(store: store)
        viewModel.onFlightsSaved = { [unowned self] flights in self.publish(flights) }
        viewModel.onFlightHeld = { [unowned self] in self.scheduleDrainIfNeeded() }
        logger.info("startup.model-ready", ["savePath": options.savePath.rawValue])

        // 3. The session, with its delegate set before activation.
        app = AppConnectivity(database: database, logger: logger) { [loop = context.loop] delay, body in
            loop.schedule(afterMilliseconds: delay, body)
        }
        service = PhoneConnectivityService(viewModel: viewModel, app: app, logger: logger)
        files = AppFiles(database: database, container: context.container, logger: logger) { [loop = context.loop] delay, body in
            loop.schedule(afterMilliseconds: delay, body)
        }
        service.files = files
        WCSession.default.setUserInfoValidator(Flight.problem(inUserInfo:))
        WCSession.default.delegate = service
        phoneRuns = try setUpRuns()
        registerCommands(on: context.router)
        context.contributeStatus { [unowned self] status in try self.addStatus(to: &status) }
        service.onStateChange = { [unowned self] in
            self.publishWatchState()
            self.tellWatchLanguage()
        }
        service.onActivation = { [unowned self] state, _ in
            // The fix for "the activation callback only logs": every attached UI gets the new row.
            guard state == .activated else { return }
            self.publishWatchState()
            self.tellWatchLanguage()
        }

        // 4. Activate.
        WCSession.default.activate()
    }

    // MARK: - Delivered notifications

    /// The OS delivered a notification while the app runs: every attached UI shows it.
    package func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void
    ) {
        let event: JSONValue = .object([
            "event": .string("notificationDelivered"), "id": .string(notification.request.identifier),
            "title": .string(notification.request.content.title), "body": .string(notification.request.content.body),
        ])
        for client in control.attachedClients { client.sendEvent(event) }
        completionHandler([.banner, .list])
    }

    // MARK: - UI clients

    /// Flights were saved: each attached UI gets one `flightSaved` event per flight, with its place in
    /// arrival order so a UI that has just listed the logbook can tell what it has already shown.
    private func publish(_ saved: [StoredFlight]) {
        let clients = control.attachedClients
        guard !clients.isEmpty else { return }
        for stored in saved {
            var writer = JSONWriter()
            writer.raw(#"{"event":"flightSaved","flight":"#)
            stored.writeJSON(to: &writer)
            writer.raw("}")
            for client in clients { client.sendEvent(body: writer.bytes) }
        }
    }

    // MARK: - The pending queue

    /// Plans the next drain of `pendingWatchDataQueue`, if anything may drain it now.
    ///
    /// Only `ui-drain` holds flights here (the fixed app saves on receipt, and a flight its store cannot
    /// take is rolled back and resent by the watch, through the receive cursor). In `ui-drain`, only a
    /// home screen writes the queue: while a UI client is attached, it does so as flights arrive
    /// (RunWay's `.onChange`) — after the transfer was acknowledged, which is the bug; with none
    /// attached, nothing does.
    func scheduleDrainIfNeeded() {
        guard options.savePath == .uiDrain, !viewModel.pendingWatchDataQueue.isEmpty else { return }
        guard !drainDeferred, !control.attachedClients.isEmpty else { return }
        drainDeferred = true
        context.loop.deferToEndOfIteration { [weak self] in
            guard let self else { return }
            self.drainDeferred = false
            guard !self.control.attachedClients.isEmpty else { return }
            self.viewModel.drainPendingQueue(reason: "UI visible")
        }
    }
}

/// The inactivity reminders' hook: counts reschedules (once per saved flight), remembers the flight they
/// count from, and asks for the reschedule itself (`PhoneReminders.rescheduleAfterSave`, once a turn).
package final class ReminderHook: InactivityReminderScheduling {
    package private(set) var rescheduleCount = 0
    package private(set) var latestStartedAt: Double?
    var onReschedule: () -> Void = {}

    package init() {}

    package func reschedule(afterSaving flight: Flight, latest: Flight) {
        rescheduleCount += 1
        latestStartedAt = latest.startedAt
        onReschedule()
    }
}
