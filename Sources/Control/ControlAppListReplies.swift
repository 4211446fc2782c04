import JSONText

// MARK: - What the RunWay apps keep: files, userInfo received, the logbook's groups, a UI attached

/// `files`: the file transfers outstanding (with the bytes the counterpart has made durable) and the
/// files received (where the app keeps them).
public struct FilesReply: ControlReply {
    public struct Outstanding: Codable, Sendable, Equatable {
        public var transferId: Int64
        public var name: String
        public var path: String
        public var bytes: Int64
        public var sha256: String
        public var completedBytes: Int64
        public var isTransferring: Bool
        /// Typed JSON; absent without metadata.
        public var metadata: [String: JSONValue]?
        public init(
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
    public struct Received: Codable, Sendable, Equatable {
        /// The sender's device id.
        public var from: String
        public var transferId: Int64
        public var name: String
        public var path: String
        public var bytes: Int64
        public var sha256: String
        /// ISO 8601.
        public var receivedAt: String
        public var metadata: [String: JSONValue]?
        public init(
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
    public var outstanding: [Outstanding]
    public var received: [Received]
    public init(outstanding: [Outstanding], received: [Received]) {
        self.outstanding = outstanding
        self.received = received
    }
}

/// `received`: the userInfo dictionaries delivered to the app that are not flights, oldest first, in
/// typed JSON — a JSON array of them, as the apps always answered.
public struct ReceivedReply: ControlListReply {
    public var userInfos: [[String: JSONValue]]
    public init(_ userInfos: [[String: JSONValue]]) { self.userInfos = userInfos }

    public init(from decoder: any Decoder) throws { userInfos = try decoder.singleValueContainer().decode([[String: JSONValue]].self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(userInfos)
    }
}

/// `groups`: the groups of a view the user opened or closed (month key → expanded); the rest follow
/// their defaults.
public struct GroupsReply: ControlReply {
    public var view: String
    public var remembered: [String: Bool]
    public init(view: String, remembered: [String: Bool]) {
        self.view = view
        self.remembered = remembered
    }
}

/// `group-set`: the group remembered open or closed.
public struct GroupSetReply: ControlReply {
    public var view: String
    public var key: String
    public var expanded: Bool
    public init(view: String, key: String, expanded: Bool) {
        self.view = view
        self.key = key
        self.expanded = expanded
    }
}

/// `groups-reset`: how many remembered groups of the view were forgotten.
public struct GroupsResetReply: ControlReply {
    public var view: String
    public var forgotten: Int64
    public init(view: String, forgotten: Int64) {
        self.view = view
        self.forgotten = forgotten
    }
}

/// `delete`: the flight deleted.
public struct DeleteReply: ControlReply {
    public var deleted: String
    public init(deleted: String) { self.deleted = deleted }
}

/// `attach`: the connection is the app's UI now; the flights the app was holding for a UI that it saved
/// on attaching (`drained`). Events follow on the connection.
public struct AttachReply: ControlReply {
    public var attached: Bool
    public var drained: Int64
    public init(drained: Int64) {
        self.attached = true
        self.drained = drained
    }
}

// MARK: - The phone's reminders and its notification centre

/// A notification, pending or delivered, as the phone's notification centre (`notifications`) and the
/// reminders (`reminders`) list it: the times in ISO 8601, and in the centre's listing also in seconds.
public struct NotificationItem: ControlRecord {
    public var id: String
    public var fireAt: String
    /// Delivered ones only.
    public var deliveredAt: String?
    public var title: String
    public var body: String
    /// The language it was written in (`""`: none said); the reminders' delivered ones leave it out.
    public var language: String?
    /// The centre's listing only: the times as seconds since 1970, what the app's client reads.
    public var fireAtSeconds: Double?
    public var deliveredAtSeconds: Double?

    public init(
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
public struct NotificationsReply: ControlReply {
    public var pendingLimit: Int64
    public var pending: [NotificationItem]
    public var delivered: [NotificationItem]
    public init(pendingLimit: Int64, pending: [NotificationItem], delivered: [NotificationItem]) {
        self.pendingLimit = pendingLimit
        self.pending = pending
        self.delivered = delivered
    }
}

/// `reminders`, `reminders-reschedule`: the rule, the last run's start (null: no runs) and the
/// reminders pending and delivered.
public struct RemindersReply: ControlReply {
    /// `current` (the ladder) or `legacy`.
    public var rule: String
    @NullIfNil public var lastRunAt: String?
    public var pending: [NotificationItem]
    public var delivered: [NotificationItem]
    public init(rule: String, lastRunAt: String?, pending: [NotificationItem], delivered: [NotificationItem]) {
        self.rule = rule
        self.lastRunAt = lastRunAt
        self.pending = pending
        self.delivered = delivered
    }
}
