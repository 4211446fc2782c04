import Control
import JSONText
import Testing

/// Typed replies: what the daemon encodes the client decodes to the same value, and a reply of another
/// shape is one line, exit 1 (a daemon of another version), never a crash or a silent zero.
@Suite struct ControlReplyTests {
    func roundTrips<Reply: ControlReply>(_ reply: Reply) throws -> Bool {
        try Reply(json: reply.json) == reply
    }

    @Test func everyReplyTypeRoundTrips() throws {
        #expect(try roundTrips(TransferUserInfoReply(transferId: 7)))
        #expect(try roundTrips(ContextSetReply(version: 3)))
        #expect(try roundTrips(ContextGetReply(applicationContext: .object(["a": .integer(1)]), receivedApplicationContext: .object([:]))))
        #expect(try roundTrips(MessageReply(.reply(.object(["pong": .bool(true)])))))
        #expect(try roundTrips(MessageReply(.delivered)))
        #expect(try roundTrips(CancelReply(cancelled: 4)))
        #expect(try roundTrips(QuarantineRemoveReply(removed: 2)))
        #expect(try roundTrips(ClockReply(now: "2026-10-01T07:00:00Z", mode: "frozen", offsetSeconds: 0, delivered: [.object([:])])))
        #expect(try roundTrips(ClockReply(now: "2026-10-01T07:00:00Z", mode: "offset", offsetSeconds: 1.5)))
        #expect(try roundTrips(RecordReply(ids: ["A", "B"], firstTransfer: 1, lastTransfer: 2, endingAt: 1.8e9)))
        #expect(try roundTrips(LinkReply(link: "down")))
        #expect(try roundTrips(WatchAppReply(watchAppInstalled: true, watchAppActive: false)))
        #expect(try roundTrips(FailNextReply(count: 2, code: 7017, name: "transferTimedOut")))
        let status = OSStatusReply(
            home: "/h", pid: 9, appState: "background", appPid: nil, forceQuit: false, launches: ["user": 1], launchCount: 1,
            lastLaunchReason: "user", reclaims: 0, jetsams: 0, declinedLaunches: 0, readyReports: 1, backgroundBudgetMs: 30_000,
            remainingBudgetMs: 120)
        #expect(try roundTrips(status))
        var device = StatusReply(
            role: "watch", pid: 7, activationState: "activated", paired: true, linked: false, reachable: false, watchAppInstalled: true,
            outstandingUserInfoTransfers: 3,
            outbox: .init(depth: 3, inFlight: 1, lastSentTransfer: 9, lastAcknowledgedTransfer: 8, window: 64),
            other: ["language": .string("ko"), "inbox": .object(["depth": .integer(0)])])
        device.linkEnabled = false
        #expect(try roundTrips(device))
        // The free-form fields travel beside the typed ones; a device's own typed field is there only when set.
        #expect(device.json["language"] == .string("ko") && device.json["outbox"]?["window"] == .integer(64))
        #expect(device.json["linkEnabled"] == .bool(false) && device.json["flights"] == nil)
        #expect(try StatusReply(json: device.json).other.keys.sorted() == ["inbox", "language"])
        // Absent values are JSON nulls, as phone-os always wrote them.
        #expect(status.json["appPid"] == .null)
    }

    @Test func theWireFormIsTheOneTheDaemonsWrote() {
        #expect(
            RecordReply(ids: ["A"], firstTransfer: 1, lastTransfer: 1, endingAt: 5).json
                == .object(["ids": .array([.string("A")]), "firstTransfer": .integer(1), "lastTransfer": .integer(1), "endingAt": .number(5)]))
        #expect(MessageReply(.delivered).json == .object(["delivered": .bool(true)]))
        #expect(
            ClockReply(now: "x", mode: "frozen", offsetSeconds: 0).json
                == .object(["now": .string("x"), "mode": .string("frozen"), "offsetSeconds": .number(0)]))
    }

    @Test func aReplyOfAnotherShapeIsOneLineExitOne() {
        for json: JSONValue in [.null, .array([]), .object([:]), .object(["transferId": .string("7")])] {
            do {
                _ = try TransferUserInfoReply(json: json)
                Issue.record("\(json) decoded")
            } catch {
                #expect(error.exitStatus == 1 && !error.message.contains("\n"))
                #expect(error.message.contains("transfer-userinfo"))
            }
        }
        #expect(throws: ControlError.self) {
            try RecordReply(json: .object(["ids": .array([.integer(1)]), "firstTransfer": .integer(1), "lastTransfer": .integer(1), "endingAt": .number(1)]))
        }
        #expect(throws: ControlError.self) { try MessageReply(json: .object(["delivered": .bool(false)])) }
    }
}
