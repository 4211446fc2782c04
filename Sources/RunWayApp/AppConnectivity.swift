import Foundation
import Posix
import PropertyLists
import Storage
import WatchConnectivity
import RunWayDomain

/// What both RunWay apps (phone and watch) do with the session's generic traffic — userInfo that is not
/// a flight, messages, application contexts — kept in one place so the two apps behave alike.
package final class AppConnectivity {
    /// The app's own store (in its container).
    package let database: Database
    private let logger: Logger
    private let schedule: (UInt64, @escaping () -> Void) -> Void
    /// Application contexts received since start-up (the durable one is the session's).
    package private(set) var contextsReceived = 0
    /// userInfo, complications and contexts received since launch: a background task for them may end.
    package private(set) var deliveries = 0
    /// Whether a transfer delivered again is taken as the one already stored (issue 51). `false` is the
    /// watch app before it (`watch-agent --received-transfers legacy`): each delivery counted, so a batch
    /// delivered again after a SIGKILL between the app's commit and the session's is counted twice.
    package var countsEachTransferOnce = true

    /// `schedule(ms, body)` runs `body` later on the app's thread (delayed message replies).
    package init(database: Database, logger: Logger, schedule: @escaping (UInt64, @escaping () -> Void) -> Void) {
        self.database = database
        self.logger = logger
        self.schedule = schedule
    }

    // MARK: - Each transfer once

    /// The lane a transfer came on (each numbers its own: `WCReceivedTransfer.transferIdentifier`).
    private static func lane(_ transfer: WCReceivedTransfer) -> String { transfer.isComplication ? "complication" : "userInfo" }

    /// Whether the app stored `transfer` already: delivery is at least once, and a batch whose app
    /// commit was durable but whose session cursor was not (a SIGKILL between them) comes again. A lane
    /// delivers in order and its numbers only grow (the session's cursor is their high-water mark), so
    /// the highest number stored per sender and lane says which ones the app has.
    func alreadyStored(_ transfer: WCReceivedTransfer) throws(StorageError) -> Bool {
        guard countsEachTransferOnce else { return false }
        let query = try database.statement("SELECT through FROM received_marks WHERE source_device = ? AND lane = ?")
        defer { query.reset() }
        try query.bind(transfer.senderDeviceID, at: 1)
        try query.bind(Self.lane(transfer), at: 2)
        guard try query.step() else { return false }
        return transfer.transferIdentifier <= query.int64(at: 0)
    }

    /// Notes `transfer` stored, in the batch's transaction.
    func markStored(_ transfer: WCReceivedTransfer) throws(StorageError) {
        let upsert = try database.statement(
            """
            INSERT INTO received_marks (source_device, lane, through) VALUES (?, ?, ?)
            ON CONFLICT (source_device, lane) DO UPDATE SET through = max(through, excluded.through)
            """)
        try upsert.bind(transfer.senderDeviceID, at: 1)
        try upsert.bind(Self.lane(transfer), at: 2)
        try upsert.bind(transfer.transferIdentifier, at: 3)
        try upsert.run()
    }

    /// Logs a transfer taken again and not counted.
    private func redelivered(_ transfer: WCReceivedTransfer) -> WCReceiveOutcome {
        logger.info("app.transfer-redelivered", ["seq": transfer.transferIdentifier, "lane": Self.lane(transfer), "action": "kept once"])
        return .accepted
    }

    // MARK: - userInfo that is not a flight

    /// Records a delivered userInfo in arrival order (inside the app's batch transaction), once.
    package func recordUserInfo(_ userInfo: UserInfo, transfer: WCReceivedTransfer) -> WCReceiveOutcome {
        deliveries += 1
        do {
            if try alreadyStored(transfer) { return redelivered(transfer) }
            try markStored(transfer)
            let insert = try database.statement(
                """
                INSERT INTO received_userinfo (source_device, transfer_seq, payload, received_at) VALUES (?, ?, ?, ?)
                """)
            try insert.bind(transfer.senderDeviceID, at: 1)
            try insert.bind(transfer.transferIdentifier, at: 2)
            try insert.bind(blob: PropertyListCodec.encode(userInfo), at: 3)
            try insert.bind(wallClockSeconds(), at: 4)
            try insert.run()
            return .accepted
        } catch {
            logger.error("app.userinfo-save-failed", ["seq": transfer.transferIdentifier, "error": "\(error)"])
            return error.kind == .full ? .insufficientSpace : .failed
        }
    }

    /// Complication data (the watch): it becomes what the complication shows, in the batch's transaction,
    /// and counts as one update however many times it is delivered.
    package func recordComplication(_ userInfo: UserInfo, transfer: WCReceivedTransfer) -> WCReceiveOutcome {
        deliveries += 1
        do {
            if try alreadyStored(transfer) { return redelivered(transfer) }
            try markStored(transfer)
            let upsert = try database.statement(
                """
                INSERT INTO complication_data (singleton, payload, transfer_seq, updates, received_at) VALUES (1, ?, ?, 1, ?)
                ON CONFLICT (singleton) DO UPDATE SET payload = excluded.payload, transfer_seq = excluded.transfer_seq,
                    updates = updates + 1, received_at = excluded.received_at
                """)
            try upsert.bind(blob: PropertyListCodec.encode(userInfo), at: 1)
            try upsert.bind(transfer.transferIdentifier, at: 2)
            try upsert.bind(wallClockSeconds(), at: 3)
            try upsert.run()
            logger.info("app.complication-updated", ["seq": transfer.transferIdentifier])
            return .accepted
        } catch {
            logger.error("app.complication-save-failed", ["seq": transfer.transferIdentifier, "error": "\(error)"])
            return error.kind == .full ? .insufficientSpace : .failed
        }
    }

    /// What the complication shows (the newest complication data, nil before any) and how many updates came.
    package func complication() throws -> (current: UserInfo?, updates: Int64) {
        let query = try database.statement("SELECT payload, updates FROM complication_data")
        defer { query.reset() }
        guard try query.step() else { return (nil, 0) }
        return (try? PropertyListCodec.decodeDictionary(query.blob(at: 0)), query.int64(at: 1))
    }

    /// The userInfo dictionaries delivered to this app, in arrival order, with where they came from.
    package func receivedUserInfo(limit: Int = 100_000) throws -> [(userInfo: UserInfo, seq: Int64, receivedAt: Double)] {
        try RunWayStoreReader(database: database).receivedUserInfo(limit: limit).map { ($0.userInfo ?? [:], $0.transferSeq, $0.receivedAt) }
    }

    package func receivedUserInfoCount() throws -> Int64 { try RunWayStoreReader(database: database).receivedUserInfoCount() }

    // MARK: - Messages

    /// The apps answer a message with what they received and when. Two keys steer the answer, so the
    /// sender's failure paths can be exercised: `replyDelayMs` delays the reply, `noReply: true` never
    /// replies (the sender then times out with `messageReplyTimedOut`).
    package func answer(_ message: UserInfo, from role: String, reply: @escaping (UserInfo) -> Void) {
        logger.info("app.message-received", ["keys": message.keys.sorted().joined(separator: ",")])
        if message["noReply"]?.boolValue == true { return }
        let answer: UserInfo = [
            "repliedBy": .string(role),
            "receivedAt": .date(wallClockSeconds()),
            "echo": .dictionary(message),
        ]
        if let delay = message["replyDelayMs"]?.int64Value, delay > 0 {
            schedule(UInt64(delay)) { reply(answer) }
        } else {
            reply(answer)
        }
    }

    /// A data message: the apps answer with the same bytes (the sender can check the round trip).
    package func answer(data: Data, reply: @escaping (Data) -> Void) {
        logger.info("app.message-data-received", ["bytes": data.count])
        reply(data)
    }

    /// A data message whose sender expects no reply: noted, nothing to answer.
    package func take(data: Data) {
        logger.info("app.message-data-received", ["bytes": data.count, "replyExpected": false])
    }

    /// A message whose sender expects no reply: noted, nothing to answer.
    package func take(_ message: UserInfo) {
        logger.info("app.message-received", ["keys": message.keys.sorted().joined(separator: ","), "replyExpected": false])
    }

    // MARK: - Finished transfers and contexts

    package func didFinish(_ transfer: WCSessionUserInfoTransfer, error: (any Error)?) {
        guard let error else { return }
        logger.info("app.transfer-finished", ["seq": transfer.transferIdentifier, "error": "\(error)"])
    }

    package func didReceiveApplicationContext(_ context: [String: Any]) {
        contextsReceived += 1
        deliveries += 1
        logger.info("app.context-received", ["keys": context.keys.sorted().joined(separator: ",")])
    }
}

/// What both apps' session delegates share: the session's generic traffic goes to `AppConnectivity`,
/// received userInfo is taken in batches in the app's own store (one transaction a batch, committed
/// before the session acknowledges anything). Only saving flights (phone) and recording runs (watch)
/// differ between them.
package class RunWaySessionDelegate: NSObject, WCSessionBatchDelegate {
    package let app: AppConnectivity
    /// Files: kept when they arrive, sent again when a transfer fails for want of space.
    package var files: AppFiles?
    let logger: Logger
    /// Which app this is (it signs its message replies).
    let appRole: String
    var onActivation: ((WCSessionActivationState, (any Error)?) -> Void)?
    /// The batch transaction is open.
    private var inBatch = false

    init(app: AppConnectivity, role: String, logger: Logger) {
        self.app = app
        self.appRole = role
        self.logger = logger
        super.init()
    }

    package func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: (any Error)?) {
        onActivation?(activationState, error)
    }

    /// The paired device was switched: activate again, as Apple asks apps to, to talk to the new one.
    package func sessionDidDeactivate(_ session: WCSession) {
        logger.notice("app.session-reactivating", ["reason": "paired device switched"])
        session.activate()
    }

    // MARK: - A batch of received userInfo: one transaction of the app's

    package func sessionWillReceiveUserInfoBatch(_ session: WCSession) {
        do {
            try app.database.begin()
            inBatch = true
        } catch {
            logger.error("app.batch-begin-failed", ["error": "\(error)"])
        }
    }

    package func sessionWillCommitUserInfoBatch(_ session: WCSession) throws {
        guard inBatch else { throw BatchNotOpen() }
        inBatch = false
        try app.database.commit()
    }

    package func sessionDidRollBackUserInfoBatch(_ session: WCSession, error: any Error) {
        if inBatch { app.database.rollback() }
        inBatch = false
        didRollBack()
    }

    /// The app could not open its transaction: nothing of the batch may be acknowledged.
    struct BatchNotOpen: Error, CustomStringConvertible {
        var description: String { "the app's store could not open the batch's transaction" }
    }

    /// Whatever the subclass holds for the batch is gone with the rollback.
    func didRollBack() {}

    // Every method a subclass specialises is implemented here and overridden there: a protocol's
    // default is chosen where the conformance is declared, so a subclass's own would never be called.

    package func sessionDidCommitUserInfoBatch(_ session: WCSession) {}

    package func session(_ session: WCSession, didReceiveEncodedUserInfo userInfo: UnsafeRawBufferPointer, transfer: WCReceivedTransfer) -> WCReceiveOutcome? {
        nil
    }

    package func session(_ session: WCSession, didReceiveUserInfo userInfo: UserInfo, transfer: WCReceivedTransfer) -> WCReceiveOutcome {
        transfer.isComplication ? app.recordComplication(userInfo, transfer: transfer) : app.recordUserInfo(userInfo, transfer: transfer)
    }

    package func sessionReachabilityDidChange(_ session: WCSession) {}
    package func sessionWatchStateDidChange(_ session: WCSession) {}

    // MARK: - The rest of the session's traffic

    package func session(_ session: WCSession, didFinish userInfoTransfer: WCSessionUserInfoTransfer, error: (any Error)?) {
        app.didFinish(userInfoTransfer, error: error)
    }

    package func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        app.didReceiveApplicationContext(applicationContext)
    }

    package func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        let typed = (try? WCSession.typed(message)) ?? [:]
        app.answer(typed, from: appRole) { replyHandler(WCSession.untyped($0)) }
    }

    package func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        app.take((try? WCSession.typed(message)) ?? [:])
    }

    package func session(_ session: WCSession, didReceiveMessageData messageData: Data, replyHandler: @escaping (Data) -> Void) {
        app.answer(data: messageData, reply: replyHandler)
    }

    package func session(_ session: WCSession, didReceiveMessageData messageData: Data) { app.take(data: messageData) }

    package func session(_ session: WCSession, didReceive file: WCSessionFile) { files?.keep(file) }
    /// The same, answering whether the file was kept: one that was not is not acknowledged.
    package func session(_ session: WCSession, didReceiveFile file: WCSessionFile) -> WCReceiveOutcome { files?.keep(file) ?? .notNow }

    package func session(_ session: WCSession, didFinish fileTransfer: WCSessionFileTransfer, error: (any Error)?) {
        files?.finished(fileTransfer, error: error, session: session)
    }
}
