import Control
import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Bad input on the phone's control socket, from a raw client, while the watch keeps transferring.
/// A frame the daemon cannot read closes the connection with a logged reason, after an error response
/// (`{"ok":false,...}`); a stalled client is closed by the request or idle time-out.
@Suite(.serialized) struct HostileControlTests {
    /// `attackThePhone` on the control socket.
    func attack(_ tag: String, sending bytes: [UInt8], thenEndOfFile: Bool = false, logged: String..., answer: (RawClient) throws -> Void) throws {
        try attackThePhone(tag, on: "control.sock", sending: bytes, thenEndOfFile: thenEndOfFile, logged: logged, answer: answer)
    }

    /// The error response's message, after checking it is a failure with the exit status of bad input.
    func errorMessage(_ client: RawClient, exitStatus: Int64 = 2) throws -> String {
        let response = try controlResponse(in: client.received)
        #expect(response["ok"] == .bool(false))
        #expect(response["error"]?["exitStatus"] == .integer(exitStatus))
        return response["error"]?["message"]?.stringValue ?? ""
    }

    @Test func garbageBytesGetAnErrorResponseAndAClose() throws {
        try attack("c-garbage", sending: Inputs.garbage(), logged: "event=control.bad-frame", "exceeds the 1048576-byte limit") { client throws in
            #expect(try errorMessage(client).contains("exceeds the 1048576-byte limit"))
        }
    }

    @Test func aTruncatedRequestThenEndOfFileIsLogged() throws {
        try attack(
            "c-trunc", sending: Array(Inputs.statusRequest().prefix(12)), thenEndOfFile: true, logged: "event=control.closed-mid-frame unfinishedBytes=12"
        ) { client throws in
            #expect(client.received.isEmpty)
        }
    }

    @Test func aFourGibibyteLengthPrefixIsRefused() throws {
        try attack("c-huge", sending: Inputs.hugeLengthPrefix, logged: "event=control.bad-frame", "frame of 4294967295 bytes exceeds the 1048576-byte limit") {
            client throws in
            #expect(try errorMessage(client).contains("frame of 4294967295 bytes"))
        }
    }

    @Test func anUnknownFrameTypeGetsAnErrorResponseAndAClose() throws {
        try attack("c-type", sending: Inputs.unknownType, logged: "event=control.bad-frame", "unknown frame type 0x7e") { client throws in
            #expect(try errorMessage(client).contains("unknown frame type 0x7e"))
        }
    }

    /// The link's `hello`, sent to a control socket, is refused at its header like any type the control
    /// protocol does not name.
    @Test func aLinkFrameIsAnUnknownTypeHere() throws {
        try attack("c-hello", sending: Inputs.unpairedHello(), logged: "event=control.bad-frame", "unknown frame type 0x1") { client throws in
            #expect(try errorMessage(client).contains("unknown frame type 0x1"))
        }
    }

    @Test func aWrongProtocolVersionGetsAnErrorResponseAndAClose() throws {
        let request = Inputs.wrongVersion(Inputs.statusRequest())
        try attack("c-version", sending: request, logged: "event=control.bad-frame", "protocol version 2 is not supported") { client throws in
            #expect(try errorMessage(client).contains("protocol version 2 is not supported"))
        }
    }

    /// Well-formed frames that are not a valid request (a control frame of another kind, JSON that is
    /// not a request) are answered with an error and the connection goes on: the next request is served.
    /// (A link frame is not a well-formed control frame since the two protocols' types were parted:
    /// `aLinkFrameIsAnUnknownTypeHere`.)
    @Test func aWellFormedFrameThatIsNotARequestGetsAnErrorAndTheConnectionGoesOn() throws {
        try underAttack("c-notreq") { pair in
            let client = try RawClient(path: pair.phoneHome + "/control.sock")
            try pair.record(10)
            for (bytes, message) in [
                (ControlFrame(.event, Array("{}".utf8)).encoded, "expected a request frame, got event"),
                (ControlFrame(.request, Array("[1,2".utf8)).encoded, "malformed request"),
                (ControlFrame(.request, Array("[1,2]".utf8)).encoded, "a request must be a JSON object"),
            ] {
                client.send(bytes)
                try pair.waitUntil("the daemon answers", timeout: 15) {
                    client.receive(waitingUpTo: 0.05)
                    return (try? decodeControlFrames(client.received).last?.type) == .end
                }
                #expect(try errorMessage(client).contains(message))
                client.discardReceived()
            }
            client.send(Inputs.statusRequest())
            try pair.waitUntil("the daemon answers the status request", timeout: 15) {
                client.receive(waitingUpTo: 0.05)
                return (try? decodeControlFrames(client.received).last?.type) == .end
            }
            #expect(try controlResponse(in: client.received)["ok"] == .bool(true))
            #expect(!client.peerClosed)
        }
    }

    @Test func oneByteASecondIsCutOffByTheRequestTimeout() throws {
        try trickleToThePhone(
            "c-slow", on: "control.sock", sending: Inputs.statusRequest(), what: "request", logged: ["event=control.timeout", "still incomplete"]
        ) { client throws in
            #expect(try errorMessage(client, exitStatus: 1).contains("still incomplete"))
        }
    }

    @Test func aClientThatSaysNothingIsCutOffByTheRequestTimeout() throws {
        try attack("c-silent", sending: [], logged: "event=control.timeout", "no request within 1500 ms") { client throws in
            #expect(try errorMessage(client, exitStatus: 1).contains("no request within 1500 ms of connecting"))
        }
    }

    /// After a reply, a client may idle longer than the request time-out, but not forever.
    @Test func anIdleClientIsClosedAfterTheIdleTimeoutButAnAttachedUIIsNot() throws {
        try underAttack("c-idle") { pair in
            let idle = try RawClient(path: pair.phoneHome + "/control.sock")
            let ui = try RawClient(path: pair.phoneHome + "/control.sock")
            idle.send(Inputs.statusRequest())
            ui.send(ControlFrame(.request, Array(#"{"command":"attach"}"#.utf8)).encoded)
            try pair.record(10)
            #expect(idle.waitUntilClosed(timeout: 20))
            let frames = try decodeControlFrames(idle.received)
            #expect(frames.map(\.type) == [.response, .chunk, .end, .response, .end], "\(frames.map(\.type))")
            try waitForLogLine(pair, pair.phoneLog, "event=control.timeout", "idle for 3000 ms between requests")
            // The UI is still attached: it hears of the next flight saved.
            try pair.record(1)
            try pair.waitUntil("the attached UI hears of the flight", timeout: 15) {
                ui.receive(waitingUpTo: 0.05)
                return (try? decodeControlFrames(ui.received))?.contains { $0.type == .event } ?? false
            }
            #expect(!ui.peerClosed)
        }
    }

    /// 300 connections at once: 256 are served (and, silent, time out), the rest are refused at once;
    /// the watch keeps transferring, and once they are gone the CLI gets through again.
    @Test func threeHundredConnectionsAtOnce() throws {
        try flood("c-flood", on: "control.sock", limit: 256, logged: "event=control.too-many-clients") { client throws in
            try errorMessage(client, exitStatus: 1).contains("no request within")
        }
    }

    /// 40,000 requests sent without reading a reply: the daemon answers them only as fast as the client
    /// reads (memory stays flat), and once it reads, every one is answered.
    @Test func aClientThatPipelinesWithoutReadingIsPacedNotBuffered() throws {
        try underAttack("c-pipe", phoneArguments: ["--control-request-timeout-ms", "60000"]) { pair in
            let client = try RawClient(path: pair.phoneHome + "/control.sock")
            let before = try #require(residentBytes(of: pair.phone!.pid))
            let count = 40_000
            client.send(Array(repeating: Inputs.statusRequest(), count: count).flatMap { $0 })
            try pair.record(10)
            try pair.waitUntilDrained()
            let during = try #require(residentBytes(of: pair.phone!.pid))
            #expect(during < before + 16 << 20, "resident memory grew from \(before) to \(during) bytes")
            try pair.waitUntil("every request is answered", timeout: 120) {
                client.receive(waitingUpTo: 0.2)
                return countFrames(ControlFrameType.end, in: client.received) == count || client.peerClosed
            }
            #expect(countFrames(ControlFrameType.response, in: client.received) == count)
            #expect(!client.peerClosed)
        }
    }

    /// An attached UI that never reads its events is detached once they pile up, and nothing else
    /// changes: every flight is still stored.
    @Test func anAttachedUIThatNeverReadsIsDetached() throws {
        try underAttack("c-deaf") { pair in
            let ui = try RawClient(path: pair.phoneHome + "/control.sock")
            ui.send(ControlFrame(.request, Array(#"{"command":"attach"}"#.utf8)).encoded)
            try waitForLogLine(pair, pair.phoneLog, "event=ui.attached")
            try pair.record(20_000)
            try pair.waitUntilDrained()
            try waitForLogLine(pair, pair.phoneLog, "event=control.events-unread", "action=detached")
            try waitForLogLine(pair, pair.phoneLog, "event=ui.detached")
        }
    }
}
