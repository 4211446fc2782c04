import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Issue 50, row 2: suspension as iOS does it, through the binaries — phone-os hosting an app of one's own
/// (`probe-app`: saves each userInfo's id, answers messages with its pid), RunWay's watch sending.
///
/// Apple's `sendMessage(_:replyHandler:errorHandler:)`: "Calling this method from your WatchKit extension
/// while it is active and running wakes up the corresponding iOS app in the background and makes it
/// reachable." `WKApplicationState.background`: "The system can wake suspended apps in the background."
/// `applicationDidEnterBackground()`: "The system typically suspends your app shortly after this method
/// returns" — suspended is a background app's usual state, and "the system may purge suspended apps at
/// any time".
///
/// On the code before issue 50: phone-os never suspended an app by itself (the wait for it timed out), and
/// a suspended app was not woken: the watch's message failed with 7012 after its whole time-out.
@Suite(.serialized) struct PhoneOSSuspensionTests {
    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.phoneOSCall(["os", "status"]) }

    func message(_ pair: SimulatedPair, timeoutMilliseconds: Int = 20_000, noReply: Bool = false) throws -> CommandResult {
        let path = try pair.jsonFile(#"{"ping": 1}"#)
        return try runTool(
            ["watch", "message", "--home", pair.watchHome, "--json-file", path, "--timeout", String(timeoutMilliseconds), "--json"]
                + (noReply ? ["--no-reply"] : []))
    }

    func messagesLog(_ pair: SimulatedPair) -> [String] {
        let text = (try? String(contentsOfFile: pair.phoneHome + "/apps/probe-app/Documents/messages.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The user's `app suspend` of a backgrounded app, then a message from the watch: the same process is
    /// woken (not launched again), answers, and is back in the background with its budget renewed.
    @Test func aSuspendedPhoneAppIsWokenByAWatchMessageAndAnswersIt() throws {
        try withRunningPair(tag: "wake-msg", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "60000"])
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the watch is linked") { try pair.status("watch")["linked"] == .bool(true) }
            _ = try pair.phoneOSCall(["app", "close"])
            _ = try pair.phoneOSCall(["app", "suspend"])
            let pid = try #require(try osStatus(pair)["appPid"]?.intValue)
            #expect(try osStatus(pair)["appState"]?.stringValue == "suspended")

            let result = try message(pair)
            #expect(result.status == 0, "woken for the message, not 7012 after the time-out: \(result.stderr)")
            let reply = try? JSONValue(parsing: result.stdout)
            #expect(reply?["repliedBy"] == .string("probe"))
            #expect(reply?["pid"]?.intValue == pid, "the same process answered: woken, not launched again")
            let status = try osStatus(pair)
            #expect(status["appState"]?.stringValue == "background", "\(status.text)")
            #expect(status["wakes"]?["message"]?.intValue == 1, "\(status.text)")
            #expect(status["launchCount"]?.intValue == 1)
            #expect(messagesLog(pair) == ["reply ping"])
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=os.woken pid=\(pid) reason=\"the counterpart sent a message\""))
        }
    }

    /// A background launch for the watch's transfers: once its work is done and it has been quiet, phone-os
    /// suspends it by itself; a transfer wakes it (the same process saves the new entries, in order, none
    /// lost), a message wakes it and is answered, and it is suspended again each time its work is done.
    @Test func aBackgroundAppIsSuspendedWhenItsWorkIsDoneAndWokenForTransfersAndMessages() throws {
        try withRunningPair(tag: "auto-susp", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "60000", "--suspend-after-idle-ms", "300"])
            try pair.record(5)
            try pair.waitUntilDrained()
            try pair.waitUntil("phone-os suspends the app once its work is done") {
                let status = try osStatus(pair)
                return status["appState"]?.stringValue == "suspended" && status["suspendedBySystem"] == .bool(true)
            }
            let pid = try #require(try osStatus(pair)["appPid"]?.intValue)
            #expect(try osStatus(pair)["launches"]?["watch-transfer"]?.intValue == 1)

            try pair.record(5)
            try pair.waitUntilDrained()
            let report = DeliveryReport.check(sent: pair.recorded, received: YourOwnAppTests.received(home: pair.phoneHome))
            #expect(report.isClean, "\(report)")
            try pair.waitUntil("suspended again, its work done") { try osStatus(pair)["systemSuspensions"]?.intValue ?? 0 >= 2 }
            #expect(try osStatus(pair)["wakes"]?["transfer"]?.intValue ?? 0 >= 1)

            let result = try message(pair)
            #expect(result.status == 0, "\(result.stderr)")
            #expect((try? JSONValue(parsing: result.stdout))?["pid"]?.intValue == pid)
            let status = try osStatus(pair)
            #expect(status["appPid"]?.intValue == pid && status["launchCount"]?.intValue == 1, "one launch throughout: \(status.text)")
            #expect(status["wakes"]?["message"]?.intValue == 1, "\(status.text)")
            try pair.waitUntil("suspended once more") { try osStatus(pair)["systemSuspensions"]?.intValue ?? 0 >= 3 }
        }
    }

    /// A suspended app is still reclaimed at the end of its background budget (Apple: the system purges
    /// suspended apps); the watch's next transfer launches it afresh and nothing is lost.
    @Test func aSuspendedAppIsReclaimedAtTheEndOfItsBudget() throws {
        try withRunningPair(tag: "susp-purge", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "2000", "--suspend-after-idle-ms", "200"])
            try pair.record(3)
            try pair.waitUntilDrained()
            try pair.waitUntil("suspended") { try osStatus(pair)["appState"]?.stringValue == "suspended" }
            try pair.waitUntil("reclaimed at the budget's end") { try osStatus(pair)["appState"]?.stringValue == "not running" }
            #expect(try osStatus(pair)["reclaims"]?.intValue == 1)
            try pair.record(3)
            try pair.waitUntilDrained()
            #expect(try osStatus(pair)["launchCount"]?.intValue == 2)
            let report = DeliveryReport.check(sent: pair.recorded, received: YourOwnAppTests.received(home: pair.phoneHome))
            #expect(report.isClean, "\(report)")
        }
    }

    /// `--no-wake` keeps the simulator's old behaviour, for a test that wants to show it: the suspended
    /// app is not woken, and the watch's message fails with 7012 at its time-out.
    @Test func withNoWakeASuspendedAppIsNotWokenAndTheMessageTimesOut() throws {
        try withRunningPair(tag: "no-wake", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "60000", "--no-wake"])
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the watch is linked") { try pair.status("watch")["linked"] == .bool(true) }
            _ = try pair.phoneOSCall(["app", "suspend"])
            let result = try message(pair, timeoutMilliseconds: 1500)
            #expect(result.status == 1)
            #expect((try? JSONValue(parsing: result.stderr))?["error"]?["code"]?.intValue == 7012, "\(result.stderr)")
            #expect(try osStatus(pair)["appState"]?.stringValue == "suspended")
            #expect(try osStatus(pair)["wakes"] == nil)
        }
    }
}
