import Posix
import Storage

/// A queued transfer as the sender keeps it until the counterpart acknowledges it.
public struct OutboxEntry: Sendable {
    public let seq: Int64
    public let kind: OutboxKind
    public let payload: [UInt8]
}

public enum OutboxKind: Int64, Sendable {
    case userInfo = 1
}

/// The sender's durable queue (`cx_outbox`): committed before `transferUserInfo` returns, read in
/// sequence order a page at a time (never the whole backlog), deleted once acknowledged.
public final class Outbox {
    private let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Appends `payloads` in one transaction (or in the caller's, if one is open); returns their
    /// sequence numbers, in order.
    public func enqueue(_ kind: OutboxKind, _ payloads: [[UInt8]], now: Double = wallClockSeconds()) throws -> [Int64] {
        let insert = { () throws -> [Int64] in
            let statement = try self.database.statement(
                "INSERT INTO cx_outbox (kind, payload, created_at) VALUES (?, ?, ?)")
            var seqs: [Int64] = []
            seqs.reserveCapacity(payloads.count)
            for payload in payloads {
                try statement.bind(kind.rawValue, at: 1)
                try statement.bind(blob: payload, at: 2)
                try statement.bind(now, at: 3)
                try statement.run()
                seqs.append(self.database.lastInsertRowID)
            }
            return seqs
        }
        return database.isInTransaction ? try insert() : try database.transaction(insert)
    }

    /// Up to `limit` entries with a sequence number above `seq`, oldest first.
    public func entries(after seq: Int64, limit: Int) throws -> [OutboxEntry] {
        let query = try database.statement("SELECT seq, kind, payload FROM cx_outbox WHERE seq > ? ORDER BY seq LIMIT ?")
        defer { query.reset() }
        try query.bind(seq, at: 1)
        try query.bind(limit, at: 2)
        var result: [OutboxEntry] = []
        while try query.step() {
            result.append(OutboxEntry(
                seq: query.int64(at: 0), kind: OutboxKind(rawValue: query.int64(at: 1)) ?? .userInfo,
                payload: query.blob(at: 2)))
        }
        return result
    }

    /// Deletes every entry up to and including `seq`, the counterpart having made them durable, and
    /// records them in `cx_finished` (in the same transaction) until the app has been told; returns
    /// the sequence numbers deleted.
    ///
    /// Not fsynced (`synchronous=NORMAL` for this transaction only): if an OS crash undid the delete,
    /// the transfers would be sent again and the receiver, which dedups by sequence number, would
    /// acknowledge them without storing them twice. What must never be lost — the enqueue — is `FULL`.
    @discardableResult
    public func acknowledge(upTo seq: Int64, now: Double = wallClockSeconds()) throws -> [Int64] {
        try database.setDurability(.normal)
        defer { try? database.setDurability(.full) }
        return try database.transaction {
            let delete = try database.statement("DELETE FROM cx_outbox WHERE seq <= ? RETURNING seq")
            defer { delete.reset() }
            try delete.bind(seq, at: 1)
            var deleted: [Int64] = []
            while try delete.step() { deleted.append(delete.int64(at: 0)) }
            delete.reset()
            let record = try database.statement("INSERT OR IGNORE INTO cx_finished (seq, finished_at) VALUES (?, ?)")
            for finished in deleted {
                try record.bind(finished, at: 1)
                try record.bind(now, at: 2)
                try record.run()
            }
            return deleted.sorted()
        }
    }

    /// Finished transfers the app has not been told of yet, oldest first.
    public func unreportedFinished(limit: Int = 100_000) throws -> [Int64] {
        let query = try database.statement("SELECT seq FROM cx_finished ORDER BY seq LIMIT ?")
        defer { query.reset() }
        try query.bind(limit, at: 1)
        var seqs: [Int64] = []
        while try query.step() { seqs.append(query.int64(at: 0)) }
        return seqs
    }

    /// The app has been told that everything up to `seq` finished.
    public func forgetFinished(upTo seq: Int64) throws {
        try database.setDurability(.normal)
        defer { try? database.setDurability(.full) }
        let delete = try database.statement("DELETE FROM cx_finished WHERE seq <= ?")
        try delete.bind(seq, at: 1)
        try delete.run()
    }

    /// Removes one entry that has not been acknowledged yet; false if it is not queued any more.
    public func cancel(seq: Int64) throws -> Bool {
        let delete = try database.statement("DELETE FROM cx_outbox WHERE seq = ?")
        try delete.bind(seq, at: 1)
        try delete.run()
        return database.changes > 0
    }

    public func count() throws -> Int {
        Int(try database.scalarInt("SELECT count(*) FROM cx_outbox"))
    }

    /// Up to `limit` queued entries, oldest first (for listing outstanding transfers).
    public func first(_ limit: Int) throws -> [OutboxEntry] { try entries(after: 0, limit: limit) }

    public func contains(seq: Int64) throws -> Bool {
        let query = try database.statement("SELECT 1 FROM cx_outbox WHERE seq = ?")
        defer { query.reset() }
        try query.bind(seq, at: 1)
        return try query.step()
    }

    /// The highest sequence number ever assigned (0 if none).
    public func lastAssignedSeq() throws -> Int64 {
        try database.scalarInt("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'cx_outbox'), 0)")
    }
}
