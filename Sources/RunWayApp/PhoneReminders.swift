import Posix
import RunWayDomain

/// The phone app's inactivity reminders, on the device clock: rescheduled only when the app runs in the
/// foreground or saves a run (after the commit, once per loop turn however many flights it saved), never
/// on a background launch with no UI (seed 001: the basis may move to "now" only because the app was
/// opened). Delivering them is the OS's job, not the app's: the device's notification centre delivers
/// each at its fire date whether or not the app runs.
final class PhoneReminders {
    let service: RunReminderService
    private let now: () -> Double
    private let loop: EventLoop
    private let logger: Logger
    private var rescheduleQueued = false

    init(store: FlightStore, rule: RunReminderService.Rule, now: @escaping () -> Double, loop: EventLoop, logger: Logger) {
        service = RunReminderService(rule: rule, logger: logger) { try store.latest()?.flight.startedAt }
        self.now = now
        self.loop = loop
        self.logger = logger
    }

    /// Reschedules now (the app was opened, a flight deleted, the explicit command).
    @discardableResult
    func reschedule(reason: String) throws -> RunReminderService.Plan {
        try service.reschedule(now: now(), reason: reason)
    }

    /// After a commit that saved flights: once, at the end of this loop turn.
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
