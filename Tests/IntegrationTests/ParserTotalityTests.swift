import Connectivity
import Control
import Foundation
import JSONText
import PairTesting
import Testing

/// Input no parser has a value for, through the binaries: one line and exit 2 from the CLI, an error
/// reply from a daemon — and nothing stops (issue 22, item 1). Before, a `$date` with 19 fraction digits
/// overflowed an `Int` in `Timestamp.parseISO8601`, inside the router's own argument check: one frame
/// killed either daemon, and the CLI died of SIGILL on `--json-file` and `clock set`.
@Suite struct ParserTotalityTests {
    static let longFraction = "2026-11-30T07:00:00.9999999999999999999Z"
    static let payload = #"{"at":{"$date":"\#(longFraction)"}}"#

    @Test func aDateWithNineteenFractionDigitsStopsNothing() throws {
        try withRunningPair(tag: "frac") { pair in
            try pair.record(3)
            try pair.waitUntilDrained()
            let watchPID = pair.watch?.pid, phonePID = pair.phone?.pid
            let payload = try JSONValue(parsing: Self.payload)
            for (role, home) in [(DeviceRole.watch, pair.watchHome), (.phone, pair.phoneHome)] {
                // The frame itself, as any client may send it (the CLI's own check is skipped).
                for command in ["transfer-userinfo", "context-set", "message"] {
                    var failure: ControlError?
                    do throws(ControlError) {
                        _ = try ControlClient(home: DeviceHome(path: home, role: role))
                            .call(ControlRequest(command: command, arguments: ["payload": payload]))
                    } catch { failure = error }
                    #expect(failure?.exitStatus == 2, "\(role) \(command): \(String(describing: failure))")
                    #expect(failure?.message.contains("$date") == true, "\(String(describing: failure))")
                }
                // Through the CLI: one line, exit 2.
                for command in [["transfer-userinfo"], ["context", "set"], ["message"]] {
                    let result = try runTool([role.rawValue] + command + ["--json-file", "-", "--home", home], stdin: Self.payload)
                    #expect(result.signal == nil && result.status == 2, "\(role) \(command): \(result.status) \(result.stderr)")
                    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                    #expect(result.stderr.contains("$date"), "\(result.stderr)")
                }
                for bad in [Self.longFraction, "2026-11-30T07:00:00.9999999999999999999999999999999+09:00", "2026-02-30T07:00:00Z", "2026-11-30T07:00:60Z"] {
                    let result = try runTool(["clock", "set", bad, "--home", home])
                    #expect(result.signal == nil && result.status == 2, "clock set \(bad): \(result.status) \(result.stderr)")
                    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                }
                // Nine digits are a time like any other.
                let nine = try runTool(["clock", "set", "2026-11-30T07:00:00.999999999Z", "--home", home, "--json"])
                #expect(nine.status == 0, "\(nine.stderr)")
                #expect(try JSONValue(parsing: nine.stdout)["now"]?.stringValue?.hasPrefix("2026-11-30T07:0") == true, "\(nine.stdout)")
            }
            // Both daemons are the ones that were started, and still answer.
            #expect(pair.watch?.isRunning == true && pair.watch?.pid == watchPID)
            #expect(pair.phone?.isRunning == true && pair.phone?.pid == phonePID)
            #expect(try pair.outstandingTransfers() == 0)
            try pair.record(2)
            try pair.expectDrainedAndClean(stored: 5)
        }
    }
}
