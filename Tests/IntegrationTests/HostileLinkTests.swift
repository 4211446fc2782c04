import Connectivity
import Foundation
import Glibc
import PairTesting
import Testing
import PropertyLists

/// Bad input on the phone's link socket, from a raw client, while the real watch keeps transferring.
/// Each input must close the hostile connection with a logged reason (after an `error` frame where the
/// protocol allows one), and the phone must keep serving with every flight stored exactly once.
@Suite(.serialized) struct HostileLinkTests {
    /// `attack` on the link socket.
    func attack(_ tag: String, sending bytes: [UInt8], thenEndOfFile: Bool = false, logged: String..., answer: (RawClient) throws -> Void) throws {
        try attackThePhone(tag, on: "link.sock", sending: bytes, thenEndOfFile: thenEndOfFile, logged: logged, answer: answer)
    }

    @Test func garbageBytesGetAnErrorFrameAndAClose() throws {
        try attack("l-garbage", sending: Inputs.garbage(), logged: "event=link.bad-frame", "exceeds the 524288-byte limit") { client throws in
            #expect(try linkError(in: client.received).code == .genericError)
        }
    }

    @Test func aTruncatedFrameThenEndOfFileIsLoggedAndClosed() throws {
        try attack(
            "l-trunc", sending: Array(Inputs.unpairedHello().prefix(40)), thenEndOfFile: true,
            logged: "event=link.handshake-abandoned", "in the middle of a frame (40 bytes discarded)"
        ) { client throws in
            #expect(client.received.isEmpty, "the counterpart is gone: there is no one to send an error to")
        }
    }

    @Test func aFourGibibyteLengthPrefixIsRefusedBeforeAnyBodyIsBuffered() throws {
        try underAttack("l-huge") { pair in
            let client = try RawClient(path: pair.phoneHome + "/link.sock")
            try pair.record(10)
            let before = try #require(residentBytes(of: pair.phone!.pid))
            client.send(Inputs.hugeLengthPrefix)
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(try linkError(in: client.received).code == .genericError)
            try waitForLogLine(pair, pair.phoneLog, "event=link.bad-frame", "frame of 4294967295 bytes exceeds the 524288-byte limit")
            let after = try #require(residentBytes(of: pair.phone!.pid))
            #expect(after < before + 16 << 20, "resident memory grew from \(before) to \(after) bytes")
        }
    }

    @Test func anUnknownFrameTypeGetsAnErrorFrameAndAClose() throws {
        try attack("l-type", sending: Inputs.unknownType, logged: "event=link.bad-frame", "unknown frame type 0x7e") { client throws in
            #expect(try linkError(in: client.received).code == .genericError)
        }
    }

    @Test func aWrongProtocolVersionGetsAnErrorFrameAndAClose() throws {
        try attack(
            "l-version", sending: Inputs.wrongVersion(Inputs.unpairedHello()), logged: "event=link.bad-frame", "protocol version 2 is not supported"
        ) { client throws in
            let error = try linkError(in: client.received)
            #expect(error.code == .genericError)
            #expect(error.message.contains("protocol version 2 is not supported"))
        }
    }

    @Test func aHelloFromAnUnpairedWatchGetsDeviceNotPaired() throws {
        try attack(
            "l-unpaired", sending: Inputs.unpairedHello(), logged: "event=link.refused code=7005 name=deviceNotPaired", "INTRUDER-WATCH"
        ) { client throws in
            #expect(try linkError(in: client.received).code == .deviceNotPaired)
        }
    }

    /// A transfer before the handshake is refused and never stored (the invariant check would report
    /// an unexpected flight).
    @Test func aUserInfoFrameBeforeTheHandshakeIsRefusedAndNotStored() throws {
        let flight = PropertyListCodec.encode(["id": .string("INTRUDER-FLIGHT"), "distanceKm": .real(42), "startedAt": .date(0)])
        try attack(
            "l-early", sending: SequencedFrame.frame(.userInfo, number: 1, body: flight),
            logged: "event=link.refused code=7008", "expected a hello frame, got userInfo"
        ) { client throws in
            #expect(try linkError(in: client.received).code == .invalidParameter)
        }
    }

    @Test func oneByteASecondIsCutOffByTheHandshakeTimeout() throws {
        try trickleToThePhone("l-slow", on: "link.sock", sending: Inputs.unpairedHello(), what: "hello", logged: ["event=link.handshake-timeout"]) {
            client throws in
            #expect(try linkError(in: client.received).code == .transferTimedOut)
        }
    }

    @Test func aClientThatSaysNothingIsCutOffByTheHandshakeTimeout() throws {
        try attack("l-silent", sending: [], logged: "event=link.handshake-timeout") { client throws in
            #expect(try linkError(in: client.received).code == .transferTimedOut)
        }
    }

    /// 300 silent connections at once: beyond 64 pending handshakes they are refused at once, the rest
    /// time out; the established watch keeps transferring throughout, and memory stays bounded.
    @Test func threeHundredConnectionsAtOnce() throws {
        try flood("l-flood", on: "link.sock", limit: 64, logged: "event=link.too-many-handshakes") { client throws in
            try linkError(in: client.received).code == .transferTimedOut
        }
    }

    /// Out of descriptors, the phone stops accepting for a moment instead of spinning on the queued
    /// connection (which would flood the log): a handful of `accept-paused` lines, not thousands, and
    /// the established watch keeps transferring. The limit is lowered on the running phone (`prlimit`).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs util-linux's prlimit"))
    func runningOutOfDescriptorsPausesAcceptingInsteadOfSpinning() throws {
        try underAttack("l-emfile") { pair in
            let pid = pair.phone!.pid
            let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
            #expect(try runUntilExit("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(open + 10)"]).status == 0)
            defer { _ = try? runUntilExit("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=4096"]) }
            let clients = try (0..<40).map { _ in try RawClient(path: pair.phoneHome + "/link.sock") }
            try pair.record(10)
            // The watch's outbox only: the phone's control socket, out of descriptors too, is not asked.
            try pair.waitUntil("the watch's outbox is empty", timeout: 120) { try pair.outstandingTransfers() == 0 }
            #expect(RawClient.waitUntilClosed(clients, timeout: 60) == 0)
            let failures = logText(pair.phoneLog).split(separator: "\n").filter { $0.contains("Too many open files") }
            #expect(!failures.isEmpty, "the descriptor limit was never reached")
            #expect(failures.allSatisfy { $0.contains("event=link.accept-paused") })
            #expect(failures.count < 300, "\(failures.count) log lines about accept failing: a busy loop")
        }
    }
}
