import Digest
import Posix
import PropertyLists
import Storage

/// A queued file transfer as its sender sees it (`WCSessionFileTransfer`).
package struct FileTransferInfo: Sendable, Equatable {
    /// The transfer's id: its sequence number in the file lane.
    package let seq: Int64
    package let record: FileRecord
    /// Bytes the receiver has made durable (the progress), as far as this side knows.
    package var completedBytes: Int64 = 0

    package init(seq: Int64, record: FileRecord, completedBytes: Int64 = 0) {
        self.seq = seq
        self.record = record
        self.completedBytes = completedBytes
    }
}

/// The file this side is sending on the current link: its queued copy, open.
struct SendingFile {
    let seq: Int64
    let record: FileRecord
    let descriptor: FileDescriptor
}

// MARK: - transferFile: the file lane, sender's side

extension Session {
    /// The session's file store (`HOME/files`), when the device gave it one.
    package var fileQueue: FileQueue? { configuration.fileDirectory.map(FileQueue.init(root:)) }

    /// What `transferFile` checks before copying anything: an activated session, a counterpart app,
    /// metadata that is a property list within the limit. Returns the metadata as it will travel.
    package func checkFileTransfer(metadata: UserInfo?) throws(WCError) {
        try requireActivated()
        try requireCounterpartApp()
        guard fileQueue != nil else { throw WCError(.genericError, "this device keeps no file queue") }
        if let metadata { _ = try encodeChecked(metadata, limit: configuration.userInfoByteLimit, what: "file metadata") }
    }

    /// Copies `path` into the queue (`FileQueue.stage`); any thread may call it. The file is not queued
    /// until `transferFile(staged:)`.
    package func stageFile(_ path: String, metadata: UserInfo?) throws(WCError) -> FileRecord {
        guard let fileQueue else { throw WCError(.genericError, "this device keeps no file queue") }
        return try fileQueue.stage(source: path, metadata: metadata)
    }

    /// Queues a staged file: one row in the file lane, committed (fsync) before this returns; sent in
    /// order with other files, in chunks, resumed where the receiver left off after anything. A refusal
    /// removes the staged copy.
    package func transferFile(staged record: FileRecord) throws -> FileTransferInfo {
        do {
            try checkFileTransfer(metadata: record.metadata)
            let seq = try database.transaction { try fileOutbox.enqueue(.file, [record.encoded])[0] }
            logger.info("file.queued", ["seq": seq, "bytes": record.size, "sha256": record.sha256.hexString])
            loop.deferToEndOfIteration { [weak self] in self?.pump() }
            return FileTransferInfo(seq: seq, record: record)
        } catch {
            if let fileQueue { unlink(fileQueue.storedPath(record.stored)) }
            throw error
        }
    }

    /// `transferFile` on the loop's thread: checks, copies, queues.
    package func transferFile(path: String, metadata: UserInfo?) throws -> FileTransferInfo {
        try checkFileTransfer(metadata: metadata)
        return try transferFile(staged: try stageFile(path, metadata: metadata))
    }

    /// The outstanding file transfers, oldest first, with the bytes the receiver has of the one in flight.
    package func outstandingFileTransfers(limit: Int) throws -> [FileTransferInfo] {
        try fileOutbox.first(limit).compactMap { entry in
            guard let record = try? FileRecord(decoding: entry.payload) else { return nil }
            return FileTransferInfo(seq: entry.seq, record: record, completedBytes: completedBytes(ofFile: entry.seq))
        }
    }

    package func outstandingFileTransferCount() throws -> Int { try fileOutbox.count() }

    /// Bytes of file `seq` durable at the receiver, as far as this link knows (0 before it started).
    package func completedBytes(ofFile seq: Int64) -> Int64 {
        guard let current = core.fileWindow.current, current.seq == seq else { return 0 }
        return current.durable
    }

    package func isFileOutstanding(seq: Int64) -> Bool { (try? fileOutbox.contains(seq: seq)) ?? false }

    /// The file being sent on this link: its id, size, and the bytes durable at the receiver.
    package var fileBeingSent: (seq: Int64, size: Int64, durable: Int64)? {
        core.fileWindow.current.map { ($0.seq, $0.size, $0.durable) }
    }

    /// The file arriving on this link: its id, size, and the bytes durable here.
    package var fileBeingReceived: (seq: Int64, size: Int64, durable: Int64)? {
        incoming.map { ($0.seq, $0.description.size, $0.durable) }
    }

    /// Cancels file transfer `seq`: a queued one leaves the queue; the one being sent is stopped and the
    /// receiver drops what it has — unless every chunk has gone already (`onTheWire`: it may be
    /// delivered any moment). The app hears nothing more of a cancelled transfer. A queued one may have
    /// been begun on an earlier link: the receiver hears of it too (`fileCancel`), while linked.
    package func cancelFileTransfer(seq: Int64) throws -> TransferCancellation {
        if core.fileWindow.current?.seq == seq, channel != nil {
            if core.fileWindow.allSent { return .onTheWire }
            _ = core.fileWindow.finished(seq: seq)
            sendingFile = nil
        }
        let record = (try? fileOutbox.payload(seq: seq)).flatMap { try? FileRecord(decoding: $0) }
        guard try fileOutbox.cancel(seq: seq) else { return try fileOutbox.whyNotCancelled(seq: seq) }
        systemSent(.file, id: seq)  // a cancelled file waits for the system no more
        channel?.send(SequencedFrame.frame(.fileCancel, number: seq))
        if let record, let fileQueue { unlink(fileQueue.storedPath(record.stored)) }
        logger.info("file.cancelled", ["seq": seq])
        loop.deferToEndOfIteration { [weak self] in self?.pump() }
        return .cancelled
    }

    // MARK: - The pump's file part

    /// Announces the next queued file when none is on the link, then sends its chunks while the window
    /// and the socket have room. Memory: one chunk at a time, the window on the wire.
    func pumpFiles(_ channel: LinkChannel) {
        guard let fileQueue else { return }
        if core.fileWindow.phase == .idle, !announceNextFile(channel, fileQueue) { return }
        guard let sending = sendingFile else { return }
        while channel.pendingOutboundBytes < configuration.outboundHighWaterBytes, let chunk = core.fileWindow.nextChunk() {
            let frame: [UInt8]
            do {
                frame = try Self.chunkFrame(sending.descriptor, seq: chunk.seq, offset: chunk.offset, length: chunk.length)
            } catch {
                fail(file: sending.seq, WCError(.fileAccessDenied, "the queued copy cannot be read: \(error)"))
                return
            }
            CrashPoint.hit("file.send.before-chunk")
            channel.send(frame)
            if self.channel == nil { return }
        }
        if core.fileWindow.phase == .streaming, !core.fileWindow.allSent, channel.pendingOutboundBytes >= configuration.outboundHighWaterBytes {
            channel.requestDrainNotification()
        }
    }

    /// `fileBegin` for the oldest queued file; false if there is none (or it could not be opened).
    private func announceNextFile(_ channel: LinkChannel, _ fileQueue: FileQueue) -> Bool {
        let entry: OutboxEntry
        do {
            let acked = try fileOutbox.watermarks().acked
            guard let next = try fileOutbox.entries(after: acked, limit: 1).first else { return false }
            entry = next
        } catch {
            logger.error("outbox.read-failed", ["lane": "file", "error": "\(error)"])
            return false
        }
        // The realistic system holds a background file transfer a while before it begins
        // (`SystemTiming`); the pump comes back when it may go.
        let due = systemDue(.file, id: entry.seq)
        if due > loop.nowNanoseconds {
            pumpAgain(at: due)
            return false
        }
        systemSent(.file, id: entry.seq)
        guard let record = try? FileRecord(decoding: entry.payload) else {
            fail(file: entry.seq, WCError(.genericError, "the queued file's record cannot be read"))
            return false
        }
        let path = fileQueue.storedPath(record.stored)
        let raw = open(path, O_RDONLY | O_CLOEXEC)
        guard raw >= 0 else {
            fail(file: entry.seq, WCError(.fileAccessDenied, "the queued copy of \(record.name) is gone"))
            return false
        }
        sendingFile = SendingFile(seq: entry.seq, record: record, descriptor: FileDescriptor(adopting: raw))
        // The numbers the receiver will never get a file for go first, each as a skip (`fileCancel`):
        // it takes only the file after its cursor (the file lane's sequence rule).
        if let skipped = core.fileWindow.skips(before: entry.seq) {
            var skips: [UInt8] = []
            for seq in skipped { SequencedFrame.append(.fileCancel, number: seq, body: [], to: &skips) }
            channel.send(skips)
        }
        _ = core.fileWindow.announce(seq: entry.seq, size: record.size)
        channel.send(SequencedFrame.frame(.fileBegin, number: entry.seq, body: record.wire.encoded))
        return true
    }

    /// A `fileChunk` frame read straight from the queued copy into the frame's own bytes: header, seq,
    /// offset, then the chunk (one allocation, no copy).
    static func chunkFrame(_ file: FileDescriptor, seq: Int64, offset: Int64, length: Int) throws -> [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(Frame.headerLength + 16)
        Frame.appendHeader(type: .fileChunk, payloadLength: 16 + length, to: &header)
        for value in [UInt64(bitPattern: seq), UInt64(bitPattern: offset)] {
            for shift in stride(from: 56, through: 0, by: -8) { header.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        var failure: SystemError?
        let frame = [UInt8](unsafeUninitializedCapacity: header.count + length) { buffer, count in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            header.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            do throws(SystemError) {
                try file.readFully(into: base + header.count, count: length, at: offset, "pread: the queued copy is shorter than its record")
            } catch {
                failure = error
            }
            count = failure == nil ? header.count + length : 0
        }
        if let failure { throw failure }
        return frame
    }

    // MARK: - What the receiver says

    /// `fileResume`, `fileProgress`, `fileAck`, `fileError` from the receiver.
    func receiveFileAnswer(_ type: FrameType, seq: Int64, body: ArraySlice<UInt8>, from source: LinkChannel) {
        switch type {
        case .fileResume:
            guard let offset = Self.number(body) else { return protocolViolation(source, "fileResume without its offset") }
            switch core.fileWindow.resumed(seq: seq, at: offset) {
            case .ignore: return
            case let .violation(why): return protocolViolation(source, why)
            case let .start(from):
                let size = sendingFile?.record.size ?? 0
                if from > 0 {
                    logger.notice("file.resume", ["seq": seq, "fromByte": from, "bytes": size, "side": "sender"])
                } else {
                    logger.info("file.sending", ["seq": seq, "bytes": size])
                }
                emit(.fileTransferDidProgress(seq: seq, completed: from, total: size))
                pump()
            }
        case .fileProgress:
            guard let offset = Self.number(body) else { return protocolViolation(source, "fileProgress without its offset") }
            switch core.fileWindow.progressed(seq: seq, to: offset) {
            case .ignore: return
            case let .violation(why): return protocolViolation(source, why)
            case let .moved(to):
                emit(.fileTransferDidProgress(seq: seq, completed: to, total: sendingFile?.record.size ?? to))
                pump()
            }
        case .fileAck:
            // Only a file the receiver reported complete, and never past the file on the link: a forged
            // acknowledgement would drop a file never delivered (`FileSendWindow.acknowledgement`).
            let acknowledged = (try? fileOutbox.watermarks().acked) ?? 0
            let upTo: Int64
            switch core.fileWindow.acknowledgement(upTo: seq, acknowledged: acknowledged, trusting: core.trustsCounterpart) {
            case .nothingNew: return
            case let .violation(why): return protocolViolation(source, why)
            case let .moved(to): upTo = to
            }
            guard upTo > 0 else { return }
            do {
                try fileOutbox.acknowledge(upTo: upTo)
            } catch {
                logger.warning("outbox.ack-not-saved", ["lane": "file", "upTo": upTo, "error": "\(error)"])
            }
            if let current = core.fileWindow.current, current.seq <= upTo {
                _ = core.fileWindow.finished(seq: current.seq)
                sendingFile = nil
                logger.info("file.delivered", ["seq": current.seq, "bytes": current.size])
            }
            CrashPoint.hit("file.send.after-ack")
            reportFinished()
            pump()
        case .fileError:
            let error = (try? ErrorFrame.decode(Array(body))) ?? WCError(.deliveryFailed, "undecodable file error")
            switch core.fileWindow.subject(seq) {
            case .current: fail(file: seq, error)
            case .stale: return
            case .neverAnnounced:
                if !core.trustsCounterpart { protocolViolation(source, "fileError for file \(seq), which was never announced on this link") }
            }
        default:
            return
        }
    }

    /// File `seq` cannot be delivered: it leaves the queue (never reported as finished well), its copy
    /// goes, the receiver hears it was given up (`fileCancel`: what it holds of it goes, and it is no
    /// longer content pending there), and the app hears `didFinish` with the error — the next file follows.
    func fail(file seq: Int64, _ error: WCError) {
        let record = (try? fileOutbox.payload(seq: seq)).flatMap { try? FileRecord(decoding: $0) }
        if core.fileWindow.current?.seq == seq {
            _ = core.fileWindow.finished(seq: seq)
            sendingFile = nil
        }
        do {
            guard try fileOutbox.cancel(seq: seq) else { return }
        } catch {
            logger.warning("file.fail-not-saved", ["seq": seq, "error": "\(error)"])
            return
        }
        channel?.send(SequencedFrame.frame(.fileCancel, number: seq))
        if let record, let fileQueue { unlink(fileQueue.storedPath(record.stored)) }
        logger.warning("file.failed", ["seq": seq, "code": error.code.rawValue, "name": error.name, "reason": error.message])
        loop.deferToEndOfIteration { [weak self] in
            guard let self else { return }
            self.emit(.didFinish(FinishedTransfer(seq: seq, replayed: false, error: error, lane: .file, file: record), error: error))
            self.pump()
        }
    }

    /// The big-endian number at the start of `body`.
    static func number(_ body: ArraySlice<UInt8>) -> Int64? {
        guard body.count >= 8 else { return nil }
        var value: UInt64 = 0
        for byte in body.prefix(8) { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }

    /// Removes the queued copies of files reported finished (`reportFinished`'s file part).
    func removeFinishedCopies(_ records: [FileRecord]) {
        guard let fileQueue else { return }
        for record in records { unlink(fileQueue.storedPath(record.stored)) }
    }

    /// At activation: copies no queued transfer needs (a crash between staging and queueing, or between a
    /// transfer's end and its copy's removal), and staged incoming files no inbox row describes.
    func sweepFileQueue() {
        guard let fileQueue else { return }
        do {
            try fileQueue.prepare()
            var keep = Set<String>()
            let reported = try fileOutbox.watermarks().reported
            for entry in try fileOutbox.entries(after: reported, limit: Int.max) {
                if let record = try? FileRecord(decoding: entry.payload) { keep.insert(record.stored) }
            }
            // Files queued for the phone's inactive watches are kept for them.
            for payload in try PairedWatches.parkedFilePayloads(database) {
                if let record = try? FileRecord(decoding: payload) { keep.insert(record.stored) }
            }
            let outgoing = fileQueue.sweepOutgoing(keep: keep)
            let incomingKeep = Set(try FileInbox(database: database).all().map { fileQueue.incomingPath(peer: $0.peer, seq: $0.seq) })
            let incoming = fileQueue.sweepIncoming(keep: incomingKeep)
            if outgoing + incoming > 0 { logger.info("file.swept", ["outgoing": outgoing, "incoming": incoming]) }
        } catch {
            logger.warning("file.sweep-failed", ["error": "\(error)"])
        }
    }
}
