import Posix
import Control
import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// What the hardening tests share: reading the daemons' logs, decoding what a daemon sent back to a
/// hostile client, and a pair that keeps transferring flights while it is abused.

// MARK: - Logs

func logText(_ path: String) -> String {
    (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
}

/// Waits until the log at `path` has a line containing every one of `fragments`.
func waitForLogLine(_ pair: SimulatedPair, _ path: String, _ fragments: String..., timeout: Double = 15) throws {
    try waitForLogLine(pair, path, all: fragments, timeout: timeout)
}

func waitForLogLine(_ pair: SimulatedPair, _ path: String, all fragments: [String], timeout: Double = 15) throws {
    try pair.waitUntil("a log line with \(fragments.joined(separator: " … "))", timeout: timeout) {
        logText(path).split(separator: "\n").contains { line in fragments.allSatisfy { line.contains($0) } }
    }
}

// MARK: - What came back

/// Every whole frame in `bytes`; fails the test if they are not a valid frame sequence.
func decodeFrames<Kind: WireFrameKind>(_ bytes: [UInt8], as kind: Kind.Type, limit: Int) throws -> [WireFrame<Kind>] {
    let buffer = ByteBufferAdapter(bytes)
    let (frames, error) = WireFrameDecoder<Kind>(maximumLength: limit).decodeAll(from: buffer)
    if let error { throw error }
    #expect(buffer.remaining == 0, "\(buffer.remaining) bytes of an unfinished frame")
    return frames
}

/// Every whole link frame in `bytes`.
func decodeFrames(_ bytes: [UInt8]) throws -> [Frame] { try decodeFrames(bytes, as: FrameType.self, limit: Frame.maximumLength) }

/// Every whole control-socket frame in `bytes`.
func decodeControlFrames(_ bytes: [UInt8]) throws -> [ControlFrame] {
    try decodeFrames(bytes, as: ControlFrameType.self, limit: ControlClient.frameLimit)
}

/// How many whole frames of `type` `bytes` holds (walking the length prefixes, without decoding).
func countFrames<Kind: WireFrameKind>(_ type: Kind, in bytes: [UInt8]) -> Int {
    var count = 0, offset = 0
    while offset + 6 <= bytes.count {
        let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        guard offset + 4 + length <= bytes.count else { break }
        if bytes[offset + 5] == type.rawValue { count += 1 }
        offset += 4 + length
    }
    return count
}

/// The link's answer to a bad input: exactly one frame, an `error` frame, decoded.
func linkError(in bytes: [UInt8]) throws -> WCError {
    let frames = try decodeFrames(bytes)
    try #require(frames.count == 1 && frames[0].type == .error, "expected one error frame, got \(frames.map(\.type))")
    return try ErrorFrame.decode(frames[0].payload)
}

/// The control socket's answer: a `response` frame (then `end`), its JSON.
func controlResponse(in bytes: [UInt8]) throws -> JSONValue {
    let frames = try decodeControlFrames(bytes)
    try #require(frames.first?.type == .response, "expected a response frame, got \(frames.map(\.type))")
    try #require(frames.last?.type == .end, "expected the response to end, got \(frames.map(\.type))")
    return try JSONValue(parsing: frames[0].payload)
}

/// Feeds a byte array to `FrameDecoder.decodeAll`.
final class ByteBufferAdapter: ByteBufferView {
    private let bytes: [UInt8]
    private var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var remaining: Int { bytes.count - offset }
    func withReadable(_ body: (UnsafeRawBufferPointer) -> Int) {
        let used = bytes[offset...].withUnsafeBytes { body($0) }
        offset += used
    }
}

// MARK: - Inputs

enum Inputs {
    /// A hello from a watch this phone has never been paired with.
    static func unpairedHello() -> [UInt8] {
        let hello = Handshake(role: .watch, deviceID: "INTRUDER-WATCH", pairingID: "NO-SUCH-PAIRING", appVersion: "1.0", resumeSeq: 0)
        return Frame(.hello, hello.encoded).encoded
    }

    /// A well-formed control request for `status`.
    static func statusRequest() -> [UInt8] {
        ControlFrame(.request, Array(#"{"command":"status"}"#.utf8)).encoded
    }

    /// Bytes that are not a frame: an HTTP request line, then seeded noise.
    static func garbage() -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let noise = (0..<512).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        return Array("GET / HTTP/1.1\r\nHost: phone\r\n\r\n".utf8) + noise
    }

    /// A length prefix of 4 GiB - 1, then a valid version and type.
    static let hugeLengthPrefix: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, Frame.protocolVersion, FrameType.hello.rawValue]
    static let unknownType: [UInt8] = [0, 0, 0, 2, Frame.protocolVersion, 0x7E]

    /// A frame of protocol version 2.
    static func wrongVersion(_ frame: [UInt8]) -> [UInt8] {
        var bytes = frame
        bytes[4] = 2
        return bytes
    }
}

// MARK: - A pair under attack

/// Short time-outs, so that the tests of silent and trickling clients do not wait for the defaults.
let shortTimeouts = ["--handshake-timeout-ms", "1500", "--control-request-timeout-ms", "1500", "--control-idle-timeout-ms", "3000"]

/// A paired phone and watch that keep transferring while `abuse` attacks the phone: flights are
/// recorded before, during (by `abuse`, while its hostile connection is open) and after. Afterwards the
/// phone must still be the same running process, a watch restarted from scratch must get through a new
/// handshake, and every recorded flight must be stored exactly once.
func underAttack(_ tag: String, phoneArguments: [String] = shortTimeouts, _ abuse: (SimulatedPair) throws -> Void) throws {
    try withRunningPair(tag: tag, phone: phoneArguments, phoneFirst: true) { pair in
        try pair.record(10)
        try pair.waitUntilDrained()
        try abuse(pair)
        #expect(pair.phone!.isRunning, "the phone died: \(pair.phone!.logTail())")
        pair.killWatch()
        try pair.startWatch()
        try pair.record(10)
        try pair.expectDrainedAndClean(stored: pair.recorded.count)
        #expect(pair.recorded.count >= 30, "the abuse must record its own flights while it runs")
    }
}

// MARK: - Damage

/// Scribbles over three pages in the middle of the store file at `path` (its header stays valid), as
/// a failing disk would; the file's bytes afterwards.
@discardableResult
func scribbleOverTheMiddle(of path: String) throws -> Data {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    let size = try handle.seekToEnd()
    try handle.seek(toOffset: size / 2 / 4096 * 4096)
    handle.write(Data(repeating: 0x5A, count: 4096 * 3))
    try handle.close()
    return try Data(contentsOf: URL(fileURLWithPath: path))
}

// MARK: - Processes

/// A process's resident memory, from /proc.
func residentBytes(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "")
    else { return nil }
    return kilobytes * 1024
}

/// The hostile tests' one attack (`HostileLinkTests`, `HostileControlTests`): under attack, a raw client
/// connects to the phone's `socket` (`link.sock`, `control.sock`), the watch records 10 flights while
/// it is connected, the client sends `bytes` (and ends its writing side if `thenEndOfFile`); the phone
/// must close the connection, `answer` checks what it sent back first, and its log must have a line
/// with every one of `logged`.
func attackThePhone(
    _ tag: String, on socket: String, sending bytes: [UInt8], thenEndOfFile: Bool = false, logged: [String], answer: (RawClient) throws -> Void
) throws {
    try underAttack(tag) { pair in
        let client = try RawClient(path: pair.phoneHome + "/" + socket)
        try pair.record(10)
        client.send(bytes)
        if thenEndOfFile { client.shutdownWrite() }
        #expect(client.waitUntilClosed(timeout: 15))
        try answer(client)
        try waitForLogLine(pair, pair.phoneLog, all: logged)
    }
}

/// The hostile tests' slow client: under attack, a raw client sends the first byte of `bytes` (a whole
/// `what`) to the phone's `socket`, the watch records 10 flights, then the rest goes one byte a second;
/// the phone must close the connection before all of it got through, `answer` checks what it sent back
/// first, and its log must have a line with every one of `logged`.
func trickleToThePhone(
    _ tag: String, on socket: String, sending bytes: [UInt8], what: String, logged: [String], answer: (RawClient) throws -> Void
) throws {
    try underAttack(tag) { pair in
        let client = try RawClient(path: pair.phoneHome + "/" + socket)
        client.send([bytes[0]])
        try pair.record(10)
        let sent = client.trickle(Array(bytes.dropFirst()), interval: 1.0)
        #expect(client.waitUntilClosed(timeout: 15))
        #expect(sent + 1 < bytes.count, "the whole \(what) got through")
        try answer(client)
        try waitForLogLine(pair, pair.phoneLog, all: logged)
    }
}

/// The hostile tests' flood: 300 silent connections to the phone's `socket` at once while the watch
/// records 10 flights (which must all arrive), resident memory bounded; beyond `limit` pending
/// connections they are refused at once (closed, nothing sent), the rest are closed once they time out
/// (`timedOut` recognises the answer); the log names the refusals (`logged`).
func flood(_ tag: String, on socket: String, limit: Int, logged: String, timedOut: (RawClient) throws -> Bool) throws {
    try underAttack(tag) { pair in
        let before = try #require(residentBytes(of: pair.phone!.pid))
        let clients = try (0..<300).map { _ in try RawClient(path: pair.phoneHome + "/" + socket) }
        try pair.record(10)
        try pair.waitUntilDrained()
        let during = try #require(residentBytes(of: pair.phone!.pid))
        #expect(during < before + 64 << 20, "resident memory grew from \(before) to \(during) bytes")
        #expect(RawClient.waitUntilClosed(clients, timeout: 20) == 0)
        var refusedAtOnce = 0
        var timeOuts = 0
        for client in clients {
            if client.peerClosed, client.received.isEmpty {
                refusedAtOnce += 1
            } else if try timedOut(client) {
                timeOuts += 1
            }
        }
        #expect(refusedAtOnce + timeOuts == 300)
        #expect(refusedAtOnce >= 300 - limit)
        try waitForLogLine(pair, pair.phoneLog, logged)
        #expect(try pair.status("phone")["activationState"] == .string("activated"))
    }
}
