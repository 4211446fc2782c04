import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Complications through the real binaries: `runway watch complication on|off`, the phone's budget of 50
/// a day on its own clock (`runway clock`), the 51st delivered as a plain userInfo, and a complication
/// arriving ahead of userInfo queued before it.
@Suite struct ComplicationIntegrationTests {
    func run(_ arguments: [String]) throws -> CommandResult { try runTool(arguments) }

    func complication(_ pair: SimulatedPair, _ n: Int) throws -> JSONValue {
        let path = pair.root + "/c\(n).json"
        try #"{"n": \#(n), "complication": "next run in \#(n) h"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try run(["phone", "transfer-complication", "--home", pair.phoneHome, "--json-file", path, "--json"])
        guard result.status == 0 else { throw ControlFailure(result.stderr) }
        return try JSONValue(parsing: result.stdout)
    }

    struct ControlFailure: Error { let message: String; init(_ message: String) { self.message = message } }

    @Test func theFiftyFirstComplicationOfADayIsDeliveredAsAPlainUserInfo() throws {
        try withRunningPair(tag: "cplx") { pair in
            try pair.waitUntil("the phone knows the watch app") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
            // Off the watch face: no budget, and a complication call is a plain userInfo.
            #expect(try pair.status("phone")["remainingComplicationUserInfoTransfers"] == .integer(0))
            #expect(try complication(pair, 0)["isCurrentComplicationInfo"] == .bool(false))
            #expect(try run(["watch", "complication", "on", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("the phone sees the complication") { try pair.status("phone")["complicationEnabled"] == .bool(true) }
            #expect(try pair.status("phone")["remainingComplicationUserInfoTransfers"] == .integer(50))
            var replies: [JSONValue] = []
            for n in 1...51 { replies.append(try complication(pair, n)) }
            #expect(replies.prefix(50).allSatisfy { $0["isCurrentComplicationInfo"] == .bool(true) })
            #expect(replies[49]["remainingComplicationUserInfoTransfers"] == .integer(0))
            #expect(replies[50]["isCurrentComplicationInfo"] == .bool(false), "the 51st: the day's budget is spent")
            try pair.waitUntil("the watch has all of them") {
                try pair.status("watch")["complication"]?["updates"] == .integer(50)
                    && (try JSONValue(parsing: try run(["watch", "received", "--home", pair.watchHome, "--json"]).stdout).arrayValue?.count == 2)
            }
            let watch = try pair.status("watch")
            #expect(watch["complication"]?["current"]?["n"] == .integer(50), "the complication shows the newest of the 50")
            let plain = try JSONValue(parsing: try run(["watch", "received", "--home", pair.watchHome, "--json"]).stdout)
            #expect(plain.arrayValue?.map { $0["n"] } == [.integer(0), .integer(51)], "the one sent off the face and the 51st: plain userInfo")
            // The phone's clock moves to the next day: 50 again.
            #expect(try run(["clock", "advance", "1d", "--home", pair.phoneHome]).status == 0)
            #expect(try pair.status("phone")["remainingComplicationUserInfoTransfers"] == .integer(50))
            #expect(try complication(pair, 52)["isCurrentComplicationInfo"] == .bool(true))
            let text = try run(["phone", "status", "--home", pair.phoneHome]).stdout
            #expect(text.contains("49 of 50 transfers left today"), "\(text)")
        }
    }

    @Test func aComplicationArrivesAheadOfUserInfoQueuedBeforeIt() throws {
        try withRunningPair(tag: "cplxorder") { pair in
            #expect(try run(["watch", "complication", "on", "--home", pair.watchHome]).status == 0)
            try pair.waitUntil("the phone sees the complication") { try pair.status("phone")["complicationEnabled"] == .bool(true) }
            try pair.setLink(up: false)
            try pair.waitUntil("the link is down") { try pair.status("phone")["linked"] == .bool(false) }
            for n in 0..<3 {
                let path = pair.root + "/u\(n).json"
                try #"{"n": \#(n)}"#.write(toFile: path, atomically: true, encoding: .utf8)
                #expect(try run(["phone", "transfer-userinfo", "--home", pair.phoneHome, "--json-file", path]).status == 0)
            }
            #expect(try complication(pair, 100)["transferId"] == .integer(1), "the complication lane counts its own")
            #expect(try pair.status("phone")["outstandingComplicationTransfers"] == .integer(1))
            try pair.setLink(up: true)
            try pair.waitUntil("all four arrived") {
                try pair.status("watch")["complication"]?["updates"] == .integer(1)
                    && (try JSONValue(parsing: try run(["watch", "received", "--home", pair.watchHome, "--json"]).stdout).arrayValue?.count == 3)
            }
            let events = try run(["watch", "events", "--home", pair.watchHome, "--json"]).stdout.split(separator: "\n").map {
                try JSONValue(parsing: String($0))
            }
            let order = events.filter { $0["call"] == .string("didReceiveUserInfo") }.map { $0["complication"] == .bool(true) ? "c" : "u" }
            #expect(order == ["c", "u", "u", "u"], "the complication first")
        }
    }
}
