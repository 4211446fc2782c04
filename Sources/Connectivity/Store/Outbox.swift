import Posix
import Storage

/// A queued transfer as the sender keeps it until the counterpart acknowledges it.
package struct OutboxEntry: Sendable {
    package let seq: Int64
    package let kind: OutboxKind
    package let payload: [UInt8]
}

package enum OutboxKind: Int64, Sendable {
    case userInfo = 1
    /// A queued file: the payload is its descriptor (`FileDescriptorRecord`), the bytes are in the
    /// session's file queue.
    case file = 2
}

/// What cancelling a transfer came to.
package enum TransferCancellation: String, Sendable {
    /// It was queued: it is gone, and will never be delivered.
    case cancelled
    /// It had been cancelled before (among the last `Outbox.cancelledKept` cancellations).
    case alreadyCancelled
    /// The counterpart has it: acknowledged, and not cancelled.
    case delivered
    /// Sent on the current link and not yet acknowledged: it cannot be taken back.
    case onTheWire
    /// No transfer ever had that id on this device.
    case unknown
}

/// The sender's durable queue (`cx_outbox`): committed before `transferUserInfo` returns, read in
/// sequence order a page at a time (never the whole backlog), gone once acknowledged.
///
/// Sequence numbers are contiguous (`AUTOINCREMENT` in the enqueueing transaction), so the outbox is
/// described by watermarks (`cx_outbox_state`): an acknowledgement moves `acked_seq` (one small update,
/// however many transfers it covers), telling the app moves `reported_seq`, and the rows themselves are
/// deleted in bulk afterwards — the table emptied at once when everything is acknowledged. Deleting row
/// by row would rewrite every page of the backlog a second time. Counting is arithmetic, not a scan.
///
/// Delivered rows, ≥ `cleanupThreshold` of them, wait until the link is quiet (`pruneDelivered`, which
/// the session calls a second after the last acknowledgement), whether or not the outbox emptied:
/// emptying the table reads every page of it, and deleting a range is row by row in
/// SQLite, ~11,000 instructions a row with its b-tree rebalancing — as much as the rest of the sender's
/// work for a transfer — and between two batches of a drain it kept the receiver waiting. Past
/// `keptLimit`, whatever the link does, each acknowledgement deletes the oldest rows beyond it: no more
/// than it acknowledged, so the sender's loop never stops for long.
package final class Outbox {
    private let database: Database
    package let lane: TransferLane
    private let sql: OutboxSQL
    /// Bulk-delete acknowledged rows once this many linger (when the outbox never empties), when the
    /// link is quiet (`pruneDelivered`).
    package var cleanupThreshold: Int64 = 8192
    /// ... and the excess over this many at each acknowledgement, quiet or not: what an outbox that never
    /// empties and a link that is never quiet may keep of what was delivered.
    package var keptLimit: Int64 = 131_072

    package init(database: Database, lane: TransferLane = .userInfo) {
        self.database = database
        self.lane = lane
        sql = OutboxSQL.of(lane)
    }

    // MARK: - Queueing and reading

    /// Appends `payloads` inside the caller's transaction — whoever starts the unit of work opens it,
    /// visibly (`database.transaction { try outbox.enqueue(…) }`); nothing here joins or opens one
    /// behind the caller's back. Returns their sequence numbers, in order.
    package func enqueue(_ kind: OutboxKind, _ payloads: [[UInt8]], now: Double = wallClockSeconds()) throws -> [Int64] {
        assert(database.isInTransaction, "Outbox.enqueue runs inside the caller's transaction")
        let statement = try database.statement(literal: sql.insert)
        var seqs: [Int64] = []
        seqs.reserveCapacity(payloads.count)
        for payload in payloads {
            try statement.bind(kind.rawValue, at: 1)
            try statement.bind(blob: payload, at: 2)
            try statement.bind(now, at: 3)
            try statement.run()
            seqs.append(database.lastInsertRowID)
        }
        return seqs
    }

    /// Up to `limit` unacknowledged entries with a sequence number above `seq`, oldest first.
    package func entries(after seq: Int64, limit: Int) throws -> [OutboxEntry] {
        let query = try database.statement(literal: sql.entriesAfter)
        defer { query.reset() }
        let acked: Int64 = try watermarks().acked
        try query.bind(seq > acked ? seq : acked, at: 1)
        try query.bind(limit, at: 2)
        var result: [OutboxEntry] = []
        while try query.step() {
            result.append(
                OutboxEntry(
                    seq: query.int64(at: 0), kind: OutboxKind(rawValue: query.int64(at: 1)) ?? .userInfo,
                    payload: query.blob(at: 2)))
        }
        return result
    }

    /// The first `limit` outstanding entries (for listing them).
    package func first(_ limit: Int) throws -> [OutboxEntry] { try entries(after: 0, limit: limit) }

    /// How many transfers are outstanding: assigned, not acknowledged, not cancelled.
    package func count() throws -> Int {
        let acked = try watermarks().acked
        let cancelled = try database.statement(literal: sql.cancelledAfter)
        defer { cancelled.reset() }
        try cancelled.bind(acked, at: 1)
        let cancelledCount: Int64 = try cancelled.step() ? cancelled.int64(at: 0) : 0
        let assigned: Int64 = try lastAssignedSeq()
        let outstanding: Int64 = assigned - acked - cancelledCount
        return outstanding > 0 ? Int(outstanding) : 0
    }

    package func contains(seq: Int64) throws -> Bool {
        let acked: Int64 = try watermarks().acked
        guard seq > acked else { return false }
        let query = try database.statement(literal: sql.exists)
        defer { query.reset() }
        try query.bind(seq, at: 1)
        return try query.step()
    }

    /// The payload of entry `seq`, acknowledged or not, while its row is kept.
    package func payload(seq: Int64) throws -> [UInt8]? {
        let query = try database.statement(literal: sql.payload)
        defer { query.reset() }
        try query.bind(seq, at: 1)
        return try query.step() ? query.blob(at: 0) : nil
    }

    /// The highest sequence number ever assigned (0 if none).
    package func lastAssignedSeq() throws -> Int64 {
        try scalar(sql.lastAssigned)
    }

    package func watermarks() throws -> (acked: Int64, reported: Int64) {
        let query = try database.statement(literal: sql.watermarks)
        defer { query.reset() }
        guard try query.step() else { return (0, 0) }
        return (query.int64(at: 0), query.int64(at: 1))
    }

    // MARK: - Acknowledging, reporting, cancelling

    /// The counterpart has made everything up to and including `seq` durable.
    ///
    /// Not fsynced (`synchronous=NORMAL` for this one update): if an OS crash undid it, the transfers
    /// would be sent again and the receiver, which dedups by sequence number, would acknowledge them
    /// again without storing them twice. What must never be lost — the enqueue — is `FULL`.
    package func acknowledge(upTo seq: Int64) throws {
        try relaxed {
            let update = try database.statement(literal: sql.acknowledge)
            try update.bind(seq, at: 1)
            try update.run()
        }
    }

    /// Acknowledged transfers the app has not been told of yet (`didFinish`), oldest first.
    package func unreportedFinished() throws -> [Int64] {
        let (acked, reported) = try watermarks()
        guard acked > reported else { return [] }
        var cancelled = Set<Int64>()
        let query = try database.statement(literal: sql.cancelledBetween)
        defer { query.reset() }
        try query.bind(reported, at: 1)
        try query.bind(acked, at: 2)
        while try query.step() { cancelled.insert(query.int64(at: 0)) }
        var finished: [Int64] = []
        finished.reserveCapacity(Int(acked - reported))
        var seq: Int64 = reported + 1
        while seq <= acked {
            if !cancelled.contains(seq) { finished.append(seq) }
            seq += 1
        }
        return finished
    }

    /// The app has been told that everything up to `seq` finished: acknowledged rows can go.
    package func markReported(upTo seq: Int64) throws {
        let keptForThePrune = try relaxed {
            try database.transaction {
                let update = try database.statement(literal: sql.markReported)
                try update.bind(seq, at: 1)
                try update.run()
                let (acked, reported) = try watermarks()
                // Cancellations are kept past their report (so that a second cancel can say "already
                // cancelled", not "delivered"), the most recent `cancelledKept` of them.
                let prune = try database.statement(literal: sql.pruneCancelled)
                try prune.bind(reported, at: 1)
                try prune.run()
                return try removeDeliveredRows(acked: acked, reported: reported)
            }
        }
        // Everything delivered and reported, the rows left for the quiet second's prune: a crash here
        // leaves them to the next activation's.
        if keptForThePrune { CrashPoint.hit("send.delivered-rows-kept") }
    }

    /// Deletes rows nobody needs any more: everything at once when the whole outbox is acknowledged
    /// and reported and fewer than `cleanupThreshold` rows are kept, else only the oldest beyond
    /// `keptLimit` — the rest waits for a quiet link (`pruneDelivered`). Emptying a table is not free:
    /// SQLite reads every page of it to free them (~0.1 s for 100,000 transfers), which here, in the
    /// acknowledgement's handling, kept the last acknowledgement of a long drain from being seen until it
    /// was done. Nor is a range: deleting all 131,072 kept rows at once held the sender's loop 0.3–0.5 s in
    /// the middle of a drain, where the excess alone is about what the acknowledgement covered.
    /// Returns whether the outbox is all delivered and its rows were left for the prune.
    private func removeDeliveredRows(acked: Int64, reported: Int64) throws -> Bool {
        let done: Int64 = acked < reported ? acked : reported
        let assigned: Int64 = try lastAssignedSeq()
        let oldest: Int64 = try scalar(sql.oldest)
        guard oldest > 0 else { return false }
        if done >= assigned {
            guard done - oldest >= cleanupThreshold else {
                try database.statement(literal: sql.deleteAll).run()
                return false
            }
            return true
        }
        guard done - oldest >= keptLimit else { return false }
        let delete = try database.statement(literal: sql.deleteUpTo)
        try delete.bind(done - keptLimit, at: 1)
        try delete.run()
        return false
    }

    /// Whether at least `cleanupThreshold` delivered rows are kept: `pruneDelivered` would delete them.
    package func hasDeliveredToPrune() throws -> Bool {
        let (acked, reported) = try watermarks()
        let oldest: Int64 = try scalar(sql.oldest)
        return oldest > 0 && (acked < reported ? acked : reported) - oldest >= cleanupThreshold
    }

    /// Deletes the acknowledged and reported rows once `cleanupThreshold` of them linger, in one
    /// transaction, not fsynced (as the watermarks it follows: rows that came back after an OS crash would
    /// be delivered ones, which the watermarks skip). For a quiet moment: it costs the sender about as
    /// much per row as sending it did.
    package func pruneDelivered() throws {
        try relaxed {
            try database.transaction {
                let (acked, reported) = try watermarks()
                try deleteDelivered(upTo: acked < reported ? acked : reported, ifKeptAtLeast: cleanupThreshold)
            }
        }
    }

    private func deleteDelivered(upTo done: Int64, ifKeptAtLeast minimum: Int64) throws {
        let oldest: Int64 = try scalar(sql.oldest)
        guard oldest > 0, done - oldest >= minimum else { return }
        // Everything delivered: the table emptied at once (its pages freed, not its rows deleted one by
        // one with the b-tree rebalanced after each).
        if done >= (try lastAssignedSeq()) {
            try database.statement(literal: sql.deleteAll).run()
            return
        }
        let delete = try database.statement(literal: sql.deleteUpTo)
        try delete.bind(done, at: 1)
        try delete.run()
    }

    /// How many cancellations are remembered after they are reported (see `markReported`).
    package static let cancelledKept = 10_000

    /// Why `seq` could not be cancelled, when it is not queued (and not on the wire: the session knows that).
    package func whyNotCancelled(seq: Int64) throws -> TransferCancellation {
        guard seq > 0, seq <= (try lastAssignedSeq()) else { return .unknown }
        let query = try database.statement(literal: sql.isCancelled)
        defer { query.reset() }
        try query.bind(seq, at: 1)
        if try query.step() { return .alreadyCancelled }
        return .delivered
    }

    /// Removes one entry that has not been acknowledged yet; false if it is not queued any more.
    package func cancel(seq: Int64) throws -> Bool {
        let acked: Int64 = try watermarks().acked
        guard seq > acked else { return false }
        return try database.transaction {
            let delete = try database.statement(literal: sql.deleteOne)
            try delete.bind(seq, at: 1)
            try delete.run()
            guard database.changes > 0 else { return false }
            let record = try database.statement(literal: sql.recordCancelled)
            try record.bind(seq, at: 1)
            try record.run()
            return true
        }
    }

    /// The counterpart remembers more than this store ever assigned (a store restored from a copy):
    /// never reuse those numbers — new transfers would be taken for resends and dropped.
    package func skipSequence(to seq: Int64) throws {
        try database.transaction {
            try database.statement(literal: sql.seedSequence).run()
            let bump = try database.statement(literal: sql.bumpSequence)
            try bump.bind(seq, at: 1)
            try bump.run()
            // The skipped numbers never held a transfer: nothing to acknowledge or report there.
            let update = try database.statement(literal: sql.skipWatermarks)
            try update.bind(seq, at: 1)
            try update.bind(seq, at: 2)
            try update.run()
        }
    }

    /// The app was deleted: everything queued goes, as if finished — the watermarks move to the last
    /// number assigned, so no number is ever used again. Inside the caller's transaction.
    package func forgetEverything() throws {
        let last = try lastAssignedSeq()
        let watermarks = try database.statement(literal: sql.skipWatermarks)
        try watermarks.bind(last, at: 1)
        try watermarks.bind(last, at: 2)
        try watermarks.run()
        try database.statement(literal: sql.deleteAll).run()
        try database.statement(literal: sql.deleteCancelled).run()
    }

    private func relaxed<R>(_ body: () throws -> R) throws -> R { try database.with(.normal, body) }

    private func scalar(_ query: StaticString) throws -> Int64 {
        let statement = try database.statement(literal: query)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(at: 0) : 0
    }
}
