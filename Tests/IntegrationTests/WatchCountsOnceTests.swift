import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Issue 51, item 5: RunWay's watch app counts each transfer once across redeliveries, as the phone's
/// app dedups flights by id. At-least-once delivery is the contract: the app's store commits a batch
/// just before the session's cursor does (`receive.after-app-commit`), and a SIGKILL between the two
/// delivers the batch again. The watch kept each delivery (`received_userinfo` grew by a row, the
/// complication's `updates` by one) and so counted a redelivered transfer twice (1 run in 1,500 under
/// SIGKILLs). Now the app keeps, per sender and lane, the highest transfer it stored, in the batch's own
/// transaction, and takes a transfer at or under it as the one it has (`AppConnectivity.alreadyStored`).
@Suite(.serialized) struct WatchCountsOnceTests {
    static let userInfos = 4
    static let complications = 3

    func write(_ pair: SimulatedPair, _ name: String, _ json: String) throws -> String {
        let path = pair.root + "/" + name + ".json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func received(_ pair: SimulatedPair) throws -> [String] {
        let result = try runTool(["watch", "received", "--home", pair.watchHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway watch received failed: \(result.stderr)") }
        return (try JSONValue(parsing: result.stdout).arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    /// Waits for the watch daemon to SIGKILL itself at `point`.
    func expectCrash(_ pair: SimulatedPair, at point: String) throws {
        let watch = try #require(pair.watch)
        try #require(watch.waitForExit(timeout: 60), "\(point) was never reached; log: \(watch.logTail())")
        #expect(watch.terminationSignal == SIGKILL)
    }

    /// Both lanes' first batches are killed between the app's commit and the session's: each is
    /// delivered again, and the watch holds each userInfo once and counts each complication once.
    func redeliverBothLanes(_ pair: SimulatedPair) throws -> (received: [String], updates: Int?, sent: [String]) {
        try pair.startWatch()
        #expect(try runTool(["watch", "complication", "on", "--home", pair.watchHome]).status == 0)
        try pair.waitUntil("the phone sees the complication") { try pair.status("phone")["complicationEnabled"] == .bool(true) }
        pair.killWatch()
        try pair.waitUntil("the phone sees the watch gone") { try pair.status("phone")["linked"] == .bool(false) }
        // Queued on the phone while the watch is down: one batch per lane when it returns.
        var sent: [String] = []
        for n in 0..<Self.userInfos {
            let id = "u\(n)"
            let path = try write(pair, id, #"{"id": "\#(id)", "n": \#(n)}"#)
            #expect(try runTool(["phone", "transfer-userinfo", "--home", pair.phoneHome, "--json-file", path]).status == 0)
            sent.append(id)
        }
        for n in 0..<Self.complications {
            let path = try write(pair, "c\(n)", #"{"id": "c\#(n)", "complication": "next run in \#(n) h"}"#)
            let reply = try runTool(["phone", "transfer-complication", "--home", pair.phoneHome, "--json-file", path, "--json"])
            #expect(reply.status == 0)
            #expect(try JSONValue(parsing: reply.stdout)["isCurrentComplicationInfo"] == .bool(true))
        }
        // The first batch's app commit, then (relaunched) the second's: each lane's batch is redelivered.
        for point in ["receive.after-app-commit", "receive.after-app-commit:2"] {
            try pair.startWatch(environment: ["RUNWAY_CRASH_AT": point])
            try expectCrash(pair, at: point)
        }
        let log = try String(contentsOfFile: pair.watchLog, encoding: .utf8)
        #expect(log.components(separatedBy: "crash point receive.after-app-commit reached").count - 1 == 2)
        try pair.startWatch()
        try pair.waitUntil("everything the phone queued is acknowledged") {
            let phone = try pair.status("phone")
            return phone["outstandingUserInfoTransfers"] == .integer(0) && phone["outstandingComplicationTransfers"] == .integer(0)
        }
        return (try received(pair), try pair.status("watch")["complication"]?["updates"]?.intValue, sent)
    }

    @Test func aRedeliveredUserInfoAndComplicationAreCountedOnce() throws {
        try withRunningPair(tag: "w51e", watch: nil) { pair in
            let (received, updates, sent) = try redeliverBothLanes(pair)
            let report = DeliveryReport.check(sent: sent, received: received, exactlyOnce: true)
            #expect(report.isClean, "\(report)")
            #expect(updates == Self.complications, "each complication counted once")
            #expect(try pair.status("watch")["complication"]?["current"]?["id"] == .string("c\(Self.complications - 1)"))
            try pair.expectClean()
            let log = try String(contentsOfFile: pair.watchLog, encoding: .utf8)
            #expect(log.contains("event=app.transfer-redelivered") && log.contains("lane=complication"))
        }
    }

    /// The watch app before issue 51 (`watch-agent --received-transfers legacy`): the same crashes, and
    /// the checker names every userInfo of the batch delivered again as duplicated, and the complication
    /// counts each of its updates twice. This is what shows the test above can fail.
    @Test func theLegacyWatchAppCountsARedeliveredTransferTwice() throws {
        try withRunningPair(tag: "w51f", watch: nil) { pair in
            pair.watchArguments = ["--received-transfers", "legacy"]
            let (received, updates, sent) = try redeliverBothLanes(pair)
            let report = DeliveryReport.check(sent: sent, received: received, exactlyOnce: true)
            #expect(!report.isClean && report.lost.isEmpty)
            #expect(report.duplicated == sent, "the whole userInfo batch, delivered again, stored again")
            #expect(updates == 2 * Self.complications)
        }
    }
}
