import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The session's contract through the real binaries: the phone → watch direction, the link going out
/// of range, contexts, messages, device state, cancel, and the replay of didFinish.
@Suite struct SessionIntegrationTests {
    func jsonFile(_ pair: SimulatedPair, _ name: String, _ text: String) throws -> String {
        let path = pair.root + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ arguments: [String]) throws -> CommandResult { try runTool(arguments) }

    @Test func userInfoFlowsFromThePhoneToTheWatchInOrder() throws {
        try withRunningPair(tag: "p2w") { pair in
            try pair.waitUntil("the phone knows the watch app") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
            var ids: [Int] = []
            for n in 0..<5 {
                let result = try run([
                    "phone", "transfer-userinfo", "--home", pair.phoneHome, "--json-file",
                    try jsonFile(pair, "u\(n).json", #"{"n": \#(n), "note": "from the phone"}"#),
                ])
                #expect(result.status == 0, "\(result.stderr)")
                ids.append(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1)
            }
            #expect(ids == [1, 2, 3, 4, 5])
            try pair.waitUntil("the watch received all five") {
                try JSONValue(parsing: try run(["watch", "received", "--home", pair.watchHome, "--json"]).stdout).arrayValue?.count == 5
            }
            let received = try JSONValue(parsing: try run(["watch", "received", "--home", pair.watchHome, "--json"]).stdout)
            #expect(received.arrayValue?.map { $0["n"]?.intValue } == [0, 1, 2, 3, 4])
            #expect(try pair.status("phone")["outstandingUserInfoTransfers"] == .integer(0))
        }
    }

    @Test func flightsQueuedWhileTheLinkIsDownArriveWhenItComesBack() throws {
        try withRunningPair(tag: "range") { pair in
            try pair.record(10)
            try pair.waitUntilDrained()
            #expect(try run(["link", "down", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("the link is down") { try pair.status("watch")["reachable"] == .bool(false) }
            try pair.record(40)
            #expect(try pair.outstandingTransfers() == 40)
            #expect(try pair.storedCount() == 10)
            #expect(try pair.status("phone")["reachable"] == .bool(false))
            #expect(try run(["link", "up", "--home", pair.watchHome]).status == 0)
            try pair.expectDrainedAndClean(stored: 50)
        }
    }

    @Test func payloadErrorsCarryTheirCodeAndName() throws {
        try withRunningPair(tag: "payload", phone: nil) { pair in
            let null = try run(["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", try jsonFile(pair, "n.json", #"{"a": {"b": null}}"#)])
            #expect(null.status == 1)
            #expect(null.stderr.contains("7010 payloadUnsupportedTypes"))
            let big = String(repeating: "x", count: 70_000)
            let large = try run(["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", try jsonFile(pair, "l.json", #"{"a": "\#(big)"}"#)])
            #expect(large.status == 1)
            #expect(large.stderr.contains("7009 payloadTooLarge"))
            let context = try run([
                "watch", "context", "set", "--home", pair.watchHome, "--json-file",
                try jsonFile(pair, "c.json", #"{"a": "\#(String(repeating: "y", count: 270_000))"}"#),
            ])
            #expect(context.status == 1)
            #expect(context.stderr.contains("7009 payloadTooLarge"))
            let array = try run(["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", try jsonFile(pair, "a.json", "[1, 2]")])
            #expect(array.status == 2)
            #expect(array.stderr.contains("must hold a JSON object"))
            let invalid = try run(["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", try jsonFile(pair, "i.json", "{nope")])
            #expect(invalid.status == 2)
            #expect(try pair.outstandingTransfers() == 0)
        }
    }

    @Test func theApplicationContextArrivesOnceAndLatestOnly() throws {
        try withRunningPair(tag: "ctx", phone: nil) { pair in
            for version in 1...3 {
                let file = try jsonFile(pair, "c\(version).json", #"{"version": \#(version)}"#)
                #expect(try run(["watch", "context", "set", "--home", pair.watchHome, "--json-file", file]).status == 0)
            }
            // Set again, identical: nothing new to deliver.
            #expect(try run(["watch", "context", "set", "--home", pair.watchHome, "--json-file", pair.root + "/c3.json"]).stdout.contains("version 3"))
            try pair.startPhone()
            try pair.waitUntil("the phone has the context") {
                try JSONValue(parsing: try run(["phone", "context", "get", "--home", pair.phoneHome, "--json"]).stdout)["receivedApplicationContext"]?[
                    "version"] == .integer(3)
            }
            // Bounce the link and the phone: the context is durable and not delivered again.
            pair.killPhone()
            try pair.startPhone()
            try pair.waitUntil("the link is back") { try pair.status("phone")["linked"] == .bool(true) }
            let got = try JSONValue(parsing: try run(["phone", "context", "get", "--home", pair.phoneHome, "--json"]).stdout)
            #expect(got["receivedApplicationContext"] == .object(["version": .integer(3)]))
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.components(separatedBy: "event=app.context-received").count - 1 == 1)
        }
    }

    @Test func messagesNeedReachabilityAndTimeOut() throws {
        try withRunningPair(tag: "msg", phone: nil) { pair in
            let ping = try jsonFile(pair, "ping.json", #"{"ping": 1}"#)
            let unreachable = try run(["watch", "message", "--home", pair.watchHome, "--json-file", ping])
            #expect(unreachable.status == 1)
            #expect(unreachable.stderr.contains("7007 notReachable"))
            try pair.startPhone()
            try pair.waitUntil("the phone can reach the watch") { try pair.status("phone")["reachable"] == .bool(true) }
            let reply = try run(["phone", "message", "--home", pair.phoneHome, "--json-file", ping, "--json"])
            #expect(reply.status == 0)
            #expect(try JSONValue(parsing: reply.stdout)["repliedBy"] == .string("watch"))
            let silent = try jsonFile(pair, "silent.json", #"{"noReply": true}"#)
            let timedOut = try run(["phone", "message", "--home", pair.phoneHome, "--json-file", silent, "--timeout", "300"])
            #expect(timedOut.status == 1)
            #expect(timedOut.stderr.contains("7012 messageReplyTimedOut"))
            // A backgrounded watch app is not reachable from the phone, and (as on watchOS, where isReachable
            // needs the WatchKit extension in the foreground) cannot send messages itself: 7007 both ways.
            #expect(try run(["watch", "app", "background", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("the phone sees the watch app go") { try pair.status("phone")["reachable"] == .bool(false) }
            let background = try run(["phone", "message", "--home", pair.phoneHome, "--json-file", ping])
            #expect(background.stderr.contains("7007 notReachable"))
            #expect(try pair.status("watch")["reachable"] == .bool(false))
            let fromBackground = try run(["watch", "message", "--home", pair.watchHome, "--json-file", ping])
            #expect(fromBackground.status == 1)
            #expect(fromBackground.stderr.contains("7007 notReachable"))
            #expect(try run(["watch", "app", "foreground", "--home", pair.watchHome]).status == 0)
            #expect(try pair.status("watch")["reachable"] == .bool(true))
            #expect(try run(["watch", "message", "--home", pair.watchHome, "--json-file", ping]).status == 0)
            // An uninstalled watch app cannot send one either.
            #expect(try run(["watch", "app", "uninstall", "--home", pair.watchHome]).status == 0)
            #expect(try run(["watch", "message", "--home", pair.watchHome, "--json-file", ping]).stderr.contains("700"))
        }
    }

    @Test func theWatchAppsStateReachesThePhone() throws {
        try withRunningPair(tag: "appstate") { pair in
            try pair.waitUntil("installed") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
            #expect(try run(["watch", "app", "uninstall", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("uninstalled") { try pair.status("phone")["watchAppInstalled"] == .bool(false) }
            let refused = try run(["phone", "transfer-userinfo", "--home", pair.phoneHome, "--json-file", try jsonFile(pair, "x.json", "{}")])
            #expect(refused.stderr.contains("7006 watchAppNotInstalled"))
            #expect(try run(["watch", "record", "--home", pair.watchHome]).status == 1)
            // Remembered across a restart of the phone, before the watch says anything.
            pair.killPhone()
            #expect(try run(["link", "down", "--home", pair.watchHome]).status == 0)
            try pair.startPhone()
            #expect(try pair.status("phone")["watchAppInstalled"] == .bool(false))
            #expect(try run(["watch", "app", "install", "--home", pair.watchHome]).status == 0)
            #expect(try run(["link", "up", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("reinstalled") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
        }
    }

    @Test func cancelWorksUntilDeliveryAndDidFinishIsReplayedAfterARestart() throws {
        try withRunningPair(tag: "cancel", phone: nil) { pair in
            #expect(try run(["link", "down", "--home", pair.watchHome]).status == 0)
            for n in 1...3 {
                #expect(
                    try run(["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", try jsonFile(pair, "t\(n).json", #"{"n": \#(n)}"#)]).status
                        == 0)
            }
            let listed = try JSONValue(parsing: try run(["watch", "transfers", "--home", pair.watchHome, "--json"]).stdout)
            // Queued, not yet delivered: isTransferring, as Apple documents it; none on the wire (link down).
            #expect(listed["outstanding"]?.arrayValue?.map { $0["isTransferring"] } == [.bool(true), .bool(true), .bool(true)])
            #expect(listed["outstanding"]?.arrayValue?.map { $0["onTheWire"] } == [.bool(false), .bool(false), .bool(false)])
            // Keys and sizes, not payloads.
            #expect(listed["outstanding"]?.arrayValue?.map { $0["keys"] } == Array(repeating: .array([.string("n")]), count: 3))
            #expect(listed["outstanding"]?.arrayValue?.allSatisfy { ($0["bytes"]?.intValue ?? 0) > 0 && $0["userInfo"] == nil } == true)
            #expect(try run(["watch", "cancel", "2", "--home", pair.watchHome]).status == 0)
            // The phone stores transfers 1 and 3; the watch dies right after its outbox delete commits,
            // before its app is told (didFinish).
            try pair.startPhone()
            pair.killWatch()
            try pair.startWatch(environment: ["RUNWAY_CRASH_AT": "send.before-did-finish"])
            #expect(pair.watch!.waitForExit(timeout: 30), "the watch never reached send.before-did-finish")
            try pair.startWatch()
            let after = try JSONValue(parsing: try run(["watch", "transfers", "--home", pair.watchHome, "--json"]).stdout)
            let finished = after["recentlyFinished"]?.arrayValue ?? []
            #expect(finished.map { $0["transferId"]?.intValue } == [1, 3])
            #expect(finished.allSatisfy { $0["replayed"] == .bool(true) })
            let received = try JSONValue(parsing: try run(["phone", "received", "--home", pair.phoneHome, "--json"]).stdout)
            #expect(received.arrayValue?.map { $0["n"]?.intValue } == [1, 3])
            let late = try run(["watch", "cancel", "1", "--home", pair.watchHome])
            #expect(late.status == 1)
            #expect(late.stderr.contains("already delivered"))
        }
    }
}
