import Posix
import Storage

/// The receiver's record of files arriving (`cx_file_inbox`): one row per sending device and transfer
/// while it arrives — its description, how many of its bytes are durable in the staged file, and the
/// running SHA-256 at that point — so a receiver killed at any moment resumes from the last durable
/// chunk, hashing on from where it was. The row goes in the transaction that moves the file lane's
/// cursor (the file delivered).
struct FileInbox {
    let database: Database

    struct Row: Equatable {
        var description: FileDescription
        var durable: Int64
        /// `SHA256.checkpoint` after `durable` bytes; empty when it could not be saved (then the staged
        /// bytes are hashed again on resume).
        var hashState: [UInt8]
    }

    static let migration = Migration(
        "connectivity.5",
        """
        -- Files being received, one row per sending device and transfer until it is delivered: the
        -- file's description (name, size, SHA-256, metadata), how many bytes of the staged file
        -- (HOME/files/in/PEER-SEQ) are durable, and the running SHA-256 at that point.
        CREATE TABLE cx_file_inbox (
            peer_device_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            description BLOB NOT NULL,
            durable_offset INTEGER NOT NULL,
            hash_state BLOB NOT NULL,
            PRIMARY KEY (peer_device_id, seq)
        ) STRICT;
        """)

    func row(peer: String, seq: Int64) throws -> Row? {
        let query = try database.statement(literal: "SELECT description, durable_offset, hash_state FROM cx_file_inbox WHERE peer_device_id = ? AND seq = ?")
        defer { query.reset() }
        try query.bind(peer, at: 1)
        try query.bind(seq, at: 2)
        guard try query.step() else { return nil }
        guard let description = try? FileDescription(decoding: query.blob(at: 0)) else { return nil }
        return Row(description: description, durable: query.int64(at: 1), hashState: query.blob(at: 2))
    }

    /// Starts (or restarts from nothing) the row of transfer `seq`.
    func begin(peer: String, seq: Int64, description: FileDescription, hashState: [UInt8]) throws {
        let insert = try database.statement(
            literal: """
                INSERT OR REPLACE INTO cx_file_inbox (peer_device_id, seq, description, durable_offset, hash_state) VALUES (?, ?, ?, 0, ?)
                """)
        try insert.bind(peer, at: 1)
        try insert.bind(seq, at: 2)
        try insert.bind(blob: description.encoded, at: 3)
        try insert.bind(blob: hashState, at: 4)
        try insert.run()
    }

    /// The first `durable` bytes are on disk (fsynced before this is called).
    func advance(peer: String, seq: Int64, durable: Int64, hashState: [UInt8]) throws {
        let update = try database.statement(
            literal: "UPDATE cx_file_inbox SET durable_offset = ?, hash_state = ? WHERE peer_device_id = ? AND seq = ?")
        try update.bind(durable, at: 1)
        try update.bind(blob: hashState, at: 2)
        try update.bind(peer, at: 3)
        try update.bind(seq, at: 4)
        try update.run()
    }

    func remove(peer: String, seq: Int64) throws {
        let delete = try database.statement(literal: "DELETE FROM cx_file_inbox WHERE peer_device_id = ? AND seq = ?")
        try delete.bind(peer, at: 1)
        try delete.bind(seq, at: 2)
        try delete.run()
    }

    /// Rows of `peer` before `seq`: transfers the sender gave up (cancelled or failed) while this side was
    /// away. Returned so their staged files can go too.
    func removeBefore(peer: String, seq: Int64) throws -> [Int64] {
        let query = try database.statement(literal: "SELECT seq FROM cx_file_inbox WHERE peer_device_id = ? AND seq < ?")
        defer { query.reset() }
        try query.bind(peer, at: 1)
        try query.bind(seq, at: 2)
        var seqs: [Int64] = []
        while try query.step() { seqs.append(query.int64(at: 0)) }
        for old in seqs { try remove(peer: peer, seq: old) }
        return seqs
    }

    /// Every row's sending device and transfer (the staged files to keep).
    func all() throws -> [(peer: String, seq: Int64)] {
        let query = try database.statement(literal: "SELECT peer_device_id, seq FROM cx_file_inbox")
        defer { query.reset() }
        var rows: [(String, Int64)] = []
        while try query.step() { rows.append((query.string(at: 0), query.int64(at: 1))) }
        return rows
    }
}
