import Connectivity
import Digest
import Foundation
import PropertyLists

// MARK: - transferFile, as Apple's API has it, over the session's file lane

extension WCSession {
    /// `transferFile(_:metadata:)`: the checks on the device's thread, the copy into the session's queue
    /// on the caller's (a large file does not hold the device's loop when the app calls from its own
    /// thread), the queueing back on the device's. A failure finishes the transfer at once: its error in
    /// `session(_:didFinish:error:)`, nothing queued.
    func queueFile(_ file: URL, metadata: [String: Any]?) -> WCSessionFileTransfer {
        let untypedMetadata = metadata
        do {
            let typed = try metadata.map { try PropertyListBridge.typed($0) }
            guard let host, let session = host.session else {
                throw WCError(.sessionNotSupported, description: "this process is not an app on a simulated device")
            }
            try host.mailbox.sync { () throws -> Void in
                do { try session.checkFileTransfer(metadata: typed) } catch { throw WCError.from(error) }
            }
            let staged: FileRecord
            do { staged = try session.stageFile(file.path, metadata: typed) } catch { throw WCError(error) }
            let info = try host.mailbox.sync { () throws -> FileTransferInfo in
                do { return try session.transferFile(staged: staged) } catch { throw WCError.from(error) }
            }
            return registered(info, fileURL: file, metadata: untypedMetadata)
        } catch {
            let transfer = WCSessionFileTransfer(
                session: nil, identifier: 0, file: WCSessionFile(fileURL: file, metadata: untypedMetadata), totalBytes: 0)
            let failed = transfer
            later { [weak self] in
                guard let self, let delegate = self.delegate else { return }
                delegate.session(self, didFinish: failed, error: error)
            }
            return transfer
        }
    }

    /// The outstanding file transfers, oldest first: the objects `transferFile` returned while the app
    /// holds them (their progress moves), new ones for the rest.
    var queuedFiles: [WCSessionFileTransfer] {
        let infos: [FileTransferInfo] = onDevice([]) { (try? $0.outstandingFileTransfers(limit: Int.max)) ?? [] }
        return infos.map { info in
            let transfer = fileTransfer(info.seq) ?? registered(info, fileURL: URL(fileURLWithPath: info.record.source), metadata: nil)
            transfer.progress.completedUnitCount = max(transfer.progress.completedUnitCount, info.completedBytes)
            return transfer
        }
    }

    /// A transfer object for `info`, remembered (weakly) so that progress and `didFinish` reach the one
    /// the app holds.
    func registered(_ info: FileTransferInfo, fileURL: URL, metadata: [String: Any]?) -> WCSessionFileTransfer {
        let file = WCSessionFile(
            fileURL: fileURL, metadata: metadata ?? info.record.metadata.map(PropertyListBridge.untyped), transferIdentifier: info.seq,
            senderDeviceID: deviceIdentifier, byteCount: info.record.size, sha256: info.record.sha256.hexString)
        let transfer = WCSessionFileTransfer(session: self, identifier: info.seq, file: file, totalBytes: info.record.size)
        transfer.progress.completedUnitCount = info.completedBytes
        fileTransfersLock.lock()
        fileTransfers[info.seq] = WeakFileTransfer(transfer)
        fileTransfersLock.unlock()
        return transfer
    }

    func fileTransfer(_ seq: Int64) -> WCSessionFileTransfer? {
        fileTransfersLock.lock()
        defer { fileTransfersLock.unlock() }
        guard let found = fileTransfers[seq]?.value else {
            fileTransfers[seq] = nil
            return nil
        }
        return found
    }

    func forgetFileTransfer(_ seq: Int64) {
        fileTransfersLock.lock()
        fileTransfers[seq] = nil
        fileTransfersLock.unlock()
    }

    func isFileOutstanding(_ seq: Int64) -> Bool { onDevice(false) { $0.isFileOutstanding(seq: seq) } }

    func cancelFile(_ seq: Int64) { onDevice(()) { _ = try? $0.cancelFileTransfer(seq: seq) } }
}

/// A transfer object, held weakly by the session (the app owns it).
final class WeakFileTransfer {
    weak var value: WCSessionFileTransfer?
    init(_ value: WCSessionFileTransfer) { self.value = value }
}
