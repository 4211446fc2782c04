import Foundation
import JSONText
import PairTesting
import Posix
import Testing

/// The device clock through the real binaries (APP_SPEC A).
@Suite(.serialized) struct ClockTests {
    static let t0 = SimulatedPair.t0

    /// 1. The generator's newest run ends at the watch's now.
    @Test func aRecordedRunEndsAtTheWatchsTime() throws {
        try withRunningPair(tag: "clk1") { pair in
            let set = try pair.clock(["set", "2026-10-01T07:00:00Z", "--home", pair.watchHome, "--frozen"])
            #expect(set == .object(["now": .string("2026-10-01T07:00:00Z"), "mode": .string("frozen"), "offsetSeconds": set["offsetSeconds"]!]))
            try pair.record(3)
            try pair.waitUntilDrained()
            let logbook = try JSONValue(parsing: try runTool(["phone", "logbook", "--home", pair.phoneHome, "--json"]).stdout).arrayValue ?? []
            #expect(logbook.last?["endedAt"] == .string("2026-10-01T07:00:00Z"))
            #expect(logbook.dropLast().allSatisfy { ($0["endedAt"]?.stringValue ?? "Z") < "2026-10-01T07:00:00Z" })
            // The phone's clock was not touched: both in one call, phone first, from here on.
            #expect(try pair.clock(["show", "--home", pair.phoneHome])["mode"] == .string("offset"))
            let both = try pair.clock(["show", "--phone", pair.phoneHome, "--watch", pair.watchHome])
            #expect(both["watch"]?["now"] == .string("2026-10-01T07:00:00Z"))
            #expect(both["phone"]?["mode"] == .string("offset"))
            let text = try runTool(["clock", "show", "--phone", pair.phoneHome, "--watch", pair.watchHome], environment: ["TZ": "KST-9"])
            #expect(text.stdout.split(separator: "\n").last == "watch  2026-10-01 16:00:00 +09:00  frozen")
            #expect(text.stdout.hasPrefix("phone  "))
            try pair.expectDrainedAndClean()
        }
    }

    /// 2. Advancing moves the clock exactly; a SIGKILLed daemon comes back at the same time and mode.
    @Test func advanceIsExactAndTheClockSurvivesSIGKILL() throws {
        try withRunningPair(tag: "clk2") { pair in
            try pair.freezeBoth()
            let advanced = try pair.clock(["advance", "1d", "--phone", pair.phoneHome, "--watch", pair.watchHome])
            for device in ["phone", "watch"] {
                #expect(advanced[device]?["now"]?.stringValue.flatMap(Timestamp.parseISO8601) == Self.t0 + 86_400)
                #expect(advanced[device]?["mode"] == .string("frozen"))
            }
            let shown = try pair.clock(["show", "--home", pair.phoneHome])
            #expect(shown["now"] == .string(Timestamp.iso8601(Self.t0 + 86_400)))
            pair.killPhone()
            try pair.startPhone()
            let relaunched = try pair.clock(["show", "--home", pair.phoneHome])
            #expect(relaunched["now"] == shown["now"])
            #expect(relaunched["mode"] == .string("frozen"))

            // A running clock keeps its offset across a SIGKILL (within the time the restart took).
            try pair.clock(["set", "2030-01-01T00:00:00+09:00", "--home", pair.watchHome])
            let offset = try #require(try pair.clock(["show", "--home", pair.watchHome])["offsetSeconds"]?.doubleValue)
            pair.killWatch()
            try pair.startWatch()
            let after = try pair.clock(["show", "--home", pair.watchHome])
            #expect(after["mode"] == .string("offset"))
            #expect(abs((after["offsetSeconds"]?.doubleValue ?? 0) - offset) < 5)
            let reset = try pair.clock(["reset", "--home", pair.watchHome])
            #expect(reset["mode"] == .string("offset") && abs(reset["offsetSeconds"]?.doubleValue ?? 99) < 1)
            try pair.record(2)
            try pair.expectDrainedAndClean()
        }
    }

    /// 3. Bad input: exit 2, one line, the clock unchanged. A daemon that is not running: exit 1.
    @Test func badInputChangesNothing() throws {
        try withRunningPair(tag: "clk3") { pair in
            try pair.freezeBoth()
            let p = pair.phoneHome, w = pair.watchHome
            let before = try pair.clock(["show", "--phone", p, "--watch", w])
            let cases: [([String], String)] = [
                (["set", "2026-10-01T07:00:00", "--home", p], "give a UTC offset or Z"),
                (["set", "2026-10-01T07:00:00", "--phone", p, "--watch", w], "give a UTC offset or Z"),
                (["set", "2026-13-01T07:00:00Z", "--home", p], "not an ISO 8601 time"),
                (["set", "2000-12-31T23:59:59Z", "--home", p], "outside 2001-01-01 to 2100-01-01"),
                (["set", "2100-01-01T09:00:01+09:00", "--home", w], "outside 2001-01-01 to 2100-01-01"),
                (["set", "2026-10-01T07:00:00Z", "--home", p, "--phone", p], "not both"),
                (["set", "2026-10-01T07:00:00Z"], "say which device"),
                (["advance", "7x", "--home", p], "not a duration"),
                (["advance", "0d", "--home", p], "more than 0"),
                (["advance", "-1d", "--home", p], "more than 0"),
                (["advance", "3651d", "--phone", p, "--watch", w], "at most 3650d"),
                (["advance", "1d", "--home", w, "--watch", w], "not both"),
                (["reset", "--home", p, "--phone", p], "not both"),
                (["show", "--home", pair.root + "/missing"], "does not exist"),
                (["set", "2026-10-01T07:00:00Z", "--home", pair.root], "is not a device home"),
            ]
            for (arguments, message) in cases {
                let result = try runTool(["clock"] + arguments)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            }
            // The daemon checks too: advancing past 2100 is refused whole.
            try pair.clock(["set", "2099-12-31T00:00:00Z", "--home", p, "--frozen"])
            let late = try runTool(["clock", "advance", "2d", "--home", p])
            #expect(late.status == 2 && late.stderr.contains("outside"), "\(late.stderr)")
            try pair.clock(["set", before["phone"]!["now"]!.stringValue!, "--home", p, "--frozen"])
            #expect(try pair.clock(["show", "--phone", p, "--watch", w])["phone"]?["now"] == before["phone"]?["now"])
            #expect(try pair.clock(["show", "--phone", p, "--watch", w])["watch"]?["now"] == before["watch"]?["now"])

            // Not running: exit 1, and the phone is not changed when the watch cannot be reached.
            pair.watch?.stop()
            let down = try runTool(["clock", "advance", "1d", "--phone", p, "--watch", w])
            #expect(down.status == 1)
            #expect(down.stderr.contains("is not running"))
            #expect(try pair.clock(["show", "--home", p])["now"] == before["phone"]?["now"])
            let stopped = try runTool(["clock", "show", "--home", w])
            #expect(stopped.status == 1 && stopped.stderr.contains("no daemon is running"), "\(stopped.stderr)")
            for help in [["show"], ["set"], ["advance"], ["reset"]] {
                #expect(try runTool(["clock"] + help + ["--help"]).status == 0)
            }
        }
    }
}
