import Control
import JSONText
import Posix
import Storage

/// The device's notification centre, as the OS keeps it (apps see it as `UNUserNotificationCenter`,
/// module `UserNotifications`): system state, kept in the OS's store so that it outlives the app's
/// process, as iOS keeps an app's pending notifications whether the app runs or not.
///
/// - `add`: the fire date must lie ahead of the device's `now` (Apple: a time-interval trigger must be
///   greater than 0 s); the same id replaces the request — keeping its place in the queue when only
///   its content changed (same fire date: a language change rewrites reminders' texts), else as new; past `pendingLimit` the earliest-added request
///   is dropped and logged (`notification.dropped`).
/// - `deliverDue(now:)`: every request whose fire date has come moves to *delivered*, exactly once (one
///   transaction), in fire order, with `deliveredAt = fireAt` — also when the daemon was down at that
///   moment and delivers at its next start.
package final class UserNotificationCenter {
    package static let pendingLimit = 64
    package static let deliveredHistory = 1000

    package static let migrations: [Migration] = [
        Migration(
            "notifications.1",
            """
            CREATE TABLE notifications_pending (
                id TEXT PRIMARY KEY NOT NULL,
                fire_at REAL NOT NULL,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                language TEXT NOT NULL,
                added_at REAL NOT NULL,
                -- The order of adding (device time can go backwards; this cannot).
                added_seq INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX notifications_pending_by_fire ON notifications_pending (fire_at, id);
            CREATE TABLE notifications_delivered (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL,
                fire_at REAL NOT NULL,
                delivered_at REAL NOT NULL,
                title TEXT NOT NULL,
                body TEXT NOT NULL,
                language TEXT NOT NULL
            ) STRICT;
            """)
    ]

    /// A pending request, as `UNNotificationRequest` with a date trigger holds it: declared with the call
    /// that carries it (`os-notifications-replace`'s `add`).
    package typealias Request = NotificationRequest.Pending

    package struct Delivered: Equatable, Sendable {
        package init(id: String, fireAt: Double, deliveredAt: Double, title: String, body: String, language: String) {
            self.id = id
            self.fireAt = fireAt
            self.deliveredAt = deliveredAt
            self.title = title
            self.body = body
            self.language = language
        }

        package var id: String
        package var fireAt: Double
        package var deliveredAt: Double
        package var title: String
        package var body: String
        package var language: String
    }

    package enum AddError: Error, Equatable, Sendable, CustomStringConvertible {
        case fireDateNotInFuture(id: String, fireAt: Double, now: Double)
        package var description: String {
            switch self {
            case let .fireDateNotInFuture(id, fireAt, now):
                "notification \(id) fires at \(Timestamp.iso8601(fireAt)), not after the device's now (\(Timestamp.iso8601(now))): not added"
            }
        }
    }

    package let database: Database
    private let logger: Logger

    package init(database: Database, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Runs `body` in a transaction of its own: the centre's store is the OS's, and every change to it
    /// is one unit of work (`replace` applies a whole batch of changes in one).
    private func atomically<R>(_ body: () throws -> R) throws -> R {
        try database.transaction(body)
    }

    /// Removes `remove`, then adds `add`, in one transaction: what an app changed in one go (a
    /// reminder ladder rescheduled) is durable all together or not at all. Returns the ids dropped to
    /// stay within the limit.
    @discardableResult
    package func replace(remove: [String], add: [Request], now: Double) throws -> [String] {
        for request in add where request.fireAt <= now {
            throw AddError.fireDateNotInFuture(id: request.id, fireAt: request.fireAt, now: now)
        }
        return try atomically {
            _ = try self.remove(remove)
            return try add.flatMap { try insert($0, now: now) }
        }
    }

    // MARK: - Pending

    /// Adds `request` (replacing one with its id); returns the ids dropped to stay within the limit.
    @discardableResult
    package func add(_ request: Request, now: Double) throws -> [String] {
        try replace(remove: [], add: [request], now: now)
    }

    private func insert(_ request: Request, now: Double) throws -> [String] {
        let insert = try database.statement(
            literal: """
                INSERT INTO notifications_pending (id, fire_at, title, body, language, added_at, added_seq)
                VALUES (?, ?, ?, ?, ?, ?, (SELECT coalesce(max(added_seq), 0) + 1 FROM notifications_pending))
                ON CONFLICT (id) DO UPDATE SET fire_at = excluded.fire_at, title = excluded.title,
                    body = excluded.body, language = excluded.language,
                    added_at = CASE WHEN fire_at = excluded.fire_at THEN added_at ELSE excluded.added_at END,
                    added_seq = CASE WHEN fire_at = excluded.fire_at THEN added_seq ELSE excluded.added_seq END
                """)
        try insert.bind(request.id, at: 1)
        try insert.bind(request.fireAt, at: 2)
        try insert.bind(request.title, at: 3)
        try insert.bind(request.body, at: 4)
        try insert.bind(request.language, at: 5)
        try insert.bind(now, at: 6)
        try insert.run()
        var dropped: [String] = []
        let excess = try database.scalarInt("SELECT count(*) FROM notifications_pending") - Int64(Self.pendingLimit)
        if excess > 0 {
            let oldest = try database.statement("SELECT id FROM notifications_pending ORDER BY added_seq LIMIT ?")
            defer { oldest.reset() }
            try oldest.bind(excess, at: 1)
            while try oldest.step() { dropped.append(oldest.string(at: 0)) }
            oldest.reset()
            _ = try remove(dropped)
        }
        logger.info("notification.added", ["id": request.id, "fireAt": Timestamp.iso8601(request.fireAt)])
        for id in dropped {
            logger.warning("notification.dropped", ["id": id, "reason": "pending-limit-\(Self.pendingLimit)"])
        }
        return dropped
    }

    /// Removes the pending requests with these ids; unknown ids are ignored. Returns how many went.
    @discardableResult
    package func removePending(_ ids: [String]) throws -> Int {
        try atomically { try remove(ids) }
    }

    private func remove(_ ids: [String]) throws -> Int {
        var removed = 0
        let delete = try database.statement(literal: "DELETE FROM notifications_pending WHERE id = ?")
        for id in ids {
            try delete.bind(id, at: 1)
            try delete.run()
            removed += database.changes
        }
        return removed
    }

    /// Pending requests by fire date, then id.
    package func pending() throws -> [Request] {
        let query = try database.statement(
            literal: """
                SELECT id, fire_at, title, body, language, added_at FROM notifications_pending ORDER BY fire_at, id
                """)
        defer { query.reset() }
        var result: [Request] = []
        while try query.step() {
            var request = Request(
                id: query.string(at: 0), fireAt: query.double(at: 1), title: query.string(at: 2),
                body: query.string(at: 3), language: query.string(at: 4))
            request.addedAt = query.double(at: 5)
            result.append(request)
        }
        return result
    }

    /// The earliest fire date pending, if any: when the daemon must next look.
    package func nextFireAt() throws -> Double? {
        let query = try database.statement(literal: "SELECT min(fire_at) FROM notifications_pending")
        defer { query.reset() }
        guard try query.step(), !query.isNull(at: 0) else { return nil }
        return query.double(at: 0)
    }

    // MARK: - Delivery

    /// Delivers every request due at `now`, in fire order (then id), each exactly once: moved from
    /// pending to delivered in one transaction, with `deliveredAt = fireAt`. The history keeps the last
    /// `deliveredHistory`.
    @discardableResult
    package func deliverDue(now: Double) throws -> [Delivered] {
        let due = try pending().filter { $0.fireAt <= now }
        guard !due.isEmpty else { return [] }
        try atomically {
            let insert = try database.statement(
                literal: """
                    INSERT INTO notifications_delivered (id, fire_at, delivered_at, title, body, language) VALUES (?, ?, ?, ?, ?, ?)
                    """)
            for request in due {
                try insert.bind(request.id, at: 1)
                try insert.bind(request.fireAt, at: 2)
                try insert.bind(request.fireAt, at: 3)
                try insert.bind(request.title, at: 4)
                try insert.bind(request.body, at: 5)
                try insert.bind(request.language, at: 6)
                try insert.run()
            }
            _ = try remove(due.map(\.id))
            try database.execute(
                """
                DELETE FROM notifications_delivered WHERE seq <= (SELECT max(seq) FROM notifications_delivered) - \(Self.deliveredHistory)
                """)
        }
        let delivered = due.map {
            Delivered(id: $0.id, fireAt: $0.fireAt, deliveredAt: $0.fireAt, title: $0.title, body: $0.body, language: $0.language)
        }
        for item in delivered {
            logger.info("notification.delivered", ["id": item.id, "fireAt": Timestamp.iso8601(item.fireAt), "deviceNow": Timestamp.iso8601(now)])
        }
        return delivered
    }

    /// Forgets delivered notifications: those with these ids, or all of them (nil).
    package func removeDelivered(_ ids: [String]?) throws {
        guard let ids else { return try database.execute("DELETE FROM notifications_delivered") }
        let delete = try database.statement(literal: "DELETE FROM notifications_delivered WHERE id = ?")
        try atomically {
            for id in ids {
                try delete.bind(id, at: 1)
                try delete.run()
            }
        }
    }

    /// Delivered notifications in delivery order (the last `deliveredHistory`).
    package func delivered() throws -> [Delivered] {
        let query = try database.statement(
            literal: """
                SELECT id, fire_at, delivered_at, title, body, language FROM notifications_delivered ORDER BY seq
                """)
        defer { query.reset() }
        return try query.rows { row in
            Delivered(
                id: row.string(at: 0), fireAt: row.double(at: 1), deliveredAt: row.double(at: 2), title: row.string(at: 3), body: row.string(at: 4),
                language: row.string(at: 5))
        }
    }
}

// MARK: - JSON

extension UserNotificationCenter.Request {
    /// As `notifications` lists it.
    package var item: NotificationItem {
        NotificationItem(id: id, fireAt: Timestamp.iso8601(fireAt), title: title, body: body, language: language, fireAtSeconds: fireAt)
    }

    /// A request as the app's client reads it from `notifications`; nil without its seconds.
    package init?(_ item: NotificationItem) {
        guard let seconds = item.fireAtSeconds else { return nil }
        self.init(id: item.id, fireAt: seconds, title: item.title, body: item.body, language: item.language ?? "")
    }
}

extension UserNotificationCenter.Delivered {
    /// As `notifications` lists it, and as the running app is told it (with `event`).
    package var item: NotificationItem {
        NotificationItem(
            id: id, fireAt: Timestamp.iso8601(fireAt), deliveredAt: Timestamp.iso8601(deliveredAt), title: title, body: body, language: language,
            fireAtSeconds: fireAt, deliveredAtSeconds: deliveredAt)
    }

    package var json: JSONValue { item.json }

    /// A delivery as the app's client reads it; nil without its seconds.
    package init?(_ item: NotificationItem) {
        guard let fireAt = item.fireAtSeconds, let deliveredAt = item.deliveredAtSeconds else { return nil }
        self.init(id: item.id, fireAt: fireAt, deliveredAt: deliveredAt, title: item.title, body: item.body, language: item.language ?? "")
    }
}
