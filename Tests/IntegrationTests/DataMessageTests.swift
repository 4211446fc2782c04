import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// `sendMessageData` through the real binaries: bytes the app encoded itself, both ways, with a reply
/// (RunWay's apps answer with the same bytes) and without one; over the limit, refused before anything
/// is sent.
@Suite struct DataMessageTests {
    func run(_ arguments: [String]) throws -> CommandResult { try runTool(arguments) }

    /// Every byte value, twice, so a codec that touched the bytes (text, a property list) would show.
    static let allBytes: [UInt8] = (0..<512).map { UInt8($0 % 256) }

    @Test func aDataMessageRoundTripsBothWaysWithAndWithoutAReply() throws {
        try withRunningPair(tag: "msgdata") { pair in
            try pair.waitUntil("the phone can reach the watch") { try pair.status("phone")["reachable"] == .bool(true) }
            let input = pair.root + "/bytes.bin"
            try Data(Self.allBytes).write(to: URL(fileURLWithPath: input))
            for (device, home, other) in [("watch", pair.watchHome, "phone"), ("phone", pair.phoneHome, "watch")] {
                let out = pair.root + "/reply-\(device).bin"
                let replied = try run([device, "message", "--home", home, "--data-file", input, "--out", out])
                #expect(replied.status == 0, "\(device): \(replied.stderr)")
                #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))) == Self.allBytes, "the \(other) app's answer, byte for byte")
                // To stdout as they are (text bytes here, so the captured output reads them back).
                let text = pair.root + "/text.bin"
                try Data("hello, \(other)".utf8).write(to: URL(fileURLWithPath: text))
                let printed = try run([device, "message", "--home", home, "--data-file", text])
                #expect(printed.status == 0 && printed.stdout == "hello, \(other)", "\(printed.stdout) \(printed.stderr)")
                let asJSON = try JSONValue(parsing: try run([device, "message", "--home", home, "--data-file", text, "--json"]).stdout)
                #expect(asJSON["reply"]?["$data"] == .string(Data("hello, \(other)".utf8).base64EncodedString()))
                // Without a reply handler: delivered, and the other app heard it (didReceiveMessageData).
                let before = try pair.status(other)["receivedMessageData"]?.intValue ?? -1
                let delivered = try run([device, "message", "--home", home, "--data-file", input, "--no-reply"])
                #expect(delivered.status == 0 && delivered.stdout == "delivered\n", "\(delivered.stdout) \(delivered.stderr)")
                #expect(try pair.status(other)["receivedMessageData"]?.intValue == before + 1)
                #expect(try pair.status(other)["lastMessageDataBytes"]?.intValue == Int(Self.allBytes.count))
            }
            let events = try run(["phone", "events", "--home", pair.phoneHome, "--json"]).stdout.split(separator: "\n").map {
                try JSONValue(parsing: String($0))
            }
            let calls = events.filter { $0["call"] == .string("didReceiveMessageData") }
            #expect(calls.map { $0["replyHandler"]?.boolValue } == [true, true, true, false], "the trace names the data messages, and which wanted a reply")
        }
    }

    @Test func aDataMessageOverTheLimitOrFromNoFileIsRefusedAndNothingIsSent() throws {
        try withRunningPair(tag: "msgdatabad") { pair in
            try pair.waitUntil("the phone can reach the watch") { try pair.status("phone")["reachable"] == .bool(true) }
            let big = pair.root + "/big.bin"
            try Data(count: 65_537).write(to: URL(fileURLWithPath: big))
            let tooLarge = try run(["watch", "message", "--home", pair.watchHome, "--data-file", big])
            #expect(tooLarge.status == 1)
            #expect(tooLarge.stderr.contains("7009 payloadTooLarge") && tooLarge.stderr.contains("65536"), "\(tooLarge.stderr)")
            #expect(tooLarge.stderr.split(separator: "\n").count == 1)
            // Exactly at the limit it goes.
            let limit = pair.root + "/limit.bin"
            try Data(count: 65_536).write(to: URL(fileURLWithPath: limit))
            #expect(try run(["watch", "message", "--home", pair.watchHome, "--data-file", limit, "--no-reply"]).status == 0)
            #expect(try pair.status("phone")["receivedMessageData"] == .integer(1), "only the one within the limit arrived")
            let missing = try run(["watch", "message", "--home", pair.watchHome, "--data-file", pair.root + "/nothing-here.bin"])
            #expect(missing.status == 2 && missing.stderr.contains("cannot read"), "\(missing.stderr)")
            let both = try run(["watch", "message", "--home", pair.watchHome, "--data-file", limit, "--json-file", limit])
            #expect(both.status == 2)
            // The daemon checks the limit too, for a client other than runway: its session refuses it (7009).
            let client = try ControlClient(home: DeviceHome(path: pair.watchHome, role: .watch), timeoutMilliseconds: 30_000)
            do {
                _ = try client.call(
                    ControlRequest(command: "message-data", arguments: ["data": .string(Data(count: 65_537).base64EncodedString())]))
                Issue.record("a data message over the limit was accepted")
            } catch let error as ControlError {
                #expect(error.wcError?.code == .payloadTooLarge && error.exitStatus == 1, "\(error.message)")
            }
            #expect(try pair.status("phone")["receivedMessageData"] == .integer(1))
        }
    }
}
