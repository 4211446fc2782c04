import ConnectivityTesting
import Glibc
import Posix
import PropertyLists
import Storage
import Testing

@testable import Connectivity

/// Issue 51, Build 2: every lane follows a rule a forged frame cannot break — an acknowledgement names
/// only what was sent (and, for a file, completed), a context's version moves only one past what the
/// sender had, a file is taken only after the cursor, an answer names only a message sent — and anything
/// else closes the link with a protocol violation, nothing accepted lost. Over the in-memory link (the
/// same handshake and codec as the daemons'); the pure rules are in `SendWindowTests`,
/// `ApplicationContextRulesTests` and here; through the binaries, `ForgedFrameTests`.
@Suite struct LaneRuleTests {
    let files = FileTransferTests()

    // MARK: - The file lane

    @Test func aFileAcknowledgementNamesOnlyAFileTheReceiverReportedComplete() {
        var window = FileSendWindow(windowBytes: 100, chunkBytes: 10)
        #expect(window.acknowledgement(upTo: 1, acknowledged: 0) == .violation("fileAck for file 1, which was never announced on this link"))
        _ = window.announce(seq: 1, size: 30)
        #expect(
            window.acknowledgement(upTo: 1, acknowledged: 0)
                == .violation("fileAck for file 1, which the receiver has not reported complete (not even resumed)"))
        _ = window.resumed(seq: 1, at: 0)
        while window.nextChunk() != nil {}
        _ = window.progressed(seq: 1, to: 20)
        #expect(
            window.acknowledgement(upTo: 1, acknowledged: 0)
                == .violation("fileAck for file 1, which the receiver has not reported complete (20 of its 30 bytes durable)"))
        #expect(window.acknowledgement(upTo: 2, acknowledged: 0) == .violation("fileAck for file 2, which was never announced on this link"))
        #expect(window.acknowledgement(upTo: 1, acknowledged: 0, trusting: true) == .moved(1), "the rule before took it")
        _ = window.progressed(seq: 1, to: 30)
        #expect(window.acknowledgement(upTo: 1, acknowledged: 0) == .moved(1))
        #expect(window.acknowledgement(upTo: 1, acknowledged: 1) == .nothingNew, "acknowledged again")
        _ = window.finished(seq: 1)
        _ = window.announce(seq: 2, size: 5)
        #expect(window.subject(1) == .stale && window.subject(2) == .current && window.subject(3) == .neverAnnounced)
        #expect(window.resumed(seq: 3, at: 0) == .violation("fileResume for file 3, which was never announced on this link"))
        #expect(window.progressed(seq: 2, to: 1) == .violation("fileProgress for file 2 before its fileResume"))
    }

    @Test func aSenderSkipsTheNumbersItGaveUp() {
        var window = FileSendWindow()
        window.resume(peerCursor: 4)
        #expect(window.skips(before: 5) == nil)
        #expect(window.skips(before: 9) == 6...8)
        #expect(window.skips(before: 10) == nil)
    }

    /// The phone sends a file; a forged `fileAck` reaches it while the file is half-way: before, the
    /// phone dropped the file as delivered; now the link closes and the file arrives on the next one.
    @Test func aForgedFileAckClosesTheLinkAndTheFileStillArrives() throws {
        let harness = try files.filesHarness()
        let (path, bytes) = try files.file(harness, "route.gpx", size: 600_000)
        let link = try #require(harness.link)
        var forged = false
        link.b.drops = { frame in
            // As the first chunk leaves for the watch, a forged acknowledgement of the file comes back.
            if frame.type == .fileChunk, !forged {
                forged = true
                link.a.send(SequencedFrame.frame(.fileAck, number: 1))
            }
            return false
        }
        _ = try harness.phone.transferFile(path: path, metadata: nil)
        try harness.drive()
        #expect(link.closeReason?.contains("fileAck for file 1, which the receiver has not reported complete") == true, "\(link.closeReason ?? "open")")
        #expect(try harness.phone.outstandingFileTransferCount() == 1, "the file is still queued")
        try harness.connect()
        #expect(harness.watchDelegate.files.map(\.bytes) == [bytes])
        #expect(try harness.phone.outstandingFileTransferCount() == 0)
    }

    /// A forged `fileBegin` far ahead (with its chunks) would, once delivered, move the cursor past every
    /// file before it — acknowledged as duplicates when they came. The file lane's sequence rule closes
    /// the link at the announcement instead.
    @Test func aFileAnnouncedFarAheadClosesTheLink() throws {
        let harness = try files.filesHarness()
        let record = FileRecord(name: "forged.bin", size: 0, sha256: [UInt8](repeating: 0, count: 32), metadata: nil, stored: "x", source: "x")
        harness.link!.a.send(SequencedFrame.frame(.fileBegin, number: 1_000, body: record.wire.encoded))
        try harness.drive()
        #expect(
            harness.link!.closeReason?.contains("file 1000 announced where 1 was expected (after the cursor 0)") == true,
            "\(harness.link!.closeReason ?? "open")")
        #expect(try SessionStore.receiveCursor(harness.phoneDB, peer: harness.watch.deviceID, lane: .file) == 0)
    }

    /// Files cancelled before the link go as skips: the receiver's cursor moves past them, an honest
    /// stream never breaks the rule, and the files after them arrive.
    @Test func cancelledFilesGoAsSkipsAndTheNextArrives() throws {
        let harness = try files.filesHarness()
        harness.link!.closeBoth(reason: "apart")
        var queued: [Int64] = []
        for index in 0..<4 {
            let (path, _) = try files.file(harness, "f\(index).bin", size: 1_000 + index, seed: UInt8(index))
            queued.append(try harness.watch.transferFile(path: path, metadata: nil).seq)
        }
        for seq in queued.prefix(3) { #expect(try harness.watch.cancelFileTransfer(seq: seq) == .cancelled) }
        let link = try #require(try harness.connect())
        #expect(link.closeReason == nil, "an honest stream has no gap")
        #expect(harness.phoneDelegate.files.map(\.file.description.name) == ["f3.bin"])
        #expect(link.a.sentFrames.filter { $0.type == .fileCancel }.count == 3, "one skip a number")
        #expect(try SessionStore.receiveCursor(harness.phoneDB, peer: harness.watch.deviceID, lane: .file) == queued[3])
    }

    // MARK: - The application context

    /// The fake-phone case of the issue: a context a million versions ahead. Before the rule the watch
    /// stored it and took every later real context as older; now the link closes, nothing is stored,
    /// and the next real one arrives.
    @Test func aContextFarAheadClosesTheLinkAndLaterOnesArrive() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let link = try #require(try harness.connect())
        try harness.phone.updateApplicationContext(["lap": .integer(1)])
        try harness.drive()
        #expect(harness.watch.receivedApplicationContext == ["lap": .integer(1)])
        link.b.send(SequencedFrame.frame(.applicationContext, number: 1_000_000, body: PropertyListCodec.encode(["lap": .integer(999)])))
        try harness.drive()
        #expect(link.closeReason?.contains("application context version 1000000 arrived where at most 2 was possible") == true, "\(link.closeReason ?? "open")")
        #expect(harness.watch.receivedApplicationContext == ["lap": .integer(1)], "nothing stored")
        try harness.connect()
        try harness.phone.updateApplicationContext(["lap": .integer(2)])
        try harness.drive()
        #expect(harness.watch.receivedApplicationContext == ["lap": .integer(2)])
        #expect(harness.watchDelegate.contexts == [["lap": .integer(1)], ["lap": .integer(2)]])
    }

    /// Values set while linked go one version up each: many of them in a row break nothing.
    @Test func manyContextsInARowStayWithinTheRule() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let link = try #require(try harness.connect())
        for lap in 1...20 { try harness.phone.updateApplicationContext(["lap": .integer(Int64(lap))]) }
        try harness.drive()
        #expect(link.closeReason == nil)
        #expect(harness.watch.receivedApplicationContext == ["lap": .integer(20)])
    }

    /// A counterpart that holds a version this side never set (a context forged before the rule, or this
    /// store rolled back): at the next link the current value goes past it, and arrives.
    @Test func aSenderBehindWhatTheCounterpartHoldsCatchesUp() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        try harness.connect()
        try harness.phone.updateApplicationContext(["lap": .integer(1)])
        try harness.drive()
        harness.link!.closeBoth(reason: "apart")
        // What a forged context left on the watch before the rule.
        try harness.watchDB.transaction {
            try SessionStore.setContext(
                harness.watchDB, .received,
                .init(
                    peerDeviceID: harness.phone.deviceID, version: 1_000_000, payload: PropertyListCodec.encode(["lap": .integer(999)]), ackedVersion: 1_000_000
                ))
        }
        try harness.phone.updateApplicationContext(["lap": .integer(2)])
        let link = try #require(try harness.connect())
        #expect(link.closeReason == nil)
        #expect(harness.watch.receivedApplicationContext == ["lap": .integer(2)])
        #expect(try SessionStore.context(harness.phoneDB, .sent)?.version == 1_000_001)
    }

    @Test func aContextAcknowledgementOfAVersionNeverSentClosesTheLink() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let link = try #require(try harness.connect())
        try harness.phone.updateApplicationContext(["lap": .integer(1)])
        try harness.drive()
        link.a.send(SequencedFrame.frame(.contextAck, number: 77))
        try harness.drive()
        #expect(link.closeReason?.contains("contextAck for version 77, but the context sent is version 1") == true, "\(link.closeReason ?? "open")")
    }

    // MARK: - Transfers and messages

    @Test func anAcknowledgementOfTransfersNeverSentClosesTheLinkAndLosesNothing() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let link = try #require(try harness.connect())
        link.a.dropsOutgoing = true  // the watch's own acknowledgements are lost: only the forged one comes
        _ = try harness.phone.transferUserInfo(batch: harness.numbered(0..<5))
        try harness.drive()
        link.a.dropsOutgoing = false
        link.a.send(SequencedFrame.frame(.ack, number: 1_000))
        try harness.drive()
        #expect(link.closeReason?.contains("ack acknowledgement up to 1000, but only up to 5 was sent on this link") == true, "\(link.closeReason ?? "open")")
        try harness.connect()
        #expect(try harness.phone.outstandingUserInfoTransferCount() == 0)
        #expect(harness.watchDelegate.receivedNumbers == Array(0..<5))
    }

    @Test func anAnswerToAMessageNeverSentClosesTheLink() throws {
        let harness = try PairHarness()
        try harness.activateBoth()
        let link = try #require(try harness.connect())
        link.b.send(SequencedFrame.frame(.messageReply, number: 42, body: PropertyListCodec.encode(["forged": .bool(true)])))
        try harness.drive()
        #expect(link.closeReason?.contains("messageReply for message 42, but only messages up to 0 were sent") == true, "\(link.closeReason ?? "open")")
    }
}
