import Foundation
import PairTesting
import Testing

/// Invalid input on the command line: one clear line, exit status 2, nothing changed.
@Suite struct InvalidInputTests {
    @Test func homesThatAreNotHomes() throws {
        try withPair(tag: "nothome") { pair in
            let file = pair.root + "/plain-file"
            try "x".write(toFile: file, atomically: true, encoding: .utf8)
            let empty = pair.root + "/empty-dir"
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
            for home in [file, empty, pair.root + "/missing"] {
                let result = try runTool(["phone", "status", "--home", home])
                #expect(result.status == 2, "\(home)")
                #expect(result.stderr.split(separator: "\n").count == 1)
                #expect(result.stderr.contains(home))
            }
            // The other device's home.
            try pair.startWatch()
            let swapped = try runTool(["phone", "status", "--home", pair.watchHome])
            #expect(swapped.status == 2)
            #expect(swapped.stderr.contains("is a watch home, not a phone home"))
            // The daemons refuse them too.
            #expect(try runTool(["--home", file], binary: "phone-daemon").status == 2)
            let wrongDaemon = try runTool(["--home", pair.phoneHome], binary: "watch-agent")
            #expect(wrongDaemon.status == 2)
            #expect(wrongDaemon.stderr.contains("is a phone home, not a watch home"))
            #expect(try runTool(["pair", "--phone", pair.watchHome, "--watch", pair.phoneHome]).status == 2)
        }
    }

    @Test func malformedIdsAndCountsChangeNothing() throws {
        try withRunningPair(tag: "ids") { pair in
            try pair.record(3)
            try pair.waitUntilDrained()
            for arguments in [
                ["phone", "delete", "not-a-uuid", "--yes"], ["phone", "flight", "12345"],
                ["watch", "cancel", "-4"], ["watch", "cancel", "abc"],
                ["watch", "record", "--count", "-1"], ["watch", "record", "--count", "0"],
                ["watch", "record", "--distance", "-5"],
            ] {
                let home = arguments[0] == "phone" ? pair.phoneHome : pair.watchHome
                let result = try runTool(arguments + ["--home", home])
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(!result.stderr.isEmpty)
            }
            #expect(try pair.storedCount() == 3)
            #expect(try pair.outstandingTransfers() == 0)
        }
    }
}
