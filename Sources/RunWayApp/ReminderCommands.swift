import Control
import JSONText
import Posix
import UserNotifications

// MARK: - The phone app's reminder commands

extension RunWayPhoneApp {
    func registerReminderCommands(on router: ControlRouter) {
        router.on("reminders") { [unowned self] _, connection in
            connection.reply(try remindersReport())
        }
        router.on("reminders-reschedule") { [unowned self] _, connection in
            // Counts as opening the app.
            try reminders.reschedule(reason: "command")
            // Reading the centre sends it what changed first: the report shows the new ladder.
            connection.reply(try remindersReport())
        }
    }

    /// `{"rule","lastRunAt","pending":[…],"delivered":[…]}`, the reminders' only.
    func remindersReport() throws -> JSONValue {
        let last = try store.latest()?.flight.startedAt
        let center = UNUserNotificationCenter.current()
        var delivered: [UNNotification] = []
        center.getDeliveredNotifications { delivered = $0 }
        return .object([
            "rule": .string(reminders.service.rule.rawValue),
            "lastRunAt": last.map { .string(Timestamp.iso8601($0)) } ?? .null,
            "pending": .array(reminders.service.pendingReminders().map(Self.json)),
            "delivered": .array(
                delivered.filter { RunReminderService.isReminder($0.request.identifier) }.map { notification in
                    .object([
                        "id": .string(notification.request.identifier),
                        "fireAt": .string(Timestamp.iso8601(RunReminderService.fireAt(of: notification.request))),
                        "deliveredAt": .string(Timestamp.iso8601(notification.date.timeIntervalSince1970)),
                        "title": .string(notification.request.content.title), "body": .string(notification.request.content.body),
                    ])
                }),
        ])
    }

    /// A pending request as the OS's `notifications` command writes it.
    static func json(_ request: UNNotificationRequest) -> JSONValue {
        .object([
            "id": .string(request.identifier), "fireAt": .string(Timestamp.iso8601(RunReminderService.fireAt(of: request))),
            "title": .string(request.content.title), "body": .string(request.content.body),
            "language": .string((request.content.userInfo["language"] as? String) ?? ""),
        ])
    }
}
