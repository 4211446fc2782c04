import Connectivity
import Control
import JSONText
import Testing

/// Typed replies: what the daemon encodes the client decodes to the same value, and a reply of another
/// shape is one line, exit 1 (a daemon of another version), never a crash or a silent zero.
@Suite struct ControlReplyTests {
    func roundTrips<Reply: ControlReply>(_ reply: Reply) throws -> Bool {
        try Reply(json: reply.json, replyTo: "test") == reply
    }

    @Test func everyReplyTypeRoundTrips() throws {
        #expect(try roundTrips(TransferUserInfoReply(transferId: 7)))
        #expect(try roundTrips(ContextSetReply(version: 3)))
        #expect(try roundTrips(ContextGetReply(applicationContext: ["a": .integer(1)], receivedApplicationContext: [:])))
        #expect(try roundTrips(MessageReply(.reply(["pong": .bool(true)]))))
        #expect(try roundTrips(MessageReply(.delivered)))
        #expect(try roundTrips(CancelReply(cancelled: 4)))
        #expect(try roundTrips(QuarantineRemoveReply(removed: 2)))
        let item = NotificationItem(id: "d", fireAt: "f", deliveredAt: "f", title: "t", body: "b", language: "", fireAtSeconds: 1, deliveredAtSeconds: 1)
        #expect(try roundTrips(ClockReply(now: "2026-10-01T07:00:00Z", mode: "frozen", offsetSeconds: 0, delivered: [item])))
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
        #expect(try StatusReply(json: device.json, replyTo: "status").other.keys.sorted() == ["inbox", "language"])
        // Absent values are JSON nulls, as phone-os always wrote them.
        #expect(status.json["appPid"] == .null)
    }

    @Test func theWireFormIsTheOneTheDaemonsWrote() throws {
        #expect(
            RecordReply(ids: ["A"], firstTransfer: 1, lastTransfer: 1, endingAt: 5).json
                == .object(["ids": .array([.string("A")]), "firstTransfer": .integer(1), "lastTransfer": .integer(1), "endingAt": .number(5)]))
        #expect(MessageReply(.delivered).json == .object(["delivered": .bool(true)]))
        #expect(
            ClockReply(now: "x", mode: "frozen", offsetSeconds: 0).json
                == .object(["now": .string("x"), "mode": .string("frozen"), "offsetSeconds": .number(0)]))
        #expect(CancelReply(cancelled: 4).json == .object(["cancelled": .integer(4), "alreadyCancelled": .bool(false)]))
        #expect(MessageDataReply(.reply([1, 2, 3])).json == .object(["reply": .string("AQID")]))
        // phone-os's status: absent values as nulls, watch-os's own fields only when set.
        var status = OSStatusReply(
            home: "/h", pid: 9, appState: "background", appPid: nil, forceQuit: false, launches: ["user": 1], launchCount: 1,
            lastLaunchReason: "user", reclaims: 0, jetsams: 0, declinedLaunches: 0, readyReports: 1, backgroundBudgetMs: 30_000,
            remainingBudgetMs: 120, launchTimeoutMs: 5000)
        #expect(
            status.json
                == .object([
                    "home": .string("/h"), "pid": .integer(9), "appState": .string("background"), "appPid": .null, "forceQuit": .bool(false),
                    "launches": .object(["user": .integer(1)]), "launchCount": .integer(1), "lastLaunchReason": .string("user"),
                    "reclaims": .integer(0), "jetsams": .integer(0), "declinedLaunches": .integer(0), "readyReports": .integer(1),
                    "backgroundBudgetMs": .integer(30_000), "remainingBudgetMs": .integer(120), "launchTimeoutMs": .integer(5000),
                    "failedLaunches": .integer(0), "failuresInARow": .integer(0), "lastFailure": .null, "backoffRemainingMs": .null,
                    "appInstalled": .bool(true), "appVersion": .null, "locked": .bool(false), "lockedAfterReboot": .bool(false),
                    "systemSuspensions": .integer(0),
                ]))
        status.phoneInRange = true
        #expect(status.json["phoneInRange"] == .bool(true) && status.json["backgroundTasksCompleted"] == nil)
        var link = LinkConditionsReply(
            conditions: LinkConditions(latencyMilliseconds: 50, jitterMilliseconds: 20, loss: 0.25, bandwidthKbps: 0, range: .wifi), connected: true,
            seed: 7, framesCarried: 10, framesLost: 1)
        link.bytesInAir = 3
        #expect(
            link.json
                == .object([
                    "range": .string("wifi"), "latencyMs": .integer(50), "jitterMs": .integer(20), "loss": .number(0.25), "bandwidthKbps": .integer(0),
                    "effective": .object([
                        "latencyMs": .integer(50 + Int64(LinkConditions.wifiLatencyMilliseconds)),
                        "jitterMs": .integer(20 + Int64(LinkConditions.wifiJitterMilliseconds)), "loss": .number(0.25),
                        "bandwidthKbps": .integer(Int64(LinkConditions.wifiBandwidthKbps)),
                    ]),
                    "connected": .bool(true), "seed": .integer(7), "framesCarried": .integer(10), "framesLost": .integer(1), "bytesInAir": .integer(3),
                    "mostBytesInAir": .integer(0), "scheduleSteps": .integer(0), "scheduleApplied": .integer(0),
                ]))
        #expect(try LinkConditionsReply(json: link.json, replyTo: "link-show") == link)
        #expect(link.conditions == LinkConditions(latencyMilliseconds: 50, jitterMilliseconds: 20, loss: 0.25, bandwidthKbps: 0, range: .wifi))
    }

    @Test func aLiveRunsRepliesAreTheOnesTheDevicesWrote() throws {
        #expect(RunStatusReply.idle.json == .object(["state": .string("idle"), "startOrigin": .null]))
        var running = RunStatusReply(state: "running")
        running.runId = "R"
        running.startOrigin = "local"
        running.samples = 2
        running.pace = 360
        running.trace = [RunDecision(t: 1, pace: 360, hr: 150, stationary: false, decided: true, gpws: "CLEAR", alert: nil)]
        #expect(
            running.json
                == .object([
                    "state": .string("running"), "runId": .string("R"), "startOrigin": .string("local"), "samples": .integer(2), "pace": .number(360),
                    "trace": .array([
                        .object([
                            "t": .number(1), "pace": .number(360), "hr": .number(150), "stationary": .bool(false), "decided": .bool(true),
                            "gpws": .string("CLEAR"), "alert": .null,
                        ])
                    ]),
                ]))
        #expect(try RunStatusReply(json: running.json, replyTo: "run-sample") == running)
        var stopped = RunStopReply(id: "R", distanceKm: 5.2, durationSeconds: 1800, alerts: 1, startOrigin: "remote")
        stopped.transferred = false
        #expect(
            stopped.json
                == .object([
                    "id": .string("R"), "distanceKm": .number(5.2), "durationSeconds": .number(1800), "alerts": .integer(1),
                    "startOrigin": .string("remote"), "transferred": .bool(false),
                ]))
        #expect(try RunStopReply(json: stopped.json, replyTo: "run-stop") == stopped)
    }

    @Test func theQueuesListsAreTheOnesTheSessionWrote() throws {
        let transfers = TransfersReply(
            outstandingUserInfoTransfers: 1, outstanding: [.init(transferId: 3, isTransferring: true, onTheWire: false, keys: ["a", "type"], bytes: 40)],
            finishedSinceStart: 2, recentlyFinished: [.init(transferId: 1, replayed: false, error: nil), .init(transferId: 2, replayed: true, error: "7017 x")])
        #expect(
            transfers.json
                == .object([
                    "outstandingUserInfoTransfers": .integer(1),
                    "outstanding": .array([
                        .object([
                            "transferId": .integer(3), "isTransferring": .bool(true), "onTheWire": .bool(false),
                            "keys": .array([.string("a"), .string("type")]),
                            "bytes": .integer(40),
                        ])
                    ]),
                    "finishedSinceStart": .integer(2),
                    "recentlyFinished": .array([
                        .object(["transferId": .integer(1), "replayed": .bool(false), "error": .null]),
                        .object(["transferId": .integer(2), "replayed": .bool(true), "error": .string("7017 x")]),
                    ]),
                ]))
        #expect(try TransfersReply(json: transfers.json, replyTo: "transfers") == transfers)
        let quarantine = QuarantineReply(
            quarantined: 1, receivedMessages: 0,
            transfers: [.init(id: 1, transferId: 9, peer: "W", reason: "r", quarantinedAt: "t", bytes: 3, userInfo: nil, payloadBase64: "AQID")])
        #expect(
            quarantine.json
                == .object([
                    "quarantined": .integer(1), "receivedMessages": .integer(0),
                    "transfers": .array([
                        .object([
                            "id": .integer(1), "transferId": .integer(9), "peer": .string("W"), "reason": .string("r"), "quarantinedAt": .string("t"),
                            "bytes": .integer(3), "payloadBase64": .string("AQID"),
                        ])
                    ]),
                ]))
        #expect(try QuarantineReply(json: quarantine.json, replyTo: "quarantine") == quarantine)
    }

    @Test func fieldsAddedLaterReadAsTheirDefaultsFromAnOlderDaemon() throws {
        let older: JSONValue = .object([
            "home": .string("/h"), "pid": .integer(9), "appState": .string("notRunning"), "forceQuit": .bool(false), "launches": .object([:]),
            "launchCount": .integer(0), "lastLaunchReason": .string(""), "reclaims": .integer(0), "jetsams": .integer(0),
            "declinedLaunches": .integer(0), "readyReports": .integer(0), "backgroundBudgetMs": .integer(30_000),
        ])
        let status = try OSStatusReply(json: older, replyTo: "os-status")
        #expect(status.appInstalled && !status.locked && status.launchTimeoutMs == 0 && status.appPid == nil && status.appVersion == nil)
        #expect(try CancelReply(json: .object(["cancelled": .integer(2)]), replyTo: "cancel") == CancelReply(cancelled: 2))
    }

    @Test func aReplyOfAnotherShapeIsOneLineExitOne() {
        for json: JSONValue in [.null, .array([]), .object([:]), .object(["transferId": .string("7")])] {
            do {
                _ = try TransferUserInfoReply(json: json, replyTo: "transfer-userinfo")
                Issue.record("\(json) decoded")
            } catch {
                #expect(error.exitStatus == 1 && !error.message.contains("\n"))
                #expect(error.message.contains("transfer-userinfo"))
            }
        }
        #expect(throws: ControlError.self) {
            try RecordReply(
                json: .object(["ids": .array([.integer(1)]), "firstTransfer": .integer(1), "lastTransfer": .integer(1), "endingAt": .number(1)]),
                replyTo: "record")
        }
        #expect(throws: ControlError.self) { try MessageReply(json: .object(["delivered": .bool(false)]), replyTo: "message") }
    }
}
