import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Every running daemon has a name a user can stop it by, and is called by its own name (issue 22,
/// item 8).
@Suite struct RunningDaemonNamesTests {
    /// Before, a SIGSTOPped phone-os was "the phone-daemon for HOME did not answer": the CLI named the
    /// home's role, not the program behind the socket it asked.
    @Test func aStoppedPhoneOSIsCalledPhoneOS() throws {
        try withPair(tag: "osstop") { pair in
            try pair.startPhoneOS()
            let os = try #require(pair.phoneOS)
            defer { kill(os.pid, SIGCONT) }
            #expect(try runTool(["phone", "os", "status", "--home", pair.phoneHome]).status == 0)
            kill(os.pid, SIGSTOP)
            let frozen = try runTool(["phone", "os", "status", "--home", pair.phoneHome], environment: ["RUNWAY_CONTROL_TIMEOUT_MS": "1000"])
            kill(os.pid, SIGCONT)
            #expect(frozen.status == 1)
            #expect(frozen.stderr.split(separator: "\n").count == 1, "\(frozen.stderr)")
            #expect(frozen.stderr.contains("the phone-os for \(pair.phoneHome) did not answer within 1000 ms"), "\(frozen.stderr)")
            #expect(!frozen.stderr.contains("phone-daemon"), "\(frozen.stderr)")
            #expect(try runTool(["phone", "os", "status", "--home", pair.phoneHome]).status == 0)
        }
    }

    /// Before, `runway unpair` forgot a running pair and left its daemons with no name to stop them by
    /// (`runway down NAME`: no pair named NAME). Now it is refused, naming what runs; stopped, it goes.
    @Test func unpairingARunningPairIsRefusedNamingItsDaemons() throws {
        try withRunningPair(tag: "unpairrun") { pair in
            let state = pair.root + "/state"
            func runway(_ arguments: [String]) throws -> CommandResult { try runTool(arguments, environment: ["RUNWAY_STATE_DIR": state]) }
            func registered() throws -> [String] {
                try JSONValue(parsing: try runway(["list", "--json"]).stdout).arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            }
            #expect(try runway(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--name", "mine"]).status == 0)
            try pair.record(3)
            try pair.waitUntilDrained()

            var refused = try runway(["unpair", "mine"])
            #expect(refused.status == 1)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("phone-daemon (pid \(pair.phone!.pid))"), "\(refused.stderr)")
            #expect(refused.stderr.contains("watch-agent (pid \(pair.watch!.pid))"), "\(refused.stderr)")
            #expect(refused.stderr.contains("runway down mine"), "\(refused.stderr)")
            #expect(try registered() == ["mine"])
            #expect(pair.phone?.isRunning == true && pair.watch?.isRunning == true)

            // A phone run by phone-os is named so.
            _ = pair.phone?.stop()
            try pair.startPhoneOS()
            try pair.waitUntil("phone-os runs the home") { try runway(["phone", "os", "status", "--pair", "mine"]).status == 0 }
            refused = try runway(["unpair", "mine", "--json"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("phone-os (pid \(pair.phoneOS!.pid))"), "\(refused.stderr)")
            #expect(try registered() == ["mine"])

            // Stopped (the harness stops what it started), it can be forgotten.
            _ = pair.phoneOS?.stop()
            _ = pair.watch?.stop()
            let forgotten = try runway(["unpair", "mine"])
            #expect(forgotten.status == 0, "\(forgotten.stderr)")
            #expect(try registered().isEmpty)
            try pair.startPhone()
            try pair.startWatch()
            try pair.expectDrainedAndClean(stored: 3)
        }
    }
}
