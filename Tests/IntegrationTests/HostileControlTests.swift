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
    func connectAndRecord(_ pair: SimulatedPair) throws -> RawClient {
        let client = try RawClient(path: pair.phoneHome + "/control.sock")
        try pair.record(10)
        return client
    }

    /// The error response's message, after checking it is a failure with the exit status of bad input.
    func errorMessage(_ client: RawClient, exitStatus: Int64 = 2) throws -> String {
        let response = try controlResponse(in: client.received)
        #expect(response["ok"] == .bool(false))
        #expect(response["error"]?["exitStatus"] == .integer(exitStatus))
        return response["error"]?["message"]?.stringValue ?? ""
    }

    @Test func garbageBytesGetAnErrorResponseAndAClose() throws {
        try underAttack("c-garbage") { pair in
            let client = try connectAndRecord(pair)
            client.send(Inputs.garbage())
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(try errorMessage(client).contains("exceeds the 1048576-byte limit"))
            try waitForLogLine(pair, pair.phoneLog, "event=control.bad-frame", "exceeds the 1048576-byte limit")
        }
    }

    @Test func aTruncatedRequestThenEndOfFileIsLogged() throws {
        try underAttack("c-trunc") { pair in
            let client = try connectAndRecord(pair)
            client.send(Array(Inputs.statusRequest().prefix(12)))
            client.shutdownWrite()
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(client.received.isEmpty)
            try waitForLogLine(pair, pair.phoneLog, "event=control.closed-mid-frame unfinishedBytes=12")
        }
    }

    @Test func aFourGibibyteLengthPrefixIsRefused() throws {
        try underAttack("c-huge") { pair in
            let client = try connectAndRecord(pair)
            client.send(Inputs.hugeLengthPrefix)
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(try errorMessage(client).contains("frame of 4294967295 bytes"))
            try waitForLogLine(pair, pair.phoneLog, "event=control.bad-frame", "frame of 4294967295 bytes exceeds the 1048576-byte limit")
        }
    }

    @Test func anUnknownFrameTypeGetsAnErrorResponseAndAClose() throws {
        try underAttack("c-type") { pair in
            let client = try connectAndRecord(pair)
            client.send(Inputs.unknownType)
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(try errorMessage(client).contains("unknown frame type 0x7e"))
            try waitForLogLine(pair, pair.phoneLog, "event=control.bad-frame", "unknown frame type 0x7e")
        }
    }

    /// The link's `hello`, sent to a control socket, is refused at its header like any type the control
    /// protocol does not name.
    @Test func aLinkFrameIsAnUnknownTypeHere() throws {
        try underAttack("c-hello") { pair in
            let client = try connectAndRecord(pair)
            client.send(Inputs.unpairedHello())
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(try errorMessage(client).contains("unknown frame type 0x1"))
            try waitForLogLine(pair, pair.phoneLog, "event=control.bad-frame", "unknown frame type 0x1")
        }
    }

    @Test func aWrongProtocolVersionGetsAnErrorResponseAndAClose() throws {
        try underAttack("c-version") { pair in
            let client = try connectAndRecord(pair)
            client.send(Inputs.wrongVersion(Inputs.statusRequest()))
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(try errorMessage(client).contains("protocol version 2 is not supported"))
            try waitForLogLine(pair, pair.phoneLog, "event=control.bad-frame", "protocol version 2 is not supported")
        }
    }

    /// Well-formed frames that are not a valid request (a control frame of another kind, JSON that is
    /// not a request) are answered with an error and the connection goes on: the next request is served.
    /// (A link frame is not a well-formed control frame since the two protocols' types were parted:
    /// `aLinkFrameIsAnUnknownTypeHere`.)
    @Test func aWellFormedFrameThatIsNotARequestGetsAnErrorAndTheConnectionGoesOn() throws {
        try underAttack("c-notreq") { pair in
            let client = try connectAndRecord(pair)
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
        try underAttack("c-slow") { pair in
            let client = try RawClient(path: pair.phoneHome + "/control.sock")
            let request = Inputs.statusRequest()
            client.send([request[0]])
            try pair.record(10)
            let sent = client.trickle(Array(request.dropFirst()), interval: 1.0)
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(sent + 1 < request.count, "the whole request got through")
            #expect(try errorMessage(client, exitStatus: 1).contains("still incomplete"))
            try waitForLogLine(pair, pair.phoneLog, "event=control.timeout", "still incomplete")
        }
    }

    @Test func aClientThatSaysNothingIsCutOffByTheRequestTimeout() throws {
        try underAttack("c-silent") { pair in
            let client = try connectAndRecord(pair)
            #expect(client.waitUntilClosed(timeout: 15))
            #expect(try errorMessage(client, exitStatus: 1).contains("no request within 1500 ms of connecting"))
            try waitForLogLine(pair, pair.phoneLog, "event=control.timeout", "no request within 1500 ms")
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
        try underAttack("c-flood") { pair in
            let before = try #require(residentBytes(of: pair.phone!.pid))
            let clients = try (0..<300).map { _ in try RawClient(path: pair.phoneHome + "/control.sock") }
            // The watch's own control socket is not the one under attack: recording works.
            try pair.record(10)
            let during = try #require(residentBytes(of: pair.phone!.pid))
            #expect(during < before + 64 << 20, "resident memory grew from \(before) to \(during) bytes")
            #expect(RawClient.waitUntilClosed(clients, timeout: 20) == 0)
            var refusedAtOnce = 0, timedOut = 0
            for client in clients {
                if client.peerClosed, client.received.isEmpty {
                    refusedAtOnce += 1
                } else if try errorMessage(client, exitStatus: 1).contains("no request within") {
                    timedOut += 1
                }
            }
            #expect(refusedAtOnce + timedOut == 300)
            #expect(refusedAtOnce >= 300 - 256)
            try waitForLogLine(pair, pair.phoneLog, "event=control.too-many-clients")
            #expect(try pair.status("phone")["activationState"] == .string("activated"))
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
