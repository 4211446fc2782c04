import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// `runway {phone|watch} events --follow --json`: every delegate call, in order, as ndjson a test in any
/// language could read; a follower that does not read is detached; repeated link errors are rate-limited.
@Suite(.serialized) struct EventTraceTests {
    /// The ndjson a follower has printed so far (every line must be one JSON object).
    func events(_ tool: RunningTool) throws -> [JSONValue] { try ndjson(tool.stdoutSoFar) }

    func ndjson(_ text: String) throws -> [JSONValue] {
        try text.split(separator: "\n").map { try JSONValue(parsing: Array($0.utf8)) }
    }

    func calls(_ events: [JSONValue], _ names: Set<String>) -> [JSONValue] {
        events.filter { names.contains($0["call"]?.stringValue ?? "") }
    }

    /// The scripted scenario: activate, 3 flights, a context, a message, the phone killed and relaunched.
    @Test func eventsFollowShowsEachDelegateCallInOrder() throws {
        try withRunningPair(tag: "events", phoneFirst: true) { pair in
            try pair.waitUntil("the watch is linked", timeout: 30) { try pair.status("watch")["reachable"]?.boolValue == true }
            let watchFollower = try RunningTool(["watch", "events", "--follow", "--json", "--home", pair.watchHome])
            let phoneFollower = try RunningTool(["phone", "events", "--follow", "--json", "--home", pair.phoneHome])
            // Both replay the ring first: once activation is printed, each follows.
            try pair.waitUntil("both followers print the activation", timeout: 30) {
                try [watchFollower, phoneFollower].allSatisfy { try events($0).first?["call"] == .string("activationDidComplete") }
            }
            try pair.record(3)
            try pair.waitUntil("the watch hears of 3 finished transfers", timeout: 60) {
                try calls(events(watchFollower), ["didFinishUserInfoTransfer"]).count == 3
            }
            let payload = #"{"when":{"$date":"2026-11-30T07:00:00.250Z"},"blob":{"$data":"AAEC/w=="},"n":1}"#
            #expect(try runTool(["watch", "context", "set", "--json-file", "-", "--home", pair.watchHome], stdin: payload).status == 0)
            let message = try runTool(["watch", "message", "--json-file", "-", "--json", "--home", pair.watchHome], stdin: payload)
            #expect(message.status == 0, "\(message.stderr)")
            // A message the app never answers: the sender times out (7012), the trace says it was not answered.
            let unanswered = try runTool(
                ["watch", "message", "--json-file", "-", "--timeout", "300", "--home", pair.watchHome],
                stdin: #"{"noReply":true}"#)
            #expect(unanswered.status == 1 && unanswered.stderr.contains("7012"), "\(unanswered.stderr)")
            // And one sent without a reply handler: Apple's other didReceiveMessage.
            let oneWay = try runTool(["watch", "message", "--no-reply", "--json-file", "-", "--home", pair.watchHome], stdin: #"{"lap":2}"#)
            #expect(oneWay.status == 0, "\(oneWay.stderr)")
            try pair.waitUntil("the phone traces the three messages", timeout: 30) {
                try calls(events(phoneFollower), ["didReceiveMessage"]).count == 3
            }
            pair.killPhone()
            let phoneFollowed = phoneFollower.wait()
            #expect(phoneFollowed.status == 0)
            #expect(phoneFollowed.stderr.contains("closed the connection"))
            try pair.waitUntil("the watch hears the phone is unreachable", timeout: 30) {
                try calls(events(watchFollower), ["sessionReachabilityDidChange"]).last?["reachable"] == .bool(false)
            }
            try pair.startPhone()
            try pair.waitUntil("the watch hears the phone is back", timeout: 30) {
                try calls(events(watchFollower), ["sessionReachabilityDidChange"]).last?["reachable"] == .bool(true)
            }
            watchFollower.signal(SIGTERM)
            let watchFollowed = watchFollower.wait()

            // The watch: its activation (the first link already up: reachable is part of it, not a change),
            // the three transfers finished in order, the phone gone and back.
            let watch = try ndjson(watchFollowed.stdout)
            #expect(watch.map { $0["index"]?.intValue ?? 0 } == (0..<watch.count).map { $0 + 1 }, "one line per call, none missed or repeated")
            let watchCalls = calls(watch, ["activationDidComplete", "didFinishUserInfoTransfer", "sessionReachabilityDidChange"])
            #expect(
                watchCalls.map { $0["call"]!.stringValue! } == ["activationDidComplete"]
                    + Array(repeating: "didFinishUserInfoTransfer", count: 3) + ["sessionReachabilityDidChange", "sessionReachabilityDidChange"])
            #expect(watchCalls.first?["state"] == .string("activated"))
            #expect(watchCalls.compactMap { $0["seq"]?.intValue } == [1, 2, 3])
            #expect(watchCalls.filter { $0["call"] == .string("didFinishUserInfoTransfer") }.allSatisfy { $0["error"] == .null })
            #expect(watchCalls.compactMap { $0["reachable"]?.boolValue } == [false, true])

            // The phone: three transfers received and committed, then the context and the message, typed.
            let phone = try ndjson(phoneFollowed.stdout)
            #expect(phone.first?["call"] == .string("activationDidComplete"), "the trace starts with the activation")
            #expect(phone.map { $0["index"]?.intValue ?? 0 } == (0..<phone.count).map { $0 + 1 })
            let received = calls(phone, ["didReceiveUserInfo"])
            #expect(received.compactMap { $0["seq"]?.intValue } == [1, 2, 3])
            #expect(received.allSatisfy { $0["outcome"] == .string("accepted") && ($0["bytes"]?.intValue ?? 0) > 0 })
            #expect(received.allSatisfy { $0["keys"]?.arrayValue?.contains(.string("id")) == true })
            let committed = calls(phone, ["didCommitReceivedTransfers"])
            #expect(committed.compactMap { $0["count"]?.intValue }.reduce(0, +) == 3)
            #expect(committed.last?["lastSeq"] == .integer(3))
            let tail = calls(phone, ["didReceiveUserInfo", "didReceiveApplicationContext", "didReceiveMessage"]).map { $0["call"]!.stringValue! }
            #expect(tail.suffix(4) == ["didReceiveApplicationContext", "didReceiveMessage", "didReceiveMessage", "didReceiveMessage"])
            let expected = try JSONValue(parsing: Array(payload.utf8))
            #expect(calls(phone, ["didReceiveApplicationContext"]).last?["context"] == expected)
            let messages = calls(phone, ["didReceiveMessage"])
            #expect(messages.first?["message"] == expected)
            #expect(messages.map { $0["repliedAtOnce"] } == [.bool(true), .bool(false), nil])
            #expect(messages.map { $0["replyHandler"] } == [.bool(true), .bool(true), .bool(false)])
            #expect(messages.last?["message"] == .object(["lap": .integer(2)]))

            // The relaunched phone's trace starts again with its activation.
            let after = try runTool(["phone", "events", "--json", "--home", pair.phoneHome])
            let relaunched = try ndjson(after.stdout)
            #expect(relaunched.first?["call"] == .string("activationDidComplete"))
            #expect(relaunched.first?["index"] == .integer(1))

            let report = try pair.check()
            #expect(report.isClean, "\(report.violations)")
            #expect(report.stored == 3)
        }
    }

    /// A follower that never reads is detached once 4 MiB of events wait for it; saving goes on.
    @Test func aFollowerThatDoesNotReadIsDetached() throws {
        try withRunningPair(tag: "ev-slow", phoneFirst: true) { pair in
            let stalled = try RawClient(path: pair.phoneHome + "/control.sock")
            #expect(stalled.send(ControlFrame(.request, Array(#"{"command":"events","follow":true,"limit":0}"#.utf8)).encoded))
            try pair.record(30_000, distanceKm: 5)
            try pair.waitUntilDrained(timeout: 300)
            try waitForLogLine(pair, pair.phoneLog, "event=control.events-unread", "action=detached", timeout: 30)
            #expect(stalled.waitUntilClosed(timeout: 30))
            let report = try pair.check()
            #expect(report.isClean, "\(report.violations)")
            #expect(report.stored == 30_000)
        }
    }

    /// An unpaired watch is refused about once a second; each side writes the refusal once, then at most
    /// one line an interval (`repeated=N`), not one per attempt.
    @Test func repeatedRefusalsAreRateLimitedInTheLog() throws {
        try withRunningPair(tag: "ev-repeat", watch: nil, phone: ["--log-repeat-interval-ms", "3000"]) { pair in
            pair.watchArguments = ["--log-repeat-interval-ms", "3000"]
            #expect(try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.root + "/other-watch", "--replace"]).status == 0)
            try pair.startWatch()
            try pair.record(1)
            func refusals(_ path: String, _ event: String) -> [Substring] {
                logText(path).split(separator: "\n").filter { $0.contains("event=\(event) code=7005") }
            }
            try pair.waitUntil("both logs summarise repeated refusals", timeout: 60) {
                refusals(pair.phoneLog, "link.refused").contains { $0.contains("repeated=") }
                    && refusals(pair.watchLog, "link.refused-by-peer").contains { $0.contains("repeated=") }
            }
            for (path, event) in [(pair.phoneLog, "link.refused"), (pair.watchLog, "link.refused-by-peer")] {
                let lines = refusals(path, event)
                #expect(!lines[0].contains("repeated="), "the first refusal is written as it is")
                let represented = lines.map { line -> Int in
                    guard let range = line.range(of: "repeated=") else { return 1 }
                    return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
                }
                // Fewer lines than refusals: the summaries stand for the ones held back.
                #expect(represented.reduce(0, +) > lines.count, "\(lines)")
                #expect(represented.allSatisfy { $0 >= 1 })
            }
            #expect(try pair.outstandingTransfers() == 1)
        }
    }
}
