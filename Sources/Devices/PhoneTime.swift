import JSONText
import Posix
import RunWayApp
import Storage

/// Time on the phone: its clock, its notification centre (the system's, durable) and the app's
/// inactivity reminders, and the timer that delivers notifications as device time reaches them.
///
/// Delivery is the system's job, not the app's: it happens at start-up for whatever fell due while the
/// daemon was down (`deliveredAt = fireAt`), on a timer while the clock runs, and at once after every
/// clock command. The reminders are rescheduled only when the app runs in the foreground or saves a
/// run (after the commit, once per loop turn however many flights it saved), never on a background
/// launch with no UI (seed 001: the basis may move to "now" only because the app was opened).
final class PhoneTime {
    let clock: DeviceClock
    let center: UserNotificationCenter
    let reminders: RunReminderService
    private let loop: EventLoop
    private let logger: Logger
    /// Notifications were delivered: the daemon tells its attached UIs.
    var onDelivered: ([UserNotificationCenter.Delivered]) -> Void = { _ in }
    private var timer: EventLoop.TimerID?
    private var rescheduleQueued = false

    init(database: Database, store: FlightStore, rule: RunReminderService.Rule, loop: EventLoop, logger: Logger) throws {
        clock = try DeviceClock(database: database)
        center = UserNotificationCenter(database: database, logger: logger)
        reminders = RunReminderService(rule: rule, center: center, logger: logger) { try store.latest()?.flight.startedAt }
        self.loop = loop
        self.logger = logger
    }

    // MARK: - Delivery

    /// Delivers what is due at the device's now, in fire order, then plans the next look. Returns what
    /// was delivered.
    @discardableResult
    func deliverDue() -> [UserNotificationCenter.Delivered] {
        var delivered: [UserNotificationCenter.Delivered] = []
        do {
            delivered = try center.deliverDue(now: clock.now)
        } catch {
            logger.error("notification.delivery-failed", ["error": "\(error)", "action": "retried on the next turn of the clock"])
        }
        if !delivered.isEmpty { onDelivered(delivered) }
        rearm()
        return delivered
    }

    /// One timer for the earliest pending fire date, while the clock runs; none while it is frozen (no
    /// device time passes until the next clock command, which delivers by itself).
    func rearm() {
        if let timer { loop.cancel(timer) }
        timer = nil
        guard clock.mode == .offset, let next = try? center.nextFireAt() else { return }
        let seconds = min(max(0, next - clock.now), 86_400)
        timer = loop.schedule(afterMilliseconds: UInt64((seconds * 1000).rounded(.up)) + 1) { [weak self] in
            self?.timer = nil
            self?.deliverDue()
        }
    }

    // MARK: - Reminders

    /// Reschedules now (the app was opened, a flight deleted, the explicit command).
    @discardableResult
    func reschedule(reason: String) throws -> RunReminderService.Plan {
        let plan = try reminders.reschedule(now: clock.now, reason: reason)
        rearm()
        return plan
    }

    /// After a commit that saved flights: once, at the end of this loop turn (one transaction for a
    /// whole batch of saved flights, not one per flight).
    func rescheduleAfterSave() {
        guard !rescheduleQueued else { return }
        rescheduleQueued = true
        loop.deferToEndOfIteration { [weak self] in
            guard let self else { return }
            self.rescheduleQueued = false
            do {
                try self.reschedule(reason: "saved")
            } catch {
                self.logger.error("reminders.reschedule-failed", ["reason": "saved", "error": "\(error)"])
            }
        }
    }
}
