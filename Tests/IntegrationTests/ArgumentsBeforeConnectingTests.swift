import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Bad input is exit 2 whether or not the daemon runs (issue 22, item 8): every command checks its
/// arguments before it connects. Before, `runway phone flight 12345` with the phone down said "not
/// running" (exit 1), because the client connected first and checked the flight id second.
@Suite struct ArgumentsBeforeConnectingTests {
    /// One malformed call of every command that takes a value, `P`/`W` standing for the homes.
    static let malformed: [[String]] = [
        ["phone", "flight", "12345", "--home", "P"], ["phone", "delete", "not-a-uuid", "--yes", "--home", "P"],
        ["watch", "cancel", "abc", "--home", "W"], ["phone", "cancel", "-4", "--home", "P"],
        ["watch", "record", "--count", "0", "--home", "W"], ["watch", "record", "--distance", "-5", "--home", "W"],
        ["watch", "record", "--seed", "x", "--home", "W"],
        ["watch", "run", "start", "--mode", "swim", "--home", "W"], ["phone", "run", "start", "--target-pace", "9223372036854775807:00", "--home", "P"],
        ["watch", "run", "start", "--target-hr", "160-140", "--home", "W"],
        ["watch", "run", "sample", "--t", "1", "--distance-m", "3", "--pace", "6:61", "--hr", "150", "--home", "W"],
        ["phone", "run", "sample", "--json-file", "-", "--home", "P"],
        ["watch", "run", "replay", "--distance", "nan", "--home", "W"],
        ["watch", "fault", "workout-start", "sometimes", "--home", "W"],
        ["watch", "transfer-userinfo", "--json-file", "-", "--home", "W"], ["phone", "context", "set", "--json-file", "-", "--home", "P"],
        ["watch", "message", "--json-file", "-", "--home", "W"], ["phone", "message", "--json-file", "-", "--timeout", "0", "--home", "P"],
        ["watch", "transfers", "--limit", "0", "--home", "W"], ["phone", "received", "--limit", "-1", "--home", "P"],
        ["watch", "quarantine", "--limit", "x", "--home", "W"], ["phone", "quarantine", "remove", "0", "--home", "P"],
        ["phone", "logbook", "--expand", "2026-13", "--home", "P"], ["phone", "logbook", "--first-weekday", "someday", "--home", "P"],
        ["phone", "alerts", "--toggle", "11-2026", "--home", "P"],
        ["phone", "language", "set", "tlh", "--home", "P"],
        ["clock", "set", "2026-02-30T07:00:00Z", "--home", "P"], ["clock", "advance", "7x", "--phone", "P", "--watch", "W"],
        ["link", "fail-next", "-1", "--home", "W"], ["watch", "link", "fail-next", "3", "--code", "1", "--home", "W"],
        ["appstore", "set", "--version", "1..4", "--home", "P"], ["appstore", "fail", "lightning", "--home", "P"],
        ["appstore", "set", "--version", "1.5", "--delay-ms", "-1", "--home", "P"],
        ["phone", "update", "respond", "never", "--home", "P"],
        ["phone", "events", "--limit", "1025", "--home", "P"], ["watch", "events", "--limit", "99999999999999999999", "--home", "W"],
        ["phone", "app", "open", "--bogus", "--home", "P"], ["dump", "--limit", "0", "--home", "P"],
    ]

    /// What `--json-file -` reads for the commands above: a JSON object with a malformed `$date`, or,
    /// for a run's samples, an array that is not samples.
    static func stdin(_ arguments: [String]) -> String? {
        guard arguments.contains("--json-file") else { return nil }
        return arguments.contains("sample") ? "[[1,2]]" : #"{"at":{"$date":"2026-11-30T07:00:00.9999999999999999999Z"}}"#
    }

    @Test func badInputIsExitTwoWithTheDaemonsDown() throws {
        try withRunningPair(tag: "argsdown") { pair in
            try pair.record(2)
            try pair.waitUntilDrained()
            pair.stopAll()
            try pair.waitUntil("both daemons are gone") { pair.phone?.isRunning == false && pair.watch?.isRunning == false }
            for template in Self.malformed {
                let arguments = template.map { $0 == "P" ? pair.phoneHome : $0 == "W" ? pair.watchHome : $0 }
                let result = try runTool(arguments, stdin: Self.stdin(template))
                #expect(result.signal == nil && result.status == 2, "\(template): \(result.status) \(result.stderr)")
                #expect(!result.stderr.contains("not running"), "\(template): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").first.map { !$0.isEmpty } == true, "\(template): \(result.stderr)")
            }
            // A well-formed call is the daemon's to answer: it is not running (exit 1).
            let down = try runTool(["phone", "flight", "01938B2C-7A00-7000-8000-000000000000", "--home", pair.phoneHome])
            #expect(down.status == 1 && down.stderr.contains("phone-daemon") && down.stderr.contains("not running"), "\(down.stderr)")
            // With the daemons up again, the same calls are refused the same way, and nothing changed.
            try pair.startPhone()
            try pair.startWatch()
            for template in Self.malformed {
                let arguments = template.map { $0 == "P" ? pair.phoneHome : $0 == "W" ? pair.watchHome : $0 }
                let result = try runTool(arguments, stdin: Self.stdin(template))
                #expect(result.status == 2, "\(template) (running): \(result.status) \(result.stderr)")
            }
            try pair.expectDrainedAndClean(stored: 2)
        }
    }
}
