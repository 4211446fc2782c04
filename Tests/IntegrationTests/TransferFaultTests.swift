import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// WatchConnectivity's failure paths through the real binaries (issue 16, item 4): transfers that
/// finish with an error (`runway link fail-next`), and a link that delivers a transfer twice.
@Suite struct TransferFaultTests {
    func log(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
    func occurrences(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    /// Records three runs whose transfers will all fail with `code`, then lets the phone in.
    func failThree(_ pair: SimulatedPair, code: String) throws -> [String] {
        try pair.startWatch()
        let armed = try runTool(["link", "fail-next", "3", "--code", code, "--home", pair.watchHome])
        #expect(armed.status == 0, "\(armed.stderr)")
        let ids = try pair.record(3)
        try pair.startPhone()
        try pair.waitUntil("the three transfers failed") {
            occurrences("event=transfer.failed", in: log(pair.watchLog)) == 3
        }
        return ids
    }

    @Test(arguments: ["7017", "7014", "7015"])
    func aFailedTransferIsQueuedAgainAndNoRunIsLost(code: String) throws {
        try withPair(tag: "fail\(code)") { pair in
            pair.watchArguments = ["--enable-test-commands"]
            _ = try failThree(pair, code: code)
            try pair.waitUntilDrained()
            let watchLog = log(pair.watchLog)
            #expect(occurrences("event=app.transfer-requeued", in: watchLog) == 3)
            // didFinish(error:) with the code, and the failed transfers left the outstanding list.
            let transfers = try JSONValue(parsing: try runTool(["watch", "transfers", "--home", pair.watchHome, "--json"]).stdout)
            let errors = (transfers["recentlyFinished"]?.arrayValue ?? []).compactMap { $0["error"]?.stringValue }
            #expect(errors.count == 3 && errors.allSatisfy { $0.hasPrefix(code + " ") }, "\(errors)")
            try pair.record(2)
            try pair.expectDrainedAndClean(stored: 5)
        }
    }

    @Test func theSeedsAppWithoutAHandlerLosesTheRun() throws {
        try withPair(tag: "faillegacy") { pair in
            pair.watchArguments = ["--enable-test-commands", "--failed-transfer", "legacy"]
            let ids = try failThree(pair, code: "7017")
            try pair.waitUntilDrained()
            try pair.record(2)
            try pair.waitUntilDrained()
            #expect(!log(pair.watchLog).contains("event=app.transfer-requeued"))
            let report = try pair.check()
            #expect(!report.isClean)
            #expect(report.lost == ids)
            #expect(report.stored == 2)
        }
    }

    @Test func failNextIsATestCommandAndBadInputIsOneLine() throws {
        try withRunningPair(tag: "failbad", phone: nil) { pair in
            let refused = try runTool(["link", "fail-next", "1", "--home", pair.watchHome])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("--enable-test-commands"))
            #expect(refused.stderr.split(separator: "\n").count == 1)
            for bad in [
                ["link", "fail-next", "x"], ["link", "fail-next", "-1"], ["link", "fail-next", "1", "--code", "7001"],
                ["link", "fail-next"],
            ] {
                let result = try runTool(bad + ["--home", pair.watchHome])
                #expect(result.status == 2, "\(bad): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(bad): \(result.stderr)")
            }
            let badRule = try runTool(["--home", pair.root + "/w2", "--failed-transfer", "maybe"], binary: "watch-agent")
            #expect(badRule.status == 2)
            #expect(badRule.stderr.contains("--failed-transfer must be requeue or legacy"))
            let badRate = try runTool(["--home", pair.root + "/p2", "--duplicate-rate", "1.5"], binary: "phone-daemon")
            #expect(badRate.status == 2)
            #expect(badRate.stderr.contains("--duplicate-rate"))
        }
    }

    @Test func aLinkThatDeliversEveryTransferTwiceStoresEachFlightOnce() throws {
        try withRunningPair(tag: "dup", phone: nil) { pair in
            pair.phoneArguments = ["--duplicate-rate", "1"]
            try pair.record(200)
            try pair.startPhone()
            try pair.waitUntilDrained(timeout: 30)
            try pair.record(50)
            try pair.waitUntilDrained(timeout: 30)
            #expect(try pair.status("phone")["duplicatedDeliveries"]?.intValue == 250)
            try pair.expectClean(stored: 250)
        }
    }

    @Test func isTransferringIsTrueForEveryTransferNotYetDelivered() throws {
        try withRunningPair(tag: "istr", phone: nil) { pair in
            try pair.record(3)
            let listed = try JSONValue(parsing: try runTool(["watch", "transfers", "--home", pair.watchHome, "--json"]).stdout)
            #expect(listed["outstanding"]?.arrayValue?.map { $0["isTransferring"] } == [.bool(true), .bool(true), .bool(true)])
            #expect(listed["outstanding"]?.arrayValue?.map { $0["onTheWire"] } == [.bool(false), .bool(false), .bool(false)])
            let text = try runTool(["watch", "transfers", "--home", pair.watchHome])
            #expect(text.stdout.hasPrefix("3 outstanding") && !text.stdout.contains("(on the wire)"))
            try pair.startPhone()
            try pair.waitUntilDrained()
            let after = try JSONValue(parsing: try runTool(["watch", "transfers", "--home", pair.watchHome, "--json"]).stdout)
            #expect(after["outstanding"]?.arrayValue?.isEmpty == true)
            try pair.expectClean()
        }
    }
}
