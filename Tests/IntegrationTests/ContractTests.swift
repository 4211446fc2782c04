import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The command-line contract that scripts, tests and users rely on.
@Suite struct ContractTests {
    @Test(arguments: ["phone-daemon", "watch-agent", "runway"])
    func helpExitsZeroAndAWrongFlagExitsTwoPointingAtTheHelp(binary: String) throws {
        let help = try runTool(["--help"], binary: binary)
        #expect(help.status == 0)
        #expect(help.stdout.contains("usage:"))
        let wrong = try runTool(binary == "runway" ? ["watch", "status", "--bogus"] : ["--bogus"], binary: binary)
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("unknown option --bogus"))
        // The one line and where the help is, not the help itself (issue 28).
        #expect(wrong.stderr.hasSuffix("try '\(binary == "runway" ? "runway watch status" : binary) --help'\n"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("usage:"))
    }

    @Test(arguments: [
        ["pair", "--help"], ["watch", "record", "--help"], ["watch", "status", "--help"],
        ["phone", "status", "--help"], ["phone", "logbook", "--help"], ["phone", "flight", "--help"],
        ["phone", "delete", "--help"], ["phone", "ui", "--help"],
    ])
    func everySubcommandHasHelp(arguments: [String]) throws {
        let result = try runTool(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("usage: runway \(arguments.dropLast().joined(separator: " "))"))
    }

    @Test func aDaemonThatIsNotRunningIsOneLineNamingTheHome() throws {
        try withPair(tag: "down") { pair in
            for (device, home) in [("watch", pair.watchHome), ("phone", pair.phoneHome)] {
                let result = try runTool([device, "status", "--home", home, "--json"])
                #expect(result.status == 1)
                #expect(result.stderr.split(separator: "\n").count == 1)
                #expect(result.stderr.contains(home))
                #expect(result.stderr.contains("not running"))
            }
        }
    }

    @Test func badValuesAreUsageErrors() throws {
        try withRunningPair(tag: "bad", phone: nil) { pair in
            for arguments in [["--count", "-3"], ["--count", "zero"], ["--distance", "far"], ["--count"]] {
                let result = try runTool(["watch", "record", "--home", pair.watchHome] + arguments)
                #expect(result.status == 2, "\(arguments)")
            }
            #expect(try pair.outstandingTransfers() == 0)
        }
    }

    @Test func statusReportsTheContractFields() throws {
        try withRunningPair(tag: "status", phone: nil) { pair in
            try pair.record(3)
            let watch = try pair.status("watch")
            #expect(watch["outstandingUserInfoTransfers"] == .integer(3))
            #expect(watch["reachable"] == .bool(false))
            #expect(watch["paired"] == .bool(true))
            try pair.startPhone()
            try pair.waitUntilDrained()
            let phone = try pair.status("phone")
            #expect(phone["flights"] == .integer(3))
            #expect(phone["paired"] == .bool(true))
            try pair.waitUntil("the watch sees the phone") { try pair.status("watch")["reachable"] == .bool(true) }
        }
    }

    @Test func theLogbookHasTheContractFields() throws {
        try withRunningPair(tag: "logbook") { pair in
            let ids = try pair.record(2, distanceKm: 5)
            try pair.waitUntilDrained()
            let result = try runTool(["phone", "logbook", "--home", pair.phoneHome, "--json"])
            let flights = try #require(try JSONValue(parsing: result.stdout).arrayValue)
            #expect(flights.map { $0["id"]?.stringValue } == ids)
            for flight in flights {
                #expect(flight["distanceKm"] == .integer(5))
                #expect((flight["durationSeconds"]?.doubleValue ?? 0) > 0)
                let started = try #require(flight["startedAt"]?.stringValue)
                #expect(ISO8601DateFormatter().date(from: started) != nil)
            }
            let text = try runTool(["phone", "logbook", "--home", pair.phoneHome])
            #expect(text.status == 0)
            #expect(text.stdout.contains("5.00 km"))
        }
    }

    @Test func sigtermShutsDownCleanlyAndRemovesTheSockets() throws {
        try withRunningPair(tag: "term") { pair in
            #expect(FileManager.default.fileExists(atPath: pair.phoneHome + "/link.sock"))
            #expect(pair.phone!.stop() == 0)
            #expect(pair.watch!.stop() == 0)
            for path in [pair.phoneHome + "/link.sock", pair.phoneHome + "/control.sock", pair.watchHome + "/control.sock"] {
                #expect(!FileManager.default.fileExists(atPath: path), "\(path)")
            }
        }
    }

    @Test func aSecondDaemonOnTheSameHomeSaysWhoHoldsIt() throws {
        try withRunningPair(tag: "lock", watch: nil) { pair in
            let second = try runTool(["--home", pair.phoneHome], binary: "phone-daemon")
            #expect(second.status == 1)
            #expect(second.stderr.contains("process \(pair.phone!.pid)"))
            // The first one still serves.
            #expect(try pair.status("phone")["activationState"] == .string("activated"))
        }
    }

    @Test func homesAreMode0700() throws {
        try withPair(tag: "mode") { pair in
            for home in [pair.phoneHome, pair.watchHome] {
                let attributes = try FileManager.default.attributesOfItem(atPath: home)
                #expect((attributes[.posixPermissions] as? Int) == 0o700)
            }
        }
    }

    @Test func aWatchNoLongerPairedIsRefusedWithDeviceNotPairedOnBothSides() throws {
        try withRunningPair(tag: "unpaired", watch: nil) { pair in
            // Pair the phone with another watch as its only one (--replace): the first is no longer its watch.
            let other = pair.root + "/other-watch"
            #expect(try runTool(["pair", "--phone", pair.phoneHome, "--watch", other, "--replace"]).status == 0)
            try pair.startWatch()
            try pair.record(2)
            try pair.waitUntil("both sides log the refusal", timeout: 30) {
                let phoneLog = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
                let watchLog = (try? String(contentsOfFile: pair.watchLog, encoding: .utf8)) ?? ""
                return phoneLog.contains("event=link.refused code=7005 name=deviceNotPaired")
                    && watchLog.contains("event=link.refused-by-peer code=7005 name=deviceNotPaired")
            }
            #expect(try pair.storedCountOffline() == 0)
            #expect(try pair.outstandingTransfers() == 2)
        }
    }
}
