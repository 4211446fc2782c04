import ConnectivityTesting
import Digest
import Glibc
import PairTesting
import Posix
import PropertyLists
import Storage
import Testing

@testable import Connectivity

/// `transferFile` over the in-memory link with a manual clock: the file lane's promise — durable once
/// queued, in order, in chunks under a window, checked end to end, resumed from the receiver's durable
/// point, a full receiver or a wrong checksum reported to the sender's `didFinish` — and the pure pieces
/// (SHA-256, the send window, the description's checks).
@Suite struct FileTransferTests {
    /// A linked pair whose sessions keep files in their own directories.
    func filesHarness() throws -> PairHarness {
        let root = makeTemporaryDirectory("files")
        let harness = try PairHarness { role, configuration in
            configuration.fileDirectory = root + "/\(role.rawValue)/files"
            configuration.fileInboxDirectory = root + "/\(role.rawValue)/Documents/Inbox"
        }
        try harness.activateBoth()
        try harness.connect()
        return harness
    }

    /// A file of `size` bytes that are not all alike, in the harness's directory.
    func file(_ harness: PairHarness, _ name: String, size: Int, seed: UInt8 = 7) throws -> (path: String, bytes: [UInt8]) {
        var value = UInt32(seed)
        let bytes = (0..<size).map { _ -> UInt8 in
            value = value &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: value >> 24)
        }
        let path = harness.directory + "/" + name
        try Filesystem.writeAtomically(bytes, to: path)
        return (path, bytes)
    }

    @Test func aFileArrivesOnceByteIdenticalAndItsCopiesAreGone() throws {
        let harness = try filesHarness()
        let (path, bytes) = try file(harness, "run.gpx", size: 1_048_576 + 17)
        let info = try harness.watch.transferFile(path: path, metadata: ["kind": .string("gpx")])
        #expect(info.seq == 1 && info.record.size == Int64(bytes.count) && info.record.sha256 == SHA256.hash(bytes))
        unlink(path)  // the app may delete its own: the queue has a copy
        try harness.drive()
        let received = harness.phoneDelegate.files
        #expect(received.count == 1)
        #expect(received.first?.bytes == bytes, "byte for byte")
        #expect(received.first?.file.description.name == "run.gpx" && received.first?.file.description.metadata == ["kind": .string("gpx")])
        #expect(received.first?.file.path.contains("/Documents/Inbox/") == true)
        #expect(Filesystem.kind(of: received.first?.file.path ?? "/") == .missing, "left in the inbox: deleted when the callback returned")
        #expect(harness.watchDelegate.finished.filter { $0.lane == .file }.map(\.seq) == [1])
        #expect(try harness.watch.outstandingFileTransferCount() == 0)
        #expect(FileQueue.entries(of: harness.watch.fileQueue!.outgoing).isEmpty, "the queued copy went with the transfer")
        #expect(FileQueue.entries(of: harness.phone.fileQueue!.incoming).isEmpty, "so did the staged one")
        #expect(harness.watchDelegate.fileProgress.last.map { $0.completed == $0.total } == true)
        #expect(try SessionStore.receiveCursor(harness.phoneDB, peer: harness.watch.deviceID, lane: .file) == 1)
    }

    @Test func filesGoInOrderBothWays() throws {
        let harness = try filesHarness()
        let first = try file(harness, "a.bin", size: 600_000, seed: 1)
        let second = try file(harness, "b.bin", size: 10, seed: 2)
        let empty = try file(harness, "empty", size: 0)
        for path in [first.path, second.path, empty.path] { _ = try harness.watch.transferFile(path: path, metadata: nil) }
        _ = try harness.phone.transferFile(path: second.path, metadata: nil)
        try harness.drive()
        #expect(harness.phoneDelegate.files.map(\.file.description.name) == ["a.bin", "b.bin", "empty"])
        #expect(harness.phoneDelegate.files.map(\.bytes) == [first.bytes, second.bytes, []])
        #expect(harness.watchDelegate.files.map(\.bytes) == [second.bytes])
    }

    @Test func aFileIsResumedFromTheReceiversDurableBytesNotRestarted() throws {
        let harness = try filesHarness()
        let (path, bytes) = try file(harness, "big.bin", size: 12 << 20)
        // The phone's progress reports are lost on the way: the watch sends what its window allows
        // (4 MiB) and waits, while the phone has made it durable.
        harness.link?.b.drops = { $0.type == .fileProgress }
        _ = try harness.watch.transferFile(path: path, metadata: nil)
        try harness.drive()
        guard let partial = harness.phone.fileBeingReceived, partial.durable > 0, partial.durable < partial.size else {
            Issue.record("the file was not half-way: \(String(describing: harness.phone.fileBeingReceived))")
            return
        }
        harness.link?.closeBoth(reason: "out of range")
        let staged = harness.phone.fileQueue!.incomingPath(peer: harness.watch.deviceID, seq: 1)
        harness.watchDelegate.fileProgress.removeAll()
        try harness.connect()
        #expect(harness.watchDelegate.fileProgress.first?.completed == partial.durable, "resumed from \(partial.durable), not from 0")
        #expect(harness.phoneDelegate.files.map(\.bytes) == [bytes])
        #expect(Filesystem.kind(of: staged) == .missing)
    }

    /// Half-received on one link, its queued copy gone before the next: the sender fails it (7013, once)
    /// and says so (`fileCancel`); the receiver drops the half it had and no longer counts it pending.
    @Test func aFileWhoseQueuedCopyIsGoneFailsWith7013AndTheReceiverDropsWhatItHad() throws {
        let harness = try filesHarness()
        let (path, _) = try file(harness, "gone.bin", size: 12 << 20)
        harness.link?.b.drops = { $0.type == .fileProgress }
        let info = try harness.watch.transferFile(path: path, metadata: nil)
        try harness.drive()
        guard let partial = harness.phone.fileBeingReceived, partial.durable > 0, partial.durable < partial.size else {
            Issue.record("the file was not half-way: \(String(describing: harness.phone.fileBeingReceived))")
            return
        }
        harness.link?.closeBoth(reason: "out of range")
        unlink(harness.watch.fileQueue!.storedPath(info.record.stored))
        let staged = harness.phone.fileQueue!.incomingPath(peer: harness.watch.deviceID, seq: info.seq)
        #expect(Filesystem.kind(of: staged) == .regular)
        try harness.connect()
        let failed = harness.watchDelegate.finished.filter { $0.lane == .file }
        #expect(failed.count == 1 && failed.first?.error?.code == .fileAccessDenied, "\(failed)")
        #expect(try harness.watch.outstandingFileTransferCount() == 0)
        #expect(Filesystem.kind(of: staged) == .missing, "the half the phone had is gone")
        #expect(try FileInbox(database: harness.phoneDB).all().isEmpty)
        #expect(harness.phone.hasContentPending == false, "the phone waits for nothing")
        #expect(harness.phoneDelegate.files.isEmpty)
    }

    @Test func aFileWhoseBytesDoNotMatchItsChecksumFailsAtTheSender() throws {
        let harness = try filesHarness()
        let (path, _) = try file(harness, "bad.bin", size: 300_000)
        let info = try harness.watch.transferFile(path: path, metadata: nil)
        // The queued copy rots after its checksum was taken.
        let copy = harness.watch.fileQueue!.storedPath(info.record.stored)
        var bytes = try Filesystem.readFile(copy)
        bytes[1000] ^= 0xFF
        try Filesystem.writeAtomically(bytes, to: copy)
        try harness.drive()
        #expect(harness.phoneDelegate.files.isEmpty, "nothing delivered")
        let failed = harness.watchDelegate.finished.filter { $0.lane == .file }
        #expect(failed.count == 1 && failed.first?.error?.code == .deliveryFailed, "reported once, with the checksum's failure")
        #expect(try harness.watch.outstandingFileTransferCount() == 0)
    }

    @Test func aFullReceiverFailsTheFileWith7015AndNothingElseIsLost() throws {
        let harness = try filesHarness()
        harness.phone.fileSpaceLimit = 100_000
        let (path, _) = try file(harness, "huge.bin", size: 500_000)
        _ = try harness.watch.transferFile(path: path, metadata: nil)
        _ = try harness.watch.transferUserInfo(["n": .integer(1)])
        let small = try file(harness, "small.bin", size: 5_000)
        _ = try harness.watch.transferFile(path: small.path, metadata: nil)
        try harness.drive()
        #expect(harness.phoneDelegate.receivedNumbers == [1], "the userInfo arrived")
        #expect(harness.phoneDelegate.files.map(\.bytes) == [small.bytes], "so did the file that fits")
        #expect(FileQueue.entries(of: harness.phone.fileQueue!.incoming).isEmpty, "what arrived of the big one is gone")
        let finished = harness.watchDelegate.finished.filter { $0.lane == .file }
        #expect(finished.map { $0.error?.code } == [.insufficientSpace, nil], "the big one failed with 7015, the small one arrived")
        #expect(try harness.watch.outstandingFileTransferCount() == 0)
    }

    @Test func aQueuedFileCanBeCancelledAndIsNeverDelivered() throws {
        let harness = try filesHarness()
        harness.link?.closeBoth(reason: "out of range")
        let (path, _) = try file(harness, "c.bin", size: 1000)
        let info = try harness.watch.transferFile(path: path, metadata: nil)
        #expect(try harness.watch.cancelFileTransfer(seq: info.seq) == .cancelled)
        #expect(try harness.watch.cancelFileTransfer(seq: info.seq) == .alreadyCancelled)
        try harness.connect()
        #expect(harness.phoneDelegate.files.isEmpty)
        #expect(harness.watchDelegate.finished.filter { $0.lane == .file }.isEmpty, "a cancelled transfer is not reported")
        #expect(FileQueue.entries(of: harness.watch.fileQueue!.outgoing).isEmpty)
    }

    @Test func badFilesAndMetadataAreRefusedBeforeAnythingIsQueued() throws {
        let harness = try filesHarness()
        func code(_ path: String, _ metadata: UserInfo? = nil) -> WCError.Code? {
            do {
                _ = try harness.watch.transferFile(path: path, metadata: metadata)
                return nil
            } catch let error as WCError {
                return error.code
            } catch {
                return .genericError
            }
        }
        #expect(code(harness.directory + "/missing") == .fileAccessDenied)
        #expect(code(harness.directory) == .fileAccessDenied, "a directory")
        let sparse = harness.directory + "/sparse"
        let fd = open(sparse, O_WRONLY | O_CREAT, 0o600)
        ftruncate(fd, off_t(FileTransferLimits.maximumFileBytes + 1))
        close(fd)
        #expect(code(sparse) == .payloadTooLarge, "over 1 GiB")
        let (path, _) = try file(harness, "ok.bin", size: 10)
        #expect(code(path, ["blob": .data(Array(repeating: 0, count: 70_000))]) == .payloadTooLarge, "metadata over the limit")
        #expect(try harness.watch.outstandingFileTransferCount() == 0)
        #expect(FileQueue.entries(of: harness.watch.fileQueue!.outgoing).isEmpty, "nothing staged stays")
    }

    // MARK: - The pure pieces

    @Test func sha256MatchesTheStandardVectorsAndResumesFromACheckpoint() {
        #expect(SHA256.hash(Array("abc".utf8)).hexString == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash([UInt8]()).hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)).hexString
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let bytes = (0..<1000).map { UInt8($0 % 251) }
        for split in [0, 1, 63, 64, 65, 127, 128, 999] {
            var hasher = SHA256()
            hasher.update(Array(bytes[..<split]))
            hasher.update(Array(bytes[split...]))
            #expect(hasher.finalize() == SHA256.hash(bytes), "split at \(split)")
        }
        var first = SHA256()
        first.update(Array(bytes[..<640]))
        #expect(first.checkpoint != nil)
        var resumed = SHA256(checkpoint: first.checkpoint!)!
        resumed.update(Array(bytes[640...]))
        #expect(resumed.finalize() == SHA256.hash(bytes))
        var partial = SHA256()
        partial.update(Array(bytes[..<100]))
        #expect(partial.checkpoint == nil, "a partial block cannot be saved")
        #expect(SHA256(checkpoint: [1, 2, 3]) == nil)
    }

    @Test func theSendWindowResumesWhereTheReceiverIsAndNeverRunsAhead() {
        var window = FileSendWindow(windowBytes: 10, chunkBytes: 4)
        func next() -> [Int64]? { window.nextChunk().map { [$0.offset, Int64($0.length)] } }
        let announced = window.announce(seq: 3, size: 25)
        let second = window.announce(seq: 4, size: 1)
        #expect(announced && !second, "one file at a time")
        #expect(next() == nil, "nothing before the resume point")
        let stale = window.resumed(seq: 2, at: 0)
        let beyond = window.resumed(seq: 3, at: 26)
        let resumed = window.resumed(seq: 3, at: 8)
        #expect(stale == .ignore)
        #expect(beyond == .violation("resume point 26 outside file 3's 0...25 bytes"))
        #expect(resumed == .start(from: 8))
        let first = [next(), next(), next(), next()]
        #expect(first == [[8, 4], [12, 4], [16, 4], nil], "12 bytes out, the window is 10")
        let ahead = window.progressed(seq: 3, to: 30)
        let moved = window.progressed(seq: 3, to: 16)
        #expect(ahead == .violation("file 3 reported durable to 30, but only 20 bytes were sent"))
        #expect(moved == .moved(to: 16))
        let rest = [next(), next(), next()]
        #expect(rest == [[20, 4], [24, 1], nil], "the last chunk is short")
        #expect(window.allSent)
        let finished = window.finished(seq: 3)
        #expect(finished && window.phase == .idle)
        var empty = FileSendWindow()
        _ = empty.announce(seq: 1, size: 0)
        _ = empty.resumed(seq: 1, at: 0)
        let none = empty.nextChunk()
        #expect(none == nil && empty.allSent, "an empty file has no chunk")
    }

    @Test func aPeersFileNameIsOneSafePathComponent() {
        #expect(FileDescription.safeName("../../etc/passwd") == ".._.._etc_passwd")
        #expect(FileDescription.safeName("..") == "file")
        #expect(FileDescription.safeName("") == "file")
        #expect(FileDescription.safeName("a\u{0}b") == "a_b")
        #expect(Array(FileDescription.safeName(String(repeating: "é", count: 300)).utf8).count <= 255)
    }
}
