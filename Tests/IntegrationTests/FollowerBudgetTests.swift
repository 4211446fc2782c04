import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Followers (`events --follow`, `phone ui`) hold their connections for good, so they have a budget of
/// their own, and a request/response client always gets through (issue 22, item 5). Before, 256 held
/// followers filled the control socket's cap; the CLI's fresh connection was the one closed, and it died
/// with "Broken pipe".
@Suite struct FollowerBudgetTests {
    static func followRequest() -> [UInt8] {
        ControlFrame(.request, Array(#"{"command":"events","follow":true,"limit":0,"role":"phone"}"#.utf8)).encoded
    }

    /// The first response frame a raw client received, as JSON (nil if none yet).
    static func response(_ client: RawClient) -> JSONValue? {
        let decoder = ControlFrameDecoder(maximumLength: ControlClient.frameLimit)
        var offset = 0
        while offset < client.received.count {
            let next = try? client.received[offset...].withUnsafeBytes { try decoder.decode($0) }
            guard let (frame, consumed) = next ?? nil else { return nil }
            if frame.type == .response { return try? JSONValue(parsing: frame.payload) }
            offset += consumed
        }
        return nil
    }

    @Test func threeHundredHeldFollowersLeaveRoomForTheCLI() throws {
        try withRunningPair(tag: "follow", phoneFirst: true) { pair in
            try pair.record(5)
            try pair.waitUntilDrained()
            // 300 connections ask to follow, one after the other, each waiting for its answer.
            var followers: [RawClient] = [], refusals: [String] = []
            var clients: [RawClient] = []
            defer { clients.forEach { $0.close() } }
            for _ in 0..<300 {
                let client = try RawClient(path: pair.phoneHome + "/control.sock")
                clients.append(client)
                client.send(Self.followRequest())
                var answer: JSONValue?
                let deadline = Date().addingTimeInterval(15)
                while answer == nil, !client.peerClosed, Date() < deadline {
                    client.receive(waitingUpTo: 0.05)
                    answer = Self.response(client)
                }
                if answer?["ok"] == .bool(true) {
                    followers.append(client)
                } else if let message = answer?["error"]?["message"]?.stringValue {
                    refusals.append(message)
                }
            }
            // The followers' own budget: 128 held, the rest refused in one line each, saying why.
            #expect(followers.count == 128, "\(followers.count) followers")
            #expect(refusals.count == 172, "\(refusals.count) refusals")
            #expect(refusals.allSatisfy { $0.contains("already has 128 followers") && !$0.contains("\n") }, "\(refusals.first ?? "")")

            // The CLI gets in, again and again, while they are held.
            for _ in 0..<3 {
                let status = try runTool(["phone", "status", "--home", pair.phoneHome, "--json"])
                #expect(status.status == 0, "\(status.stderr)")
            }
            // Another follower is refused with the reason, in one line, exit 1 — not a broken pipe.
            let extra = try runTool(["phone", "events", "--follow", "--home", pair.phoneHome])
            #expect(extra.status == 1)
            #expect(extra.stderr.split(separator: "\n").count == 1, "\(extra.stderr)")
            #expect(extra.stderr.contains("already has 128 followers"), "\(extra.stderr)")

            // The held followers still follow: a new flight's delegate calls reach the first of them.
            let first = followers[0]
            first.discardReceived()
            try pair.record(2)
            try pair.waitUntilDrained()
            try pair.waitUntil("the first follower hears of the new flights", timeout: 30) {
                first.receive(waitingUpTo: 0.1)
                return countFrames(ControlFrameType.event, in: first.received) > 0
            }
            try pair.expectDrainedAndClean(stored: 7)
            try waitForLogLine(pair, pair.phoneLog, "event=control.too-many-followers")
        }
    }
}

/// The one refusal left: every connection is a request in progress. The newcomer is told why in one line,
/// which the CLI prints (before, the daemon closed it unread: "Broken pipe" or "Connection reset by peer").
@Suite struct RequestsInProgressTests {
    @Test func aNewcomerAtACapOfRequestsInProgressIsToldWhy() throws {
        try withRunningPair(tag: "busycap", phone: ["--control-max-clients", "4", "--control-max-followers", "1"], phoneFirst: true) { pair in
            // A logbook far larger than what a socket buffers: a client that does not read it stays a
            // request in progress (the daemon streams it only as fast as it is read).
            try pair.record(8_000)
            try pair.waitUntilDrained(timeout: 120)
            let logbook = ControlFrame(.request, Array(#"{"command":"logbook","role":"phone"}"#.utf8)).encoded
            let readers = try (0..<4).map { _ in try RawClient(path: pair.phoneHome + "/control.sock") }
            defer { readers.forEach { $0.close() } }
            for reader in readers {
                reader.send(logbook)
                // Its reply has begun (one read of at most 64 KB: the rest stays unread).
                try pair.waitUntil("the daemon streams the logbook") {
                    reader.receive(waitingUpTo: 0)
                    return !reader.received.isEmpty
                }
            }
            let refused = try runTool(["phone", "status", "--home", pair.phoneHome])
            #expect(refused.status == 1)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("the phone has 4 requests in progress, the most it takes: try again"), "\(refused.stderr)")
            try waitForLogLine(pair, pair.phoneLog, "event=control.too-many-clients", "action=refused")
            // Read to the end, they finish; then the CLI gets in.
            readers.forEach { $0.close() }
            try pair.waitUntil("the CLI gets in again") { try runTool(["phone", "status", "--home", pair.phoneHome]).status == 0 }
            // One follower at most, here: the second is refused in one line, exit 1.
            let follower = try RunningTool(["phone", "events", "--follow", "--home", pair.phoneHome])
            defer { follower.signal(SIGKILL); _ = follower.wait() }
            // It printed the recent calls: its reply came, and it follows.
            try pair.waitUntil("the first follower is held") { !follower.stdoutSoFar.isEmpty }
            let second = try runTool(["phone", "events", "--follow", "--home", pair.phoneHome])
            #expect(second.status == 1 && second.stderr.contains("already has 1 followers"), "\(second.stderr)")
            try pair.expectDrainedAndClean(stored: 8_000)
        }
    }
}
