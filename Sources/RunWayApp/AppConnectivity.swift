import Connectivity
import Posix
import Storage
import PropertyLists

/// What both RunWay apps (phone and watch) do with the session's generic traffic — userInfo that is not
/// a flight, messages, application contexts, finished transfers — kept in one place so the two apps
/// behave alike.
public final class AppConnectivity {
    public let database: Database
    private let logger: Logger
    private let schedule: (UInt64, @escaping () -> Void) -> Void
    /// The most recent `didFinish` calls, newest last (for `runway ... transfers`).
    public private(set) var recentlyFinished = RecentItems<FinishedTransfer>(capacity: 1000)
    public private(set) var finishedCount = 0
    /// Application contexts received since start-up (the durable one is the session's).
    public private(set) var contextsReceived = 0
    /// Messages whose sender expected no reply (`didReceiveMessage` without a reply handler) since
    /// start-up, and the latest of them (`runway ... status --json`).
    public private(set) var messagesWithoutReply = 0
    public private(set) var lastMessageWithoutReply: UserInfo?

    /// `schedule(ms, body)` runs `body` later on the app's thread (delayed message replies).
    public init(database: Database, logger: Logger, schedule: @escaping (UInt64, @escaping () -> Void) -> Void) {
        self.database = database
        self.logger = logger
        self.schedule = schedule
    }

    // MARK: - userInfo that is not a flight

    /// Records a delivered userInfo in arrival order (inside the receive transaction).
    public func recordUserInfo(_ userInfo: UserInfo, transfer: ReceivedTransfer) -> ReceiveOutcome {
        do {
            let insert = try database.statement(
                """
                INSERT INTO received_userinfo (source_device, transfer_seq, payload, received_at) VALUES (?, ?, ?, ?)
                """)
            try insert.bind(transfer.senderDeviceID, at: 1)
            try insert.bind(transfer.seq, at: 2)
            try insert.bind(blob: PropertyListCodec.encode(userInfo), at: 3)
            try insert.bind(wallClockSeconds(), at: 4)
            try insert.run()
            return .accepted
        } catch {
            logger.error("app.userinfo-save-failed", ["seq": transfer.seq, "error": "\(error)"])
            return .failed
        }
    }

    /// The userInfo dictionaries delivered to this app, in arrival order, with where they came from.
    public func receivedUserInfo(limit: Int = 100_000) throws -> [(userInfo: UserInfo, seq: Int64, receivedAt: Double)] {
        let query = try database.statement(
            "SELECT payload, transfer_seq, received_at FROM received_userinfo ORDER BY arrival LIMIT ?")
        defer { query.reset() }
        try query.bind(limit, at: 1)
        var result: [(UserInfo, Int64, Double)] = []
        while try query.step() {
            let userInfo = (try? PropertyListCodec.decodeDictionary(query.blob(at: 0))) ?? [:]
            result.append((userInfo, query.int64(at: 1), query.double(at: 2)))
        }
        return result
    }

    // MARK: - Messages

    /// The apps answer a message with what they received and when. Two keys steer the answer, so the
    /// sender's failure paths can be exercised: `replyDelayMs` delays the reply, `noReply: true` never
    /// replies (the sender then times out with `messageReplyTimedOut`).
    public func answer(_ message: UserInfo, from role: DeviceRole, reply: @escaping (UserInfo) -> Void) {
        logger.info("app.message-received", ["keys": message.keys.sorted().joined(separator: ",")])
        if message["noReply"]?.boolValue == true { return }
        let answer: UserInfo = [
            "repliedBy": .string(role.rawValue),
            "receivedAt": .date(wallClockSeconds()),
            "echo": .dictionary(message),
        ]
        if let delay = message["replyDelayMs"]?.int64Value, delay > 0 {
            schedule(UInt64(delay)) { reply(answer) }
        } else {
            reply(answer)
        }
    }

    /// A message whose sender expects no reply: noted, nothing to answer.
    public func take(_ message: UserInfo) {
        messagesWithoutReply += 1
        lastMessageWithoutReply = message
        logger.info("app.message-received", ["keys": message.keys.sorted().joined(separator: ","), "replyExpected": false])
    }

    // MARK: - Finished transfers and contexts

    public func didFinish(_ transfer: FinishedTransfer, error: WCError?) {
        var kept = transfer
        kept.userInfo = nil
        kept.error = error
        recentlyFinished.append(kept)
        finishedCount += 1
        if transfer.replayed || error != nil {
            logger.info("app.transfer-finished", ["seq": transfer.seq, "replayed": transfer.replayed, "error": error.map { "\($0)" } ?? "none"])
        }
    }

    public func didReceiveApplicationContext(_ context: UserInfo) {
        contextsReceived += 1
        logger.info("app.context-received", ["keys": context.keys.sorted().joined(separator: ",")])
    }
}

/// The last `capacity` items, oldest first.
public struct RecentItems<Element: Sendable>: Sendable {
    public let capacity: Int
    public private(set) var items: [Element] = []

    public init(capacity: Int) { self.capacity = capacity }

    public mutating func append(_ item: Element) {
        items.append(item)
        if items.count > capacity * 2 { items.removeFirst(items.count - capacity) }
    }

    public var last: [Element] { Array(items.suffix(capacity)) }
}

/// What both apps' session delegates share: the session's generic traffic goes to `AppConnectivity`.
/// Only saving flights (phone) and recording runs (watch) differ between them.
public protocol RunWaySessionDelegate: SessionDelegate {
    var app: AppConnectivity { get }
    /// Which app this is (it signs its message replies).
    var appRole: DeviceRole { get }
}

extension RunWaySessionDelegate {
    public func session(_ session: Session, didFinish transfer: FinishedTransfer, error: WCError?) {
        app.didFinish(transfer, error: error)
    }

    public func session(_ session: Session, didReceiveApplicationContext context: UserInfo) {
        app.didReceiveApplicationContext(context)
    }

    public func session(_ session: Session, didReceiveMessage message: UserInfo, reply: @escaping (UserInfo) -> Void) {
        app.answer(message, from: appRole, reply: reply)
    }

    public func session(_ session: Session, didReceiveMessage message: UserInfo) {
        app.take(message)
    }
}
