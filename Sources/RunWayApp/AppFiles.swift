import Control
import Foundation
import JSONText
import Posix
import PropertyLists
import Storage
import WatchConnectivity
import RunWayDomain

/// What both RunWay apps do with files, on Apple's API: a received file is moved out of
/// `Documents/Inbox` (where the system deletes it once the callback returns) into `Documents/Received`,
/// and recorded in the app's store — once, by the sender's transfer id, so a file delivered again after a
/// crash replaces itself instead of appearing twice. A file transfer that fails for want of space or
/// delivery is sent again later, from the file the app gave, with a growing pause.
package final class AppFiles {
    let database: Database
    let logger: Logger
    let container: String
    private let schedule: (UInt64, @escaping () -> Void) -> Void
    /// Consecutive failed transfers, for the pause before the next retry (reset by one that finishes well).
    private var failures = 0

    package init(database: Database, container: String, logger: Logger, schedule: @escaping (UInt64, @escaping () -> Void) -> Void) {
        self.database = database
        self.container = container
        self.logger = logger
        self.schedule = schedule
    }

    static let migration = Migration(
        "app.files.1",
        """
        -- Files the counterpart sent, kept in Documents/Received: one row per sending device and
        -- transfer (a file delivered again after a crash replaces its row and its file).
        CREATE TABLE received_files (
            sender_device TEXT NOT NULL,
            transfer_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            path TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            metadata BLOB,
            received_at REAL NOT NULL,
            PRIMARY KEY (sender_device, transfer_id)
        ) STRICT;
        """)

    var keptDirectory: String { container + "/Documents/Received" }

    /// `session(_:didReceive:)`: moved into `Documents/Received` (the name says which transfer it was:
    /// `SENDER8-ID-NAME`, its stem cut to fit the file system's 255 bytes, its extension kept) and
    /// recorded, durably, before the callback returns — only then is it acknowledged. A file that could
    /// not be kept is not acknowledged: `.failed` (or `.insufficientSpace` for a full disk) leaves it
    /// with the system, which delivers it again on the next link.
    @discardableResult
    package func keep(_ file: WCSessionFile) -> WCReceiveOutcome {
        let name = FileNames.fitting(file.fileURL.lastPathComponent, prefix: "\(file.senderDeviceID.prefix(8))-\(file.transferIdentifier)-")
        let target = keptDirectory + "/" + name
        do {
            try Filesystem.makeDirectory(keptDirectory, mode: 0o700)
            try Filesystem.rename(file.fileURL.path, to: target)
            try Filesystem.syncDirectory(containing: target)
            let insert = try database.statement(
                """
                INSERT OR REPLACE INTO received_files (sender_device, transfer_id, name, path, bytes, sha256, metadata, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            try insert.bind(file.senderDeviceID, at: 1)
            try insert.bind(file.transferIdentifier, at: 2)
            try insert.bind(file.fileURL.lastPathComponent, at: 3)
            try insert.bind(target, at: 4)
            try insert.bind(file.byteCount, at: 5)
            try insert.bind(file.sha256, at: 6)
            if let metadata = file.metadata, let typed = try? WCSession.typed(metadata) {
                try insert.bind(blob: PropertyListCodec.encode(typed), at: 7)
            } else {
                try insert.bindNull(at: 7)
            }
            try insert.bind(wallClockSeconds(), at: 8)
            try insert.run()
            logger.info("app.file-kept", ["transfer": file.transferIdentifier, "bytes": file.byteCount, "path": target])
            return .accepted
        } catch {
            logger.error("app.file-not-kept", ["transfer": file.transferIdentifier, "error": "\(error)", "action": "not acknowledged; delivered again"])
            let full = (error as? SystemError)?.errno == ENOSPC || (error as? StorageError)?.kind == .full
            return full ? .insufficientSpace : .failed
        }
    }

    /// `session(_:didFinish:error:)` for a file: a failure for want of space, delivery or time is sent
    /// again later from the file the app gave (if it is still there), after 1 s, 2 s, 4 s … 30 s.
    package func finished(_ transfer: WCSessionFileTransfer, error: (any Error)?, session: WCSession) {
        guard let error else {
            failures = 0
            logger.info("app.file-sent", ["transfer": transfer.transferIdentifier])
            return
        }
        let code = (error as? WCError)?.code
        logger.warning("app.file-failed", ["transfer": transfer.transferIdentifier, "error": "\(error)"])
        guard code == .insufficientSpace || code == .deliveryFailed || code == .transferTimedOut else { return }
        failures += 1
        let delay = UInt64(min(30_000, 1000 << min(failures - 1, 5)))
        let url = transfer.file.fileURL
        nonisolated(unsafe) let metadata = transfer.file.metadata
        schedule(delay) { [weak self] in
            guard let self else { return }
            guard FileManager.default.fileExists(atPath: url.path) else {
                self.logger.error("app.file-requeue-failed", ["path": url.path, "reason": "the file is gone"])
                return
            }
            let again = session.transferFile(url, metadata: metadata)
            self.logger.notice("app.file-requeued", ["transfer": transfer.transferIdentifier, "newTransfer": again.transferIdentifier])
        }
    }

    /// `runway … files`: the outstanding transfers (with their progress) and the files kept.
    func listing(limit: Int) throws -> FilesReply {
        let outstanding = WCSession.default.outstandingFileTransfers.prefix(limit).map { transfer in
            FilesReply.Outstanding(
                transferId: transfer.transferIdentifier, name: transfer.file.fileURL.lastPathComponent, path: transfer.file.fileURL.path,
                bytes: transfer.file.byteCount, sha256: transfer.file.sha256, completedBytes: transfer.progress.completedUnitCount,
                isTransferring: transfer.isTransferring,
                metadata: transfer.file.metadata.flatMap { try? WCSession.typed($0).jsonObject })
        }
        let query = try database.statement(
            "SELECT sender_device, transfer_id, name, path, bytes, sha256, metadata, received_at FROM received_files ORDER BY received_at, transfer_id LIMIT ?")
        defer { query.reset() }
        try query.bind(limit, at: 1)
        var received: [FilesReply.Received] = []
        while try query.step() {
            let metadata = query.isNull(at: 6) ? nil : (try? PropertyListCodec.decodeDictionary(query.blob(at: 6)))?.jsonObject
            received.append(
                FilesReply.Received(
                    from: query.string(at: 0), transferId: query.int64(at: 1), name: query.string(at: 2), path: query.string(at: 3),
                    bytes: query.int64(at: 4), sha256: query.string(at: 5), receivedAt: Timestamp.iso8601(query.double(at: 7)), metadata: metadata))
        }
        return FilesReply(outstanding: Array(outstanding), received: received)
    }

    func receivedCount() throws -> Int64 { try database.scalarInt("SELECT count(*) FROM received_files") }

    /// Registers `files` on the app's router.
    func register(on router: ControlRouter) {
        router.on(ControlCommands.Files.self) { [unowned self] args in try listing(limit: args.limit) }
    }
}
