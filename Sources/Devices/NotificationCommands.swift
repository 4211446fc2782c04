import Control
import JSONText
import Posix
import RunWayApp

// MARK: - The phone's clock, notification and reminder commands

extension PhoneDaemon {
    /// Registers the commands of time on the phone: the clock's and the notification centre's.
    func registerTimeCommands(on router: ControlRouter) {
        var clockCommands = ClockCommands(clock: time.clock, logger: logger)
        clockCommands.onChange = { [unowned self] in
            let delivered = self.time.deliverDue()
            return delivered.map(\.json)
        }
        clockCommands.register(on: router)
        router.on("notifications") { [unowned self] request, connection in
            connection.reply(
                .object([
                    "pendingLimit": .integer(Int64(UserNotificationCenter.pendingLimit)),
                    "pending": .array(try time.center.pending().map(\.json)),
                    "delivered": .array(try time.center.delivered().map(\.json)),
                ]))
        }
        router.on("reminders") { [unowned self] request, connection in
            connection.reply(try remindersReport())
        }
        router.on("reminders-reschedule") { [unowned self] request, connection in
            // Counts as opening the app.
            try time.reschedule(reason: "command")
            connection.reply(try remindersReport())
        }
        router.on("notification-add") { [unowned self] request, connection in
            connection.reply(try addNotification(request))
        }
    }

    /// `{"rule","lastRunAt","pending":[…],"delivered":[…]}`, the reminders' ids only.
    func remindersReport() throws -> JSONValue {
        let last = try store.latest()?.flight.startedAt
        return .object([
            "rule": .string(time.reminders.rule.rawValue),
            "lastRunAt": last.map { .string(Timestamp.iso8601($0)) } ?? .null,
            "pending": .array(try time.center.pending().filter { RunReminderService.isReminder($0.id) }.map(\.json)),
            "delivered": .array(try time.center.delivered().filter { RunReminderService.isReminder($0.id) }.map(\.json)),
        ])
    }

    /// TEST ONLY: `{"id","inSeconds","body"}` adds a notification `inSeconds` of device time ahead, so
    /// the centre's rules (the 64 cap, replacement, future-only) can be exercised through the binaries.
    func addNotification(_ request: ControlRequest) throws -> JSONValue {
        let id = request[ControlCommands.NotificationAdd.id]
        let seconds = request[ControlCommands.NotificationAdd.inSeconds]
        let body = request[ControlCommands.NotificationAdd.body] ?? id
        let now = time.clock.now
        let dropped: [String]
        do {
            dropped = try time.center.add(
                UserNotificationCenter.Request(
                    id: id, fireAt: now + seconds, title: "RunWay", body: body, language: ReminderTexts.defaultLanguage), now: now)
        } catch let error as UserNotificationCenter.AddError {
            throw ControlError.invalid(error.description)
        }
        time.rearm()
        return .object(["added": .string(id), "dropped": .array(dropped.map { .string($0) })])
    }

    /// Tells every attached UI of each delivered notification.
    func publish(_ delivered: [UserNotificationCenter.Delivered]) {
        for client in control?.attachedClients ?? [] {
            for item in delivered {
                client.sendEvent(
                    .object([
                        "event": .string("notificationDelivered"), "id": .string(item.id),
                        "title": .string(item.title), "body": .string(item.body),
                    ]))
            }
        }
    }
}
