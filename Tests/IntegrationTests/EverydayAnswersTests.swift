import Foundation
import JSONText
import PairTesting
import Testing

/// Answers a person can read (issue 28, item 4): `phone status` / `watch status` in labelled sections
/// with `--json` as it was; `cancel`'s four cases told apart, with their exit codes; declined launches
/// explained where they are shown; `runway pair` on the same two homes keeps their pairing unless `--new`.
@Suite struct EverydayAnswersTests {
    /// The section headers of a status text, in order.
    func sections(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix(" ") }
    }

    @Test func statusIsInLabelledSectionsAndItsJSONIsUnchanged() throws {
        try withRunningPair(tag: "status-text") { pair in
            try pair.record(2)
            try pair.waitUntilDrained()
            let phone = try runTool(["phone", "status", "--home", pair.phoneHome])
            #expect(phone.status == 0)
            #expect(sections(phone.stdout) == ["SESSION", "LINK", "OUTBOX", "INBOX", "APP", "OS"], "\(phone.stdout)")
            #expect(!phone.stdout.contains("{"), "raw JSON in the text: \(phone.stdout)")
            #expect(phone.stdout.contains("  flights "))
            #expect(phone.stdout.contains("2 stored"))
            #expect(phone.stdout.contains("  reachable "))
            // The JSON is the daemon's object as it was: every key, the outbox and inbox as objects.
            let json = try JSONValue(parsing: Array(try runTool(["phone", "status", "--home", pair.phoneHome, "--json"]).stdout.utf8))
            for key in ["activationState", "paired", "linked", "reachable", "flights", "savePath", "uiClients", "pid", "home", "role"] {
                #expect(json[key] != nil, "\(key)")
            }
            #expect(json["outbox"]?["depth"]?.intValue == 0)
            #expect(json["inbox"]?["receivedUserInfo"]?.intValue == 0)
            #expect(json["flights"]?.intValue == 2)

            try pair.setLink(up: false)
            let watch = try runTool(["watch", "status", "--home", pair.watchHome])
            #expect(sections(watch.stdout) == ["SESSION", "LINK", "OUTBOX", "INBOX", "APP", "OS"], "\(watch.stdout)")
            #expect(watch.stdout.contains("out of range (runway link up)"))
            #expect(watch.stdout.contains("language "))
            #expect(!watch.stdout.contains("{"))
            try pair.setLink(up: true)
            try pair.expectDrainedAndClean(stored: 2)
        }
    }

    /// Cancelled, already cancelled, already delivered, unknown — each its own words, exit status and JSON
    /// `reason` (on the wire, which a test cannot hold still for, is `SessionContractTests`'s).
    @Test func cancelTellsItsCasesApart() throws {
        try withRunningPair(tag: "cancel4", phone: nil) { pair in
            try pair.setLink(up: false)
            let ids = try pair.record(2)
            let queued = try JSONValue(parsing: Array(try runTool(["watch", "transfers", "--json", "--home", pair.watchHome]).stdout.utf8))
            let transfers = (queued["outstanding"]?.arrayValue ?? []).compactMap { $0["transferId"]?.intValue }
            #expect(transfers.count == 2)
            let (first, second) = (String(transfers[0]), String(transfers[1]))
            let home = ["--home", pair.watchHome]

            var result = try runTool(["watch", "cancel", first] + home)
            #expect(result.status == 0 && result.stdout == "cancelled \(first)\n", "\(result.stderr)")
            result = try runTool(["watch", "cancel", first] + home)
            #expect(result.status == 0 && result.stdout == "transfer \(first) was already cancelled\n", "\(result.stderr)")
            result = try runTool(["watch", "cancel", "999"] + home + ["--json"])
            #expect(result.status == 2)
            #expect(try JSONValue(parsing: Array(result.stderr.utf8))["error"]?["reason"]?.stringValue == "unknown", "\(result.stderr)")
            #expect(try runTool(["watch", "cancel", "999"] + home).stderr == "runway: no transfer 999 on this device: it never made one with that id\n")

            // The second is delivered: cancelling it now is too late.
            pair.noteCancelled([ids[0]])
            try pair.setLink(up: true)
            try pair.startPhone()
            try pair.waitUntilDrained()
            result = try runTool(["watch", "cancel", second] + home + ["--json"])
            #expect(result.status == 1)
            let error = try JSONValue(parsing: Array(result.stderr.utf8))["error"]
            #expect(error?["reason"]?.stringValue == "delivered")
            #expect(error?["message"]?.stringValue?.contains("already delivered") == true)
            // And the one cancelled before stays so, after the acknowledgements passed it.
            result = try runTool(["watch", "cancel", first] + home)
            #expect(result.status == 0 && result.stdout.contains("already cancelled"), "\(result.stdout)")
            try pair.expectClean(stored: 1)
        }
    }

    @Test func pairingTheSameHomesAgainKeepsThePairingUnlessNew() throws {
        try withRunningPair(tag: "repair") { pair in
            let state = pair.root + "/state"
            let env = ["RUNWAY_STATE_DIR": state]
            let arguments = ["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--json"]
            let first = try JSONValue(parsing: Array(try runTool(arguments, environment: env).stdout.utf8))
            let again = try runTool(arguments, environment: env)
            #expect(again.status == 0)
            let second = try JSONValue(parsing: Array(again.stdout.utf8))
            #expect(second["pairingId"] == first["pairingId"])
            #expect(second["kept"]?.boolValue == true)
            let text = try runTool(Array(arguments.dropLast()), environment: env)
            #expect(text.stdout.hasPrefix("already paired: "), "\(text.stdout)")
            #expect(text.stdout.contains("kept (--new for a new one)"))
            // The devices go on as before: flights still flow on the kept pairing.
            try pair.record(3)
            try pair.waitUntilDrained()
            // --new mints a new one, in both stores.
            let renewed = try JSONValue(parsing: Array(try runTool(arguments + ["--new"], environment: env).stdout.utf8))
            #expect(renewed["pairingId"] != first["pairingId"])
            #expect(renewed["kept"]?.boolValue == false)
            // The daemons read a pairing on their next connection.
            try pair.setLink(up: false)
            try pair.setLink(up: true)
            try pair.waitUntil("both devices read the new pairing") {
                try pair.status("phone")["pairingId"] == renewed["pairingId"] && pair.status("watch")["pairingId"] == renewed["pairingId"]
            }
            try pair.record(2)
            try pair.expectDrainedAndClean(stored: 5)
        }
    }

    /// Where phone-os's counts are shown, a declined launch is said in words.
    @Test func declinedLaunchesAreExplainedWhereShown() throws {
        try withRunningPair(tag: "declined", phone: nil) { pair in
            try pair.startPhoneOS()
            // The watch connects with nothing pending: phone-os declines to launch the app.
            try pair.waitUntil("a declined launch") {
                (try pair.phoneOSCall(["os", "status"])["declinedLaunches"]?.intValue ?? 0) > 0
            }
            let status = try runTool(["phone", "os", "status", "--home", pair.phoneHome])
            #expect(status.stdout.contains("launches declined: "))
            #expect(status.stdout.contains("the watch connected while the app was not running, with nothing pending or after a force-quit"))
            let open = try runTool(["phone", "app", "open", "--home", pair.phoneHome])
            #expect(open.status == 0, "\(open.stderr)")
            #expect(open.stdout.contains("with nothing pending or after a force-quit: the app was not launched"))
            // And in the phone's status, under OS.
            let phone = try runTool(["phone", "status", "--home", pair.phoneHome])
            #expect(phone.stdout.contains("phone-os launches declined"), "\(phone.stdout)")
            try pair.record(1)
            try pair.expectDrainedAndClean(stored: 1)
        }
    }
}
