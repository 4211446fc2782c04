import Control
import JSONText
import Posix
import UserNotifications
import RunWayDomain

// MARK: - The phone app's reminder commands

extension RunWayPhoneApp {
    func registerReminderCommands(on router: ControlRouter) {
        router.on(ControlCommands.Reminders.self) { [unowned self] _ in try remindersReport() }
        router.on(ControlCommands.RemindersReschedule.self) { [unowned self] _ in
            // Counts as opening the app.
            try reminders.reschedule(reason: "command")
            // Reading the centre sends it what changed first: the report shows the new ladder.
            return try remindersReport()
        }
    }

    /// The reminders' part of the notification centre, and what they were scheduled from.
    func remindersReport() throws -> RemindersReply {
        let last = try store.latest()?.flight.startedAt
        let center = UNUserNotificationCenter.current()
        var delivered: [UNNotification] = []
        center.getDeliveredNotifications { delivered = $0 }
        return RemindersReply(
            rule: reminders.service.rule.rawValue, lastRunAt: last.map { Timestamp.iso8601($0) },
            pending: reminders.service.pendingReminders().map(Self.item),
            delivered: delivered.filter { RunReminderService.isReminder($0.request.identifier) }.map { notification in
                NotificationItem(
                    id: notification.request.identifier, fireAt: Timestamp.iso8601(RunReminderService.fireAt(of: notification.request)),
                    deliveredAt: Timestamp.iso8601(notification.date.timeIntervalSince1970), title: notification.request.content.title,
                    body: notification.request.content.body, language: nil)
            })
    }

    /// A pending request as the OS's `notifications` command lists it, without the seconds.
    static func item(_ request: UNNotificationRequest) -> NotificationItem {
        NotificationItem(
            id: request.identifier, fireAt: Timestamp.iso8601(RunReminderService.fireAt(of: request)), title: request.content.title,
            body: request.content.body, language: (request.content.userInfo["language"] as? String) ?? "")
    }
}
