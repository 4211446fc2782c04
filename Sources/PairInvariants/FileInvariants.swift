import Digest
import Posix

/// A file a test sent (`runway … transfer-file`), as the harness saw it before it went: which device
/// sent it, its name, size and SHA-256 (computed here, from the file itself).
package struct SentFile: Sendable, Equatable {
    package var from: String
    package var name: String
    package var bytes: Int64
    package var sha256: String

    package init(from: String, name: String, bytes: Int64, sha256: String) {
        self.from = from
        self.name = name
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// The content a receiver must end up with, whoever sent it how often.
    var identity: String { "\(from):\(name):\(bytes):\(sha256)" }
}

/// A file a device's app says it received and kept (`runway … files --json`, `received`).
package struct KeptFile: Sendable, Equatable {
    /// The receiving device.
    package var on: String
    package var name: String
    package var bytes: Int64
    package var sha256: String
    package var path: String

    package init(on: String, name: String, bytes: Int64, sha256: String, path: String) {
        self.on = on
        self.name = name
        self.bytes = bytes
        self.sha256 = sha256
        self.path = path
    }
}

/// The file part of the promise: every file sent arrives once, byte-identical — its SHA-256 read again
/// from the kept file itself, not just from what the app recorded — and nothing arrives that was not sent.
package struct FileReport: Sendable, Equatable {
    package var sent = 0
    package var received = 0
    /// Sent and never kept by the other side (`from:name:bytes:sha256`).
    package var lost: [String] = []
    /// Kept more often than sent.
    package var duplicated: [String] = []
    /// Kept with other bytes than were sent (the file on disk hashed again), or missing on disk.
    package var corrupted: [String] = []
    /// Kept, never sent.
    package var unexpected: [String] = []

    package var isClean: Bool { lost.isEmpty && duplicated.isEmpty && corrupted.isEmpty && unexpected.isEmpty }

    package var violations: [String] {
        var lines: [String] = []
        if !lost.isEmpty { lines.append("files lost (\(lost.count)): " + lost.joined(separator: " ")) }
        if !duplicated.isEmpty { lines.append("files duplicated (\(duplicated.count)): " + duplicated.joined(separator: " ")) }
        if !corrupted.isEmpty { lines.append("files not byte-identical (\(corrupted.count)): " + corrupted.joined(separator: " ")) }
        if !unexpected.isEmpty { lines.append("files never sent (\(unexpected.count)): " + unexpected.joined(separator: " ")) }
        return lines
    }

    /// Checks `received` against `sent`: as many of each content as were sent, each kept file's bytes
    /// hashed again (a chunk at a time) and compared.
    package static func check(sent: [SentFile], received: [KeptFile]) -> FileReport {
        var report = FileReport()
        report.sent = sent.count
        report.received = received.count
        var expected: [String: Int] = [:]
        for file in sent { expected[file.identity, default: 0] += 1 }
        var got: [String: Int] = [:]
        for file in received {
            let sender = file.on == "phone" ? "watch" : "phone"
            let identity = SentFile(from: sender, name: file.name, bytes: file.bytes, sha256: file.sha256).identity
            got[identity, default: 0] += 1
            let onDisk = (try? hash(file.path)) ?? "(unreadable)"
            if onDisk != file.sha256 { report.corrupted.append("\(file.path) is \(onDisk), recorded \(file.sha256)") }
        }
        for (identity, count) in expected.sorted(by: { $0.key < $1.key }) {
            let arrived = got[identity] ?? 0
            if arrived < count { report.lost.append(identity + (count > 1 ? " (\(count - arrived) of \(count))" : "")) }
            if arrived > count { report.duplicated.append(identity + " (\(arrived) for \(count) sent)") }
        }
        for (identity, _) in got.sorted(by: { $0.key < $1.key }) where expected[identity] == nil {
            report.unexpected.append(identity)
        }
        return report
    }

    /// SHA-256 of the file at `path`, read a MiB at a time (memory stays flat whatever its size).
    package static func hash(_ path: String) throws -> String {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, O_RDONLY) } catch { throw InvariantError("cannot open \(path): errno \(error.errno)") }
        var hasher = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n: Int
            do {
                n = try fd.readBlocking(into: &chunk)
            } catch {
                throw InvariantError("cannot read \(path): \(error)")
            }
            if n == 0 { break }
            chunk.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return hasher.finalize().hexString
    }
}

/// Why the checker could not read what it was to check (a kept file that cannot be opened or read).
package struct InvariantError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
