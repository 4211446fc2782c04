import Digest
import Posix
import PropertyLists

/// Where a session keeps the bytes of files (`HOME/files`): `out/` the copies of queued files (the app
/// may delete its own as soon as `transferFile` returns), `in/` the files being received, one per
/// sending device and transfer, made durable chunk by chunk. Plain I/O, no session state: `stage` runs
/// on whatever thread calls it (a 200 MB copy does not hold the device's loop when the app calls from
/// its own thread).
package struct FileQueue: Sendable {
    package let root: String

    package init(root: String) { self.root = root }

    package var outgoing: String { root + "/out" }
    package var incoming: String { root + "/in" }

    package func prepare() throws(SystemError) {
        for directory in [root, outgoing, incoming] { try Filesystem.makeDirectory(directory, mode: 0o700) }
    }

    package func storedPath(_ stored: String) -> String { outgoing + "/" + stored }

    /// The file being received: transfer `seq` from device `peer` (device ids are UUIDs: one component).
    package func incomingPath(peer: String, seq: Int64) -> String { incoming + "/\(peer)-\(seq)" }

    /// Copies `source` into the queue in chunks, hashing it on the way, and makes the copy durable
    /// (fsync, rename, fsync of the directory). Nothing is queued yet: the caller inserts the returned
    /// record in the outbox. A missing, unreadable or non-regular file is `fileAccessDenied` (7013); one
    /// over `limit` bytes `payloadTooLarge` (7009); a full disk `insufficientSpace` (7015). Memory: one
    /// chunk, whatever the file's size.
    package func stage(source: String, metadata: UserInfo?, limit: Int64 = FileTransferLimits.maximumFileBytes) throws(WCError) -> FileRecord {
        let input: FileDescriptor
        do {
            // O_NONBLOCK: opening a FIFO with no writer (or a device) must not hold the thread; a
            // regular file ignores the flag, and anything else is refused just below.
            input = FileDescriptor(adopting: try systemCall("open(\(source))") { open(source, O_RDONLY | O_NONBLOCK | O_CLOEXEC) })
        } catch {
            throw WCError(.fileAccessDenied, "cannot read \(source): \(String(cString: strerror(error.errno)))")
        }
        var info = stat()
        guard fstat(input.rawValue, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw WCError(.fileAccessDenied, "\(source) is not a regular file")
        }
        guard Int64(info.st_size) <= limit else {
            throw WCError(.payloadTooLarge, "\(source) is \(info.st_size) bytes, more than the \(limit)-byte limit of a file transfer")
        }
        let stored = Identifier.uuid()
        let partial = storedPath(stored) + ".part"
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            try prepare()
            let output = FileDescriptor(adopting: try systemCall("open(\(partial))") { open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) })
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = try chunk.withUnsafeMutableBytes { buffer in
                    try input.readBlocking(into: buffer.baseAddress!, count: buffer.count, "read(\(source))")
                }
                if n == 0 { break }
                try chunk.withUnsafeBytes { buffer in
                    let piece = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                    hasher.update(piece)
                    try output.writeAll(piece)
                }
                size += Int64(n)
                if size > limit { throw WCError(.payloadTooLarge, "\(source) grew past the \(limit)-byte limit while it was copied") }
            }
            _ = try systemCall("fsync(\(partial))") { fsync(output.rawValue) }
            output.close()
            try Filesystem.rename(partial, to: storedPath(stored))
            try Filesystem.syncDirectory(containing: storedPath(stored))
        } catch let error as WCError {
            unlink(partial)
            throw error
        } catch let error as SystemError {
            unlink(partial)
            if error.isNoSpace { throw WCError(.insufficientSpace, "no space to queue \(source): \(error)") }
            throw WCError(.genericError, "could not queue \(source): \(error)")
        } catch {
            unlink(partial)
            throw WCError(.genericError, "could not queue \(source): \(error)")
        }
        let name = source.split(separator: "/").last.map(String.init) ?? "file"
        return FileRecord(
            name: FileDescription.safeName(name), size: size, sha256: hasher.finalize(), metadata: metadata, stored: stored, source: source)
    }

    /// Removes what no queued transfer needs: copies in `out/` that are not in `keep` (a crash between
    /// staging and queueing, or between a transfer's end and its copy's removal), and unfinished `.part`s.
    package func sweepOutgoing(keep: Set<String>) -> Int {
        var removed = 0
        for name in Self.entries(of: outgoing) where !keep.contains(name) {
            if unlink(outgoing + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// Removes files being received that no inbox row describes (`keep`: their paths).
    package func sweepIncoming(keep: Set<String>) -> Int {
        var removed = 0
        for name in Self.entries(of: incoming) where !keep.contains(incoming + "/" + name) {
            if unlink(incoming + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// The names in `directory` (none if it cannot be read).
    package static func entries(of directory: String) -> [String] { (try? Filesystem.names(in: directory)) ?? [] }
}
