import Control
import JSONText
import Posix
import Storage

/// The device's operating-system services that outlive any app's process: the device clock and the
/// notification centre, kept in the OS's own store (`HOME/os.sqlite`), and the timer that delivers a
/// notification when device time reaches it — whether or not the app runs (iOS delivers a local
/// notification at its fire date; RunWay 1.3.2's reminders exist for the user who does not open the app).
///
/// Run by `phone-os` for a phone it runs, and by the device's own process when the OS and the app share
/// one (`phone-daemon` by hand, `watch-agent`). Apps reach the notification centre through the
/// `UserNotifications` module, never this type.
///
/// Delivery happens at start-up for whatever fell due while nothing ran (`deliveredAt = fireAt`), on a
/// timer while the clock runs, and at once after every clock command.
package final class SystemServices {
    package let clock: DeviceClock
    package let center: UserNotificationCenter
    /// The device's Health store (HealthKit's workouts).
    package let health: HealthStore
    package let database: Database
    private let loop: EventLoop
    package let logger: Logger
    private var timer: EventLoop.TimerID?
    /// Told of every delivery (phone-os's log), after the app was told (`publish`).
    package var onDelivered: [([UserNotificationCenter.Delivered]) -> Void] = []
    /// Told every event published, as the app's attached connection carries it (phone-os, watch-os relay it).
    package var onPublished: [(JSONValue) -> Void] = []
    /// The app's observers in this process, by event name (`observe`).
    var eventObservers: [String: [(any OSEvent) -> Void]] = [:]
    /// Told after a clock command changed the clock (phone-os tells the running app).
    package var onClockChanged: [(DeviceClock.Reading) -> Void] = []
    /// Told when the user opened a delivered notification (phone-os and watch-os bring the app to the
    /// foreground, launching it if need be).
    package var onNotificationOpened: [(NotificationResponseItem) -> Void] = []
    /// The user's responses the app has not taken yet (`os-notification-responses`), oldest first; at most
    /// `heldResponsesLimit`, the oldest dropped past it.
    package var heldResponses: [NotificationResponseItem] = []
    package static let heldResponsesLimit = 64

    /// The OS's store of a home: `HOME/os.sqlite`, WAL, FULL.
    package static func storePath(home: String) -> String { home + "/os.sqlite" }

    package static let migrations = DeviceClock.migrations + UserNotificationCenter.migrations + HealthStore.migrations

    /// Every request the OS answers: the catalogue's OS services' commands (`ControlCommands.osServiceCommands`,
    /// each service's declared in its namespace: `ClockRequest`, …), each answered here (`OSRequest`) — what
    /// `register(on:)` serves on the control socket and `os.sock`, and what the app's `OSChannel` carries.
    /// One the OS does not answer stops every process that serves them at start-up.
    package static let requests: [any OSRequest.Type] = ControlCommands.osServiceCommands.map { command in
        guard let request = command as? any OSRequest.Type else {
            preconditionFailure("\(command.spec.name) is an OS service's command the OS does not answer (OSRequest)")
        }
        return request
    }

    /// Opens (creating) the OS's store of `home`, checked in full — it holds at most the 64 pending and
    /// the last 1,000 delivered notifications and a clock, so the check costs the same at every start —
    /// and migrated.
    package static func openStore(home: String) throws -> Database {
        let database = try Database(path: storePath(home: home))
        if let problems = try database.check() {
            database.close()
            throw StorageError(
                resultCode: 11, message: "the OS's store \(storePath(home: home)) is damaged (\(problems.prefix(300)))", operation: "open")
        }
        try Migrator.migrate(database, migrations)
        return database
    }

    package init(database: Database, loop: EventLoop, logger: Logger) throws {
        self.database = database
        self.loop = loop
        self.logger = logger
        clock = try DeviceClock(database: database)
        center = UserNotificationCenter(database: database, logger: logger)
        health = HealthStore(database: database)
    }

    /// Publishes the device clock where the apps' processes read it (`HOME/device-clock`, read by the
    /// device-time preload in each app the OS launches): now and at every change. A page that cannot be
    /// made is logged; the apps' `Date()` is then the host's.
    package func publishClock(home: String) {
        do {
            clock.page = try DeviceClockPage(home: home)
        } catch {
            logger.warning("clock.page-failed", ["error": "\(error)", "effect": "the apps' Date() is the host's, not the device's"])
        }
    }

    // MARK: - Delivery

    /// Delivers what is due at the device's now, in fire order, then plans the next look. Returns what
    /// was delivered.
    @discardableResult
    package func deliverDue() -> [UserNotificationCenter.Delivered] {
        var delivered: [UserNotificationCenter.Delivered] = []
        do {
            delivered = try center.deliverDue(now: clock.now)
        } catch {
            logger.error("notification.delivery-failed", ["error": "\(error)", "action": "retried on the next turn of the clock"])
        }
        for item in delivered { publish(item.item) }
        if !delivered.isEmpty { for listener in onDelivered { listener(delivered) } }
        rearm()
        return delivered
    }

    /// Tells the running app `event`: its observers in this process, and the relays to an app in another.
    package func publish<Event: OSEvent>(_ event: Event) {
        for observer in eventObservers[Event.name] ?? [] { observer(event) }
        if !onPublished.isEmpty {
            let json = event.eventJSON
            for relay in onPublished { relay(json) }
        }
    }

    /// One timer for the earliest pending fire date, while the clock runs; none while it is frozen (no
    /// device time passes until the next clock command, which delivers by itself).
    package func rearm() {
        if let timer { loop.cancel(timer) }
        timer = nil
        guard clock.mode == .offset, let next = try? center.nextFireAt() else { return }
        let seconds = min(max(0, next - clock.now), 86_400)
        timer = loop.schedule(afterMilliseconds: UInt64((seconds * 1000).rounded(.up)) + 1) { [weak self] in
            self?.timer = nil
            self?.deliverDue()
        }
    }

    /// Adds a request at device time (the centre's rules: future only, the 64 cap) and rearms.
    @discardableResult
    package func add(_ request: UserNotificationCenter.Request) throws -> [String] {
        let dropped = try center.add(request, now: clock.now)
        rearm()
        return dropped
    }

    /// Removes pending requests by id and rearms.
    @discardableResult
    package func removePending(_ ids: [String]) throws -> Int {
        let removed = try center.removePending(ids)
        rearm()
        return removed
    }

    /// Removes `remove` and adds `add` in one transaction, then rearms.
    @discardableResult
    package func replace(remove: [String], add: [UserNotificationCenter.Request]) throws -> [String] {
        let dropped = try center.replace(remove: remove, add: add, now: clock.now)
        rearm()
        return dropped
    }

    // MARK: - Control commands

    /// The OS's commands, every one an `OSRequest` (`requests`) served by the one adapter: those this
    /// server answers — the clock's and the notification centre's on every device, the app's `os-…`
    /// calls in the OS's own process.
    package func register(on router: ControlRouter) {
        for request in Self.requests { router.serve(request, by: self) }
    }
}
