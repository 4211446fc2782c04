import Posix
import Storage

/// A received transfer that could not be delivered to the app and never will be: bytes the decoder
/// refuses, or a userInfo the app rejected as malformed.
///
/// The rule: **no transfer is ever acknowledged away.** Such a transfer is acknowledged (resending it
/// would give the same answer forever and wedge the link), but only once it is durable here, in the
/// same receive transaction that advances the cursor past it — kept byte for byte, with the reason,
/// until someone looks at it and removes it (`runway phone|watch quarantine`).
package struct QuarantinedTransfer: Sendable, Equatable {
    /// This quarantine entry's id (for `remove`).
    package let id: Int64
    package let peerDeviceID: String
    /// The sender's sequence number for the transfer.
    package let seq: Int64
    package let payload: [UInt8]
    package let reason: String
    package let quarantinedAt: Double
}

extension SessionStore {
    static let quarantineMigration = Migration(
        "connectivity.3",
        """
        -- Received transfers that could not be delivered to the app (undecodable, or rejected by it):
        -- kept, never silently acknowledged away.
        CREATE TABLE cx_quarantine (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            peer_device_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            payload BLOB NOT NULL,
            reason TEXT NOT NULL,
            quarantined_at REAL NOT NULL
        ) STRICT;
        """)
}

extension Session {
    /// Keeps a transfer the app cannot take; call inside the receive transaction.
    func quarantine(_ body: ArraySlice<UInt8>, _ transfer: ReceivedTransfer, reason: String) throws {
        try database.requireTransaction("quarantine a transfer")
        let insert = try database.statement(
            literal: """
                INSERT INTO cx_quarantine (peer_device_id, seq, payload, reason, quarantined_at) VALUES (?, ?, ?, ?, ?)
                """)
        try insert.bind(transfer.senderDeviceID, at: 1)
        try insert.bind(transfer.seq, at: 2)
        try insert.bind(blob: Array(body), at: 3)
        try insert.bind(String(reason.prefix(500)), at: 4)
        try insert.bind(wallClockSeconds(), at: 5)
        try insert.run()
    }

    /// How many transfers are in quarantine.
    package func quarantinedCount() throws -> Int {
        Int(try database.scalarInt("SELECT count(*) FROM cx_quarantine"))
    }

    /// The quarantined transfers, oldest first, at most `limit`.
    package func quarantined(limit: Int) throws -> [QuarantinedTransfer] {
        try SessionStoreReader(database: database).quarantined(limit: limit)
    }

    /// Removes one quarantined transfer (`id`), or all of them (nil); returns how many went.
    package func removeQuarantined(id: Int64?) throws -> Int {
        try database.transaction {
            if let id {
                let delete = try database.statement("DELETE FROM cx_quarantine WHERE id = ?")
                try delete.bind(id, at: 1)
                try delete.run()
            } else {
                try database.execute("DELETE FROM cx_quarantine")
            }
            let removed = database.changes
            if removed > 0 { logger.notice("quarantine.removed", ["id": id.map { "\($0)" } ?? "all", "transfers": removed]) }
            return removed
        }
    }
}
