import JSONText

// MARK: - What the RunWay apps keep: files, userInfo received, the logbook's groups, a UI attached

/// `files`: the file transfers outstanding (with the bytes the counterpart has made durable) and the
/// files received (where the app keeps them).
package struct FilesReply: ControlReply {
    package struct Outstanding: Codable, Sendable, Equatable {
        package var transferId: Int64
        package var name: String
        package var path: String
        package var bytes: Int64
        package var sha256: String
        package var completedBytes: Int64
        package var isTransferring: Bool
        /// Typed JSON; absent without metadata.
        package var metadata: [String: JSONValue]?
        package init(
            transferId: Int64, name: String, path: String, bytes: Int64, sha256: String, completedBytes: Int64, isTransferring: Bool,
            metadata: [String: JSONValue]?
        ) {
            self.transferId = transferId
            self.name = name
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
            self.completedBytes = completedBytes
            self.isTransferring = isTransferring
            self.metadata = metadata
        }
    }
    package struct Received: Codable, Sendable, Equatable {
        /// The sender's device id.
        package var from: String
        package var transferId: Int64
        package var name: String
        package var path: String
        package var bytes: Int64
        package var sha256: String
        /// ISO 8601.
        package var receivedAt: String
        package var metadata: [String: JSONValue]?
        package init(
            from: String, transferId: Int64, name: String, path: String, bytes: Int64, sha256: String, receivedAt: String, metadata: [String: JSONValue]?
        ) {
            self.from = from
            self.transferId = transferId
            self.name = name
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
            self.receivedAt = receivedAt
            self.metadata = metadata
        }
    }
    package var outstanding: [Outstanding]
    package var received: [Received]
    package init(outstanding: [Outstanding], received: [Received]) {
        self.outstanding = outstanding
        self.received = received
    }
}

/// `received`: the userInfo dictionaries delivered to the app that are not flights, oldest first, in
/// typed JSON — a JSON array of them, as the apps always answered.
package struct ReceivedReply: ControlListReply {
    package var userInfos: [[String: JSONValue]]
    package init(_ userInfos: [[String: JSONValue]]) { self.userInfos = userInfos }

    package init(from decoder: any Decoder) throws { userInfos = try decoder.singleValueContainer().decode([[String: JSONValue]].self) }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(userInfos)
    }
}

/// `groups`: the groups of a view the user opened or closed (month key → expanded); the rest follow
/// their defaults.
package struct GroupsReply: ControlReply {
    package var view: String
    package var remembered: [String: Bool]
    package init(view: String, remembered: [String: Bool]) {
        self.view = view
        self.remembered = remembered
    }
}

/// `group-set`: the group remembered open or closed.
package struct GroupSetReply: ControlReply {
    package var view: String
    package var key: String
    package var expanded: Bool
    package init(view: String, key: String, expanded: Bool) {
        self.view = view
        self.key = key
        self.expanded = expanded
    }
}

/// `groups-reset`: how many remembered groups of the view were forgotten.
package struct GroupsResetReply: ControlReply {
    package var view: String
    package var forgotten: Int64
    package init(view: String, forgotten: Int64) {
        self.view = view
        self.forgotten = forgotten
    }
}

/// `delete`: the flight deleted.
package struct DeleteReply: ControlReply {
    package var deleted: String
    package init(deleted: String) { self.deleted = deleted }
}

/// `attach`: the connection is the app's UI now; the flights the app was holding for a UI that it saved
/// on attaching (`drained`). Events follow on the connection.
package struct AttachReply: ControlReply {
    package var attached: Bool
    package var drained: Int64
    package init(drained: Int64) {
        self.attached = true
        self.drained = drained
    }
}

// MARK: - The phone's reminders and its notification centre

/// A notification, pending or delivered, as the phone's notification centre (`notifications`) and the
/// reminders (`reminders`) list it: the times in ISO 8601, and in the centre's listing also in seconds.
package struct NotificationItem: ControlRecord {
    package var id: String
    package var fireAt: String
    /// Delivered ones only.
    package var deliveredAt: String?
    package var title: String
    package var body: String
    /// The language it was written in (`""`: none said); the reminders' delivered ones leave it out.
    package var language: String?
    /// The centre's listing only: the times as seconds since 1970, what the app's client reads.
    package var fireAtSeconds: Double?
    package var deliveredAtSeconds: Double?

    package init(
        id: String, fireAt: String, deliveredAt: String? = nil, title: String, body: String, language: String?, fireAtSeconds: Double? = nil,
        deliveredAtSeconds: Double? = nil
    ) {
        self.id = id
        self.fireAt = fireAt
        self.deliveredAt = deliveredAt
        self.title = title
        self.body = body
        self.language = language
        self.fireAtSeconds = fireAtSeconds
        self.deliveredAtSeconds = deliveredAtSeconds
    }
}

/// `notifications`: the notification centre — pending requests by fire date (at most `pendingLimit`) and
/// the delivered ones in delivery order.
package struct NotificationsReply: ControlReply {
    package var pendingLimit: Int64
    package var pending: [NotificationItem]
    package var delivered: [NotificationItem]
    package init(pendingLimit: Int64, pending: [NotificationItem], delivered: [NotificationItem]) {
        self.pendingLimit = pendingLimit
        self.pending = pending
        self.delivered = delivered
    }
}

/// `reminders`, `reminders-reschedule`: the rule, the last run's start (null: no runs) and the
/// reminders pending and delivered.
package struct RemindersReply: ControlReply {
    /// `current` (the ladder) or `legacy`.
    package var rule: String
    @NullIfNil package var lastRunAt: String?
    package var pending: [NotificationItem]
    package var delivered: [NotificationItem]
    package init(rule: String, lastRunAt: String?, pending: [NotificationItem], delivered: [NotificationItem]) {
        self.rule = rule
        self.lastRunAt = lastRunAt
        self.pending = pending
        self.delivered = delivered
    }
}
