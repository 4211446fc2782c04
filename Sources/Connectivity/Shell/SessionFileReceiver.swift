import Digest
import Posix
import PropertyLists
import Storage

/// A file arriving on the current link: its staged file, open, and how far it got.
struct IncomingFile {
    let peer: String
    let seq: Int64
    let description: FileDescription
    let path: String
    let descriptor: FileDescriptor
    /// Bytes written to the staged file (in order, without gaps).
    var written: Int64
    /// Bytes durable: fsynced, with the inbox row saying so.
    var durable: Int64
    var hasher: SHA256
}

/// A file received, as the session hands it to its delegate.
package struct ReceivedFile: Sendable, Equatable {
    /// Where the file is now: the app's `Documents/Inbox`. Moved by the app before the call returns, it
    /// is the app's; left there, it is deleted when the call returns.
    package let path: String
    package let description: FileDescription
    /// The sender's id for the transfer (its sequence number in the file lane).
    package let seq: Int64
    package let senderDeviceID: String
}

// MARK: - transferFile: the file lane, receiver's side

extension Session {
    var fileInbox: FileInbox { FileInbox(database: database) }

    /// `fileBegin`, `fileChunk`, `fileCancel` from the sender. Chunks are written as they come; what one
    /// read brought is made durable together (`syncIncomingFile`, at the end of the read).
    func receiveFileFrame(_ type: FrameType, seq: Int64, body: ArraySlice<UInt8>, from source: LinkChannel) {
        guard let peer, activationState != .notActivated, let fileQueue else { return }
        switch type {
        case .fileBegin:
            guard let description = try? FileDescription(decoding: Array(body)) else {
                return protocolViolation(source, "fileBegin \(seq) with an undecodable description")
            }
            beginIncoming(seq: seq, description, from: peer.deviceID, fileQueue, source)
        case .fileChunk:
            guard let offset = Self.number(body) else { return protocolViolation(source, "fileChunk without its offset") }
            writeChunk(seq: seq, offset: offset, body.dropFirst(8), source)
        case .fileCancel:
            abandonIncoming(seq: seq, from: peer.deviceID, fileQueue)
        default:
            return
        }
    }

    /// A file is announced: already delivered (acknowledge again), being resumed (from its durable
    /// bytes), or new. Rows of older transfers from that device are what it gave up: they go.
    private func beginIncoming(seq: Int64, _ description: FileDescription, from peer: String, _ fileQueue: FileQueue, _ source: LinkChannel) {
        do {
            let cursor = try SessionStore.receiveCursor(database, peer: peer, lane: .file)
            if seq <= cursor {
                source.send(SequencedFrame.frame(.fileAck, number: cursor))
                return
            }
            // The file lane's sequence rule: only the file after the cursor (the sender skips the numbers
            // it gave up). A file further ahead — forged, or replayed — would move the cursor past files
            // never delivered, and they would be acknowledged as duplicates when they came.
            if seq != cursor + 1, !core.trustsCounterpart {
                return protocolViolation(source, "file \(seq) announced where \(cursor + 1) was expected (after the cursor \(cursor))")
            }
            if let incoming, incoming.seq != seq { self.incoming = nil }
            for old in try fileInbox.removeBefore(peer: peer, seq: seq) { unlink(fileQueue.incomingPath(peer: peer, seq: old)) }
            let path = fileQueue.incomingPath(peer: peer, seq: seq)
            var durable: Int64 = 0
            var hasher = SHA256()
            if let row = try fileInbox.row(peer: peer, seq: seq), row.description == description {
                durable = row.durable
                if let saved = SHA256(checkpoint: row.hashState), saved.count == UInt64(durable) {
                    hasher = saved
                } else {
                    hasher = try Self.rehash(path, upTo: durable)
                }
            } else {
                try fileQueue.prepare()
                try fileInbox.begin(peer: peer, seq: seq, description: description, hashState: hasher.checkpoint ?? [])
            }
            let raw = try systemCall("open(\(path))") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
            let descriptor = FileDescriptor(adopting: raw)
            // Bytes past the durable point may be half-written: they are sent again.
            _ = try systemCall("ftruncate(\(path))") { ftruncate(raw, off_t(durable)) }
            incoming = IncomingFile(
                peer: peer, seq: seq, description: description, path: path, descriptor: descriptor, written: durable, durable: durable, hasher: hasher)
            if durable > 0 {
                logger.notice("file.resume", ["seq": seq, "fromByte": durable, "bytes": description.size, "side": "receiver"])
            } else {
                logger.info("file.receiving", ["seq": seq, "bytes": description.size, "name": description.name])
            }
            source.send(SequencedFrame.frame(.fileResume, number: seq, body: Self.bigEndian(durable)))
            if durable == description.size { completeIncoming(source) }
        } catch {
            logger.error("file.begin-failed", ["seq": seq, "error": "\(error)"])
            let full = (error as? SystemError)?.isNoSpace == true || (error as? StorageError)?.kind == .full
            refuseIncoming(seq: seq, WCError(full ? .insufficientSpace : .deliveryFailed, "the receiver could not start file \(seq): \(error)"), source)
        }
    }

    /// Writes one chunk at its place; a chunk out of order is the sender's bug (the link closes).
    private func writeChunk(seq: Int64, offset: Int64, _ bytes: ArraySlice<UInt8>, _ source: LinkChannel) {
        guard var file = incoming, file.seq == seq else { return }  // a file cancelled or refused meanwhile
        guard offset == file.written, file.written + Int64(bytes.count) <= file.description.size else {
            return protocolViolation(source, "file \(seq) chunk at \(offset) (\(bytes.count) bytes), expected \(file.written) of \(file.description.size)")
        }
        if let limit = fileSpaceLimit, file.written + Int64(bytes.count) > limit {
            return failIncoming(
                file, WCError(.insufficientSpace, "no space for file \(seq) on the \(role.rawValue) (its inbox may hold \(limit) bytes)"), source)
        }
        do {
            try bytes.withUnsafeBytes { buffer in
                var done = 0
                while done < buffer.count {
                    done += try systemCall("pwrite(\(file.path))") {
                        pwrite(file.descriptor.rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                    }
                }
                file.hasher.update(buffer)
            }
        } catch {
            let full = (error as? SystemError)?.isNoSpace == true
            return failIncoming(file, WCError(full ? .insufficientSpace : .deliveryFailed, "the receiver could not write file \(seq): \(error)"), source)
        }
        file.written += Int64(bytes.count)
        incoming = file
    }

    /// The end of a read: what it wrote becomes durable — fsync, then the row — and the sender hears
    /// how far; a file complete is checked and delivered.
    func syncIncomingFile(_ source: LinkChannel) {
        guard var file = incoming, file.written > file.durable, channel === source else { return }
        CrashPoint.hit("file.receive.before-sync")
        do {
            _ = try systemCall("fdatasync(\(file.path))") { fdatasync(file.descriptor.rawValue) }
            try fileInbox.advance(peer: file.peer, seq: file.seq, durable: file.written, hashState: file.hasher.checkpoint ?? [])
        } catch {
            let full = (error as? SystemError)?.isNoSpace == true || (error as? StorageError)?.kind == .full
            return failIncoming(file, WCError(full ? .insufficientSpace : .deliveryFailed, "the receiver could not save file \(file.seq): \(error)"), source)
        }
        file.durable = file.written
        incoming = file
        CrashPoint.hit("file.receive.after-sync")
        if mayAcknowledge(source) { source.send(SequencedFrame.frame(.fileProgress, number: file.seq, body: Self.bigEndian(file.durable))) }
        if file.durable == file.description.size { completeIncoming(source) }
    }

    /// Every byte is durable: the checksum decides. A match is delivered — linked into the app's
    /// `Documents/Inbox`, handed to the app, removed there unless the app moved it — and only then does
    /// the file lane's cursor move (with the row gone) and the sender hear `fileAck`. A crash before the
    /// cursor's commit delivers it again (the staged file stays until then).
    private func completeIncoming(_ source: LinkChannel) {
        guard var file = incoming else { return }
        let digest = file.hasher.finalize()
        incoming = file
        guard digest == file.description.sha256 else {
            return failIncoming(
                file,
                WCError(
                    .deliveryFailed,
                    "file \(file.seq) arrived with SHA-256 \(digest.hexString), not the \(file.description.sha256.hexString) it was sent with"),
                source)
        }
        guard mayAcknowledge(source) else { return }
        let target: String
        do {
            target = try linkIntoInbox(file)
        } catch {
            logger.error("file.deliver-failed", ["seq": file.seq, "error": "\(error)"])
            source.close(error: WCError(.deliveryFailed, "the \(role.rawValue) could not deliver file \(file.seq) yet"), reason: "file delivery failed")
            return
        }
        CrashPoint.hit("file.deliver.before-callback")
        let received = ReceivedFile(path: target, description: file.description, seq: file.seq, senderDeviceID: file.peer)
        let outcome: ReceiveOutcome
        do {
            outcome = try handler?.handle(.didReceiveFile(received), from: self) ?? .notNow
        } catch {
            logger.warning("file.handler-threw", ["seq": file.seq, "error": "\(error)"])
            outcome = .notNow
        }
        // Left where it was put: the system deletes it (Apple's rule). Moved: it is the app's.
        if let here = Filesystem.identity(of: target), here == Filesystem.identity(of: file.path) { unlink(target) }
        CrashPoint.hit("file.deliver.after-callback")
        switch outcome {
        case .accepted, .rejected:
            do {
                try database.transaction {
                    try SessionStore.setReceiveCursor(database, peer: file.peer, seq: file.seq, lane: .file)
                    try fileInbox.remove(peer: file.peer, seq: file.seq)
                }
            } catch {
                logger.error("file.commit-failed", ["seq": file.seq, "error": "\(error)"])
                source.close(error: WCError(.deliveryFailed, "the \(role.rawValue) could not record file \(file.seq)"), reason: "file commit failed")
                return
            }
            incoming = nil
            unlink(file.path)
            CrashPoint.hit("file.deliver.after-commit")
            if case let .rejected(reason) = outcome {
                logger.error("file.rejected", ["seq": file.seq, "reason": reason])
                source.send(
                    SequencedFrame.frame(.fileError, number: file.seq, body: ErrorFrame.encode(WCError(.deliveryFailed, "the app refused it: \(reason)"))))
            }
            logger.info(
                "file.received", ["seq": file.seq, "bytes": file.description.size, "sha256": file.description.sha256.hexString, "name": file.description.name])
            if mayAcknowledge(source) { source.send(SequencedFrame.frame(.fileAck, number: file.seq)) }
            handle(.contentArrived(count: 1))
        case .notNow, .failed, .insufficientSpace:
            // Kept whole: the sender's next `fileBegin` finds it complete and it is delivered again.
            file.hasher = SHA256()
            incoming = nil
            let code: WCError.Code = outcome == .insufficientSpace ? .insufficientSpace : .deliveryFailed
            logger.warning("file.deferred", ["seq": file.seq, "action": "kept; delivered again when the link comes back"])
            source.close(error: WCError(code, "the \(role.rawValue)'s app could not take file \(file.seq) yet"), reason: "app deferred a file")
        }
    }

    /// The staged file, hard-linked into the app's `Documents/Inbox` under its name (a name taken by
    /// another file gets a number; a link of this very file left by a crash is used again).
    private func linkIntoInbox(_ file: IncomingFile) throws -> String {
        guard let inbox = configuration.fileInboxDirectory else { throw WCError(.genericError, "the app has no Documents/Inbox") }
        try Filesystem.makeDirectory(inbox, mode: 0o700)
        let staged = Filesystem.identity(of: file.path)
        var attempt = 1
        while true {
            // A number added to a name already 255 bytes long is made room for (`FileNames`).
            let target = inbox + "/" + (attempt == 1 ? file.description.name : FileNames.fitting(file.description.name, tag: " \(attempt)"))
            if let existing = Filesystem.identity(of: target) {
                if existing == staged { return target }
                attempt += 1
                continue
            }
            if try Filesystem.link(file.path, as: target) { return target }
            attempt += 1
        }
    }

    /// The file cannot be taken (no space, a write failed, the checksum does not match): what arrived of
    /// it goes, and the sender hears why (its app's `didFinish` gets the error). Nothing else is touched.
    private func failIncoming(_ file: IncomingFile, _ error: WCError, _ source: LinkChannel) {
        discardIncoming(file, reason: error.message)
        logger.error("file.refused", ["seq": file.seq, "code": error.code.rawValue, "name": error.name, "reason": error.message])
        source.send(SequencedFrame.frame(.fileError, number: file.seq, body: ErrorFrame.encode(error)))
    }

    private func refuseIncoming(seq: Int64, _ error: WCError, _ source: LinkChannel) {
        source.send(SequencedFrame.frame(.fileError, number: seq, body: ErrorFrame.encode(error)))
    }

    /// The sender gave file `seq` up (cancelled by its app, or failed there: its queued copy gone): what
    /// arrived of it goes — on this link or an earlier one (its inbox row and staged bytes) — and it is
    /// no longer content pending. Without this a file half-received before the sender gave it up was
    /// kept, and `hasContentPending` stayed true, until the sender's next file.
    private func abandonIncoming(seq: Int64, from peer: String, _ fileQueue: FileQueue) {
        guard let cursor = try? SessionStore.receiveCursor(database, peer: peer, lane: .file), seq > cursor else { return }
        var held = false
        if let incoming, incoming.seq == seq {
            discardIncoming(incoming, reason: "given up by the sender")
            held = true
        } else if (try? fileInbox.row(peer: peer, seq: seq)) != nil {
            try? fileInbox.remove(peer: peer, seq: seq)
            unlink(fileQueue.incomingPath(peer: peer, seq: seq))
            logger.info("file.discarded", ["seq": seq, "reason": "given up by the sender"])
            held = true
        }
        // The one after the cursor, given up: a skip — the cursor moves past it, as a file delivered
        // would (the sequence rule: the next file is the one after it).
        if seq == cursor + 1 {
            do {
                try database.transaction { try SessionStore.setReceiveCursor(database, peer: peer, seq: seq, lane: .file) }
            } catch {
                logger.warning("file.skip-not-saved", ["seq": seq, "error": "\(error)"])
            }
            // A skip of a file never begun here was not content pending (cancelled before the link).
            if !held { return }
        }
        handle(.contentArrived(count: 1))
    }

    private func discardIncoming(_ file: IncomingFile, reason: String) {
        if incoming?.seq == file.seq { incoming = nil }
        try? fileInbox.remove(peer: file.peer, seq: file.seq)
        unlink(file.path)
        logger.info("file.discarded", ["seq": file.seq, "reason": reason])
    }

    /// SHA-256 of the first `count` bytes of `path`, read a chunk at a time (a resume whose saved state
    /// could not be used).
    static func rehash(_ path: String, upTo count: Int64) throws -> SHA256 {
        var hasher = SHA256()
        guard count > 0 else { return hasher }
        let file = try FileDescriptor.open(path, O_RDONLY)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        while done < count {
            let want = Int(min(Int64(chunk.count), count - done))
            try chunk.withUnsafeMutableBytes { buffer in
                try file.readFully(into: buffer.baseAddress!, count: want, at: done, "pread(\(path)): shorter than its durable bytes")
            }
            chunk.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<want])) }
            done += Int64(want)
        }
        return hasher
    }

    static func bigEndian(_ value: Int64) -> [UInt8] {
        let bits = UInt64(bitPattern: value)
        return stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: bits >> UInt64($0)) }
    }
}
