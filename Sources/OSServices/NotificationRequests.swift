import Control

/// What an app's `UNUserNotificationCenter` asks of its device's notification centre, wherever the OS
/// runs: each call declared once (`OSRequest`), carried by the app's `OSChannel`. Deliveries come the
/// other way, told to the running app (`NotificationItem`, an `OSEvent`).
package enum NotificationRequest {
    package static let all: [any OSRequest.Type] = [Replace.self, RemoveDelivered.self, List.self, Add.self]

    /// Removes `remove`, then adds `add`, in one transaction; the reply names the ids the 64 cap dropped.
    package struct Replace: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.osNotificationsReplace }
        package var remove: [String]
        package var add: [UserNotificationCenter.Request]
        package init(remove: [String], add: [UserNotificationCenter.Request]) {
            self.remove = remove
            self.add = add
        }

        package func answer(by os: SystemServices) throws -> NotificationsReplaceReply {
            let dropped = try os.replace(remove: remove, add: add)
            os.logger.debug("os.notifications-replaced", ["removed": remove.count, "added": add.count])
            return NotificationsReplaceReply(dropped: dropped)
        }

        /// From another process: ids of 1 to 200 bytes, finite fire dates, texts of at most 4096 bytes.
        package func check() throws(OSRequestRefused) {
            for request in add {
                guard !request.id.isEmpty, request.id.utf8.count <= 200, request.fireAt.isFinite, request.title.utf8.count <= 4096,
                    request.body.utf8.count <= 4096
                else {
                    throw OSRequestRefused(
                        "a notification request needs id (1 to 200 bytes), fireAt (seconds), title and body (at most 4096 bytes)")
                }
            }
        }
    }

    /// Forgets delivered notifications: these, or all (nil).
    package struct RemoveDelivered: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.osNotificationsRemoveDelivered }
        package var ids: [String]?
        package init(ids: [String]?) { self.ids = ids }

        package func answer(by os: SystemServices) throws -> RemoveDeliveredReply {
            try os.center.removeDelivered(ids)
            return RemoveDeliveredReply()
        }
    }

    /// The pending requests, by fire date, and the delivered notifications (`runway phone|watch
    /// notifications` too).
    package struct List: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.notifications }
        package init() {}

        package func answer(by os: SystemServices) throws -> NotificationsReply {
            NotificationsReply(
                pendingLimit: Int64(UserNotificationCenter.pendingLimit), pending: try os.center.pending().map(\.item),
                delivered: try os.center.delivered().map(\.item))
        }
    }

    /// TEST ONLY (`notification-add`): adds a notification `inSeconds` of device time ahead, so the
    /// centre's rules (the 64 cap, replacement, future-only) can be exercised through the binaries.
    package struct Add: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.notificationAdd }
        package var id: String
        package var inSeconds: Double
        package var body: String?
        package init(id: String, inSeconds: Double, body: String?) {
            self.id = id
            self.inSeconds = inSeconds
            self.body = body
        }

        package func answer(by os: SystemServices) throws -> NotificationAddReply {
            let request = UserNotificationCenter.Request(id: id, fireAt: os.clock.now + inSeconds, title: "RunWay", body: body ?? id, language: "")
            return NotificationAddReply(added: id, dropped: try os.add(request))
        }
    }
}

extension UserNotificationCenter.AddError: OSRefusal {}

/// A notification the OS delivered, as it tells the running app (`UNUserNotificationCenterDelegate`'s
/// `willPresent`): the centre's listing's record.
package typealias NotificationDelivered = NotificationItem

extension NotificationItem: OSEvent {
    package static var name: String { "notificationDelivered" }
}
