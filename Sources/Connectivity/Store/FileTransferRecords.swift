import Digest
import Posix
import PropertyLists

/// The limits of file transfers, stated once (`docs/files.md`).
package enum FileTransferLimits {
    /// The largest file `transferFile` takes: 1 GiB (Apple states none; a file over it is 7009).
    package static let maximumFileBytes: Int64 = 1 << 30
    /// The bytes of one `fileChunk` frame's data: a whole number of SHA-256 blocks, so the receiver's
    /// running hash can be saved between chunks, and well under the link's 512 KiB frame limit.
    package static let chunkBytes = 256 * 1024
    /// At most this many bytes of a file are sent and not yet durable at the receiver: the memory a
    /// transfer costs on either side, whatever the file's size.
    package static let windowBytes = 4 << 20
    /// The largest file name kept (bytes); longer ones are cut.
    package static let maximumNameBytes = 255
}

/// A queued file as its sender keeps it (the payload of its row in `cx_file_outbox`): what the receiver
/// is told (`wire`), and where the sender's copy is.
package struct FileRecord: Equatable, Sendable {
    /// The file's name as the receiver gets it (the last path component the app gave).
    package var name: String
    package var size: Int64
    /// SHA-256 of the whole file, computed while it was copied into the queue.
    package var sha256: [UInt8]
    package var metadata: UserInfo?
    /// The copy's name in the session's file queue (`HOME/files/out/NAME`).
    package var stored: String
    /// The path the app gave (`WCSessionFile.fileURL` on the sender), not sent.
    package var source: String

    package init(name: String, size: Int64, sha256: [UInt8], metadata: UserInfo?, stored: String, source: String) {
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.metadata = metadata
        self.stored = stored
        self.source = source
    }

    /// The outbox row's payload.
    package var encoded: [UInt8] {
        var fields = wireFields
        fields["stored"] = .string(stored)
        fields["source"] = .string(source)
        return PropertyListCodec.encode(fields)
    }

    package init(decoding bytes: [UInt8]) throws(DecodeError) {
        let fields = try PropertyListCodec.decodeDictionary(bytes)
        let wire = try FileDescription(fields)
        guard let stored = fields["stored"]?.stringValue, let source = fields["source"]?.stringValue else {
            throw .invalid("a queued file without its stored name")
        }
        self.init(name: wire.name, size: wire.size, sha256: wire.sha256, metadata: wire.metadata, stored: stored, source: source)
    }

    /// What the `fileBegin` frame carries.
    package var wire: FileDescription { FileDescription(name: name, size: size, sha256: sha256, metadata: metadata) }

    private var wireFields: UserInfo { wire.fields }
}

/// A file as the `fileBegin` frame announces it: its name, size, checksum and metadata.
package struct FileDescription: Equatable, Sendable {
    package var name: String
    package var size: Int64
    package var sha256: [UInt8]
    package var metadata: UserInfo?

    package init(name: String, size: Int64, sha256: [UInt8], metadata: UserInfo?) {
        self.name = name
        self.size = size
        self.sha256 = sha256
        self.metadata = metadata
    }

    var fields: UserInfo {
        var fields: UserInfo = ["name": .string(name), "size": .integer(size), "sha256": .data(sha256)]
        if let metadata { fields["metadata"] = .dictionary(metadata) }
        return fields
    }

    package var encoded: [UInt8] { PropertyListCodec.encode(fields) }

    /// Every number checked: a size within the limit, a 32-byte checksum, a name that is one path
    /// component (a peer's bytes decide where nothing is written).
    init(_ fields: UserInfo) throws(DecodeError) {
        guard let name = fields["name"]?.stringValue, let size = fields["size"]?.int64Value, case .data(let sha256)? = fields["sha256"]
        else { throw .invalid("a file description without its name, size or checksum") }
        guard size >= 0, size <= FileTransferLimits.maximumFileBytes else {
            throw .invalid("a file of \(size) bytes is outside 0...\(FileTransferLimits.maximumFileBytes)")
        }
        guard sha256.count == SHA256.digestLength else { throw .invalid("a checksum of \(sha256.count) bytes, not 32") }
        var metadata: UserInfo?
        if let value = fields["metadata"] {
            guard case .dictionary(let dictionary) = value else { throw .invalid("file metadata that is not a dictionary") }
            metadata = dictionary
        }
        self.init(name: Self.safeName(name), size: size, sha256: sha256, metadata: metadata)
    }

    package init(decoding bytes: [UInt8]) throws(DecodeError) {
        try self.init(try PropertyListCodec.decodeDictionary(bytes))
    }

    /// One path component the receiver can use as a file name: no `/`, no NUL, not `.` or `..`, at most
    /// `maximumNameBytes` bytes (a longer one is cut in its stem, its extension kept); `file` when
    /// nothing is left.
    package static func safeName(_ name: String) -> String {
        let bytes = Array(name.utf8).map { $0 == 0x2F || $0 == 0 ? 0x5F : $0 }
        let cleaned = FileNames.fitting(String(decoding: bytes, as: UTF8.self), maximumBytes: FileTransferLimits.maximumNameBytes)
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "file" : cleaned
    }
}
