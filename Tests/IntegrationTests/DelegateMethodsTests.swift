import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 50, row 1: what arrives for a delegate that lacks the method for it — through the binaries,
/// with an app of one's own on the phone (`probe-app --bare-delegate`: only
/// `session(_:activationDidCompleteWith:error:)`, the one method Apple requires) and RunWay's watch sending.
///
/// Apple's `sendMessage(_:replyHandler:errorHandler:)` and `session(_:didReceiveMessage:)` pages: the
/// no-reply callback "is called when the counterpart specifies `nil` for the reply handler", and the one
/// with a reply handler when it does not; a receiver whose delegate implements neither for what arrives
/// makes the sender's error handler run with `WCErrorCodeDeliveryFailed` (7014: "The data could not be
/// delivered", WCError.Code), at once — not `messageReplyTimedOut` (7012) after the time-out, which
/// blames the link, and never a success for a message nobody heard. The receiving session says why in
/// its log (`delegate.not-implemented`, the method's name), as Apple's console does.
///
/// On the code before issue 50: the reply-expecting sends failed with 7012 after their whole time-out,
/// the no-reply ones "succeeded" with nothing delivered, and the userInfo was acknowledged and dropped
/// with no line anywhere.
@Suite(.serialized) struct DelegateMethodsTests {
    func write(_ pair: SimulatedPair, _ name: String, _ bytes: Data) throws -> String {
        let path = pair.root + "/" + name
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The error `runway watch message …` exited with: its code and its words.
    func failure(_ result: CommandResult) throws -> (code: Int?, message: String) {
        let error = try JSONValue(parsing: result.stderr)["error"]
        return (error?["code"]?.intValue, error?["message"]?.stringValue ?? "")
    }

    @Test func aMessageForAMethodTheDelegateLacksFailsWithDeliveryFailedAndTheReceiverSaysWhich() throws {
        try withRunningPair(tag: "bare-msg", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--bare-delegate", "--background-budget-ms", "60000"])
            let json = try write(pair, "ping.json", Data(#"{"ping": 1}"#.utf8))
            let bytes = try write(pair, "ping.bin", Data([1, 2, 3]))
            // The time-out is long: a 7014 can only be the receiver's answer, never the sender giving up.
            let sends: [(arguments: [String], method: String)] = [
                (["--json-file", json], "session(_:didReceiveMessage:replyHandler:)"),
                (["--json-file", json, "--no-reply"], "session(_:didReceiveMessage:)"),
                (["--data-file", bytes], "session(_:didReceiveMessageData:replyHandler:)"),
                (["--data-file", bytes, "--no-reply"], "session(_:didReceiveMessageData:)"),
            ]
            for send in sends {
                let result = try runTool(["watch", "message", "--home", pair.watchHome, "--timeout", "60000", "--json"] + send.arguments)
                #expect(result.status == 1, "\(send.arguments): \(result.stdout) \(result.stderr)")
                let (code, message) = try failure(result)
                #expect(code == 7014, "\(send.arguments): deliveryFailed, not \(code ?? -1): \(message)")
                #expect(message.contains("does not implement \(send.method)"), "\(message)")
            }
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            for send in sends {
                #expect(log.contains("event=delegate.not-implemented method=\(send.method) "), "the receiving session names \(send.method)")
            }
            #expect(try pair.phoneOSCall(["os", "status"])["launches"]?["message"]?.intValue == 1, "one launch, for the first message")
        }
    }

    /// A userInfo for a delegate with no `session(_:didReceiveUserInfo:)`: Apple documents no answer to
    /// the sender (the transfer is the system's once it reached the device); here it is neither dropped
    /// nor acknowledged in silence — the receiving session keeps it in its quarantine with the reason, says
    /// so in its log, and the sender's transfer finishes (nothing waits for ever on the watch).
    @Test func aUserInfoForADelegateWithoutDidReceiveUserInfoIsKeptAndLoggedNotDroppedInSilence() throws {
        try withRunningPair(tag: "bare-ui", phone: nil) { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--bare-delegate", "--background-budget-ms", "60000"])
            let json = try write(pair, "u.json", Data(#"{"id": "u-1", "kind": "probe"}"#.utf8))
            let queued = try runTool(["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", json])
            #expect(queued.status == 0, "\(queued.stderr)")
            try pair.waitUntilDrained()
            let quarantine = try runTool(["phone", "quarantine", "--home", pair.phoneHome, "--json"])
            #expect(quarantine.status == 0, "\(quarantine.stderr)")
            let kept = try JSONValue(parsing: quarantine.stdout)
            let transfers = kept["transfers"]?.arrayValue ?? []
            #expect(transfers.count == 1, "\(kept.text)")
            #expect(transfers.first?["userInfo"]?["id"] == .string("u-1"))
            #expect(transfers.first?["reason"]?.stringValue?.contains("does not implement session(_:didReceiveUserInfo:)") == true, "\(kept.text)")
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=delegate.not-implemented method=session(_:didReceiveUserInfo:) "))
        }
    }
}
