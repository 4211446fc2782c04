import Control

// MARK: - The notification centre's answers

/// What the OS does with each call of an app's `UNUserNotificationCenter` (`NotificationRequest`,
/// declared with its command in `Control/Commands/OSNotificationRequests.swift`), wherever the OS runs.
extension NotificationRequest.Replace: OSRequest {
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
                throw OSRequestRefused("a notification request needs id (1 to 200 bytes), fireAt (seconds), title and body (at most 4096 bytes)")
            }
        }
    }
}

extension NotificationRequest.RemoveDelivered: OSRequest {
    package func answer(by os: SystemServices) throws -> RemoveDeliveredReply {
        try os.center.removeDelivered(ids)
        return RemoveDeliveredReply()
    }
}

extension NotificationRequest.List: OSRequest {
    package func answer(by os: SystemServices) throws -> NotificationsReply {
        NotificationsReply(
            pendingLimit: Int64(UserNotificationCenter.pendingLimit), pending: try os.center.pending().map(\.item),
            delivered: try os.center.delivered().map(\.item))
    }
}

extension NotificationRequest.Add: OSRequest {
    package func answer(by os: SystemServices) throws -> NotificationAddReply {
        let request = UserNotificationCenter.Request(id: id, fireAt: os.clock.now + inSeconds, title: "RunWay", body: body ?? id, language: "")
        return NotificationAddReply(added: id, dropped: try os.add(request))
    }
}

extension NotificationRequest.Open: OSRequest {
    /// The delivered notification leaves the list (opening it clears it, as on iOS), its response is held
    /// for the app and the app told one waits; the OS's listeners bring the app to the foreground.
    package func answer(by os: SystemServices) throws -> NotificationOpenReply {
        guard let delivered = try os.center.delivered().last(where: { $0.id == id }) else {
            throw ControlError("no delivered notification has the id \(id) (runway … notifications lists them)")
        }
        try os.center.removeDelivered([id])
        let response = NotificationResponseItem(notification: delivered.item, actionIdentifier: NotificationResponseItem.defaultAction)
        os.heldResponses.append(response)
        if os.heldResponses.count > SystemServices.heldResponsesLimit { os.heldResponses.removeFirst() }
        os.logger.info("os.notification-opened", ["id": id])
        for listener in os.onNotificationOpened { listener(response) }
        os.publish(NotificationResponseWaiting(id: id))
        return NotificationOpenReply(opened: id, actionIdentifier: response.actionIdentifier)
    }
}

extension NotificationRequest.TakeResponses: OSRequest {
    package func answer(by os: SystemServices) throws -> NotificationResponsesReply {
        let responses = os.heldResponses
        os.heldResponses = []
        return NotificationResponsesReply(responses: responses)
    }
}

extension NotificationResponseWaiting: OSEvent {
    package static var name: String { "notificationResponseWaiting" }
}

extension UserNotificationCenter.AddError: OSRefusal {}

/// A notification the OS delivered, as it tells the running app (`UNUserNotificationCenterDelegate`'s
/// `willPresent`): the centre's listing's record.
package typealias NotificationDelivered = NotificationItem

extension NotificationItem: OSEvent {
    package static var name: String { "notificationDelivered" }
}
