import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayApp
import Testing

/// `runway phone logbook|flight|delete` through the real binaries.
@Suite(.serialized) struct PhoneCommandTests {
    /// One pair with two months and more of flights, shared by the read-only tests below.
    final class Fixture: @unchecked Sendable {
        let pair: SimulatedPair
        let ids: [String]

        init() throws {
            pair = try SimulatedPair(tag: "cmds")
            try pair.startWatch()
            try pair.startPhone()
            ids = try pair.record(75, distanceKm: nil)
            try pair.waitUntilDrained()
        }

        func logbook(_ arguments: [String] = [], environment: [String: String] = ["TZ": "UTC", "LC_ALL": "en_GB.UTF-8"]) throws -> CommandResult {
            try runTool(["phone", "logbook", "--home", pair.phoneHome] + arguments, environment: environment)
        }

        deinit { pair.cleanUp() }
    }

    static func lines(_ text: String, _ prefix: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
    }

    @Test func theLogbookIsGroupedMonthThenWeekWithTheNewestMonthExpanded() throws {
        let fixture = try Fixture()
        let result = try fixture.logbook()
        #expect(result.status == 0)
        let text = result.stdout
        #expect(text.hasPrefix("Logbook: 75 flights"))
        #expect(text.contains("weeks start on Monday"))
        let expanded = Self.lines(text, "[-] "), collapsed = Self.lines(text, "[+] ")
        #expect(expanded.count == 1)
        #expect(collapsed.count >= 2)
        // The months' counts add up; only the expanded month's flights are listed, under its weeks.
        let counts = (expanded + collapsed).map { line in Int(line.split(separator: " ")[4]) ?? -1 }
        #expect(counts.reduce(0, +) == 75)
        #expect(Self.lines(text, "      ").count == counts[0])
        #expect(Self.lines(text, "    week Mon ").count >= 1)
        #expect(Self.lines(text, "    week ").allSatisfy { $0.hasPrefix("    week Mon ") && $0.contains(" - Sun ") })
        // The newest flight comes first.
        #expect(Self.lines(text, "      ").first?.hasSuffix(fixture.ids.last!) == true)

        let all = try fixture.logbook(["--expand", "all"]).stdout
        #expect(Self.lines(all, "[+] ").isEmpty)
        #expect(Self.lines(all, "      ").count == 75)
        let secondMonth = String(collapsed[0].split(separator: " ")[1])
        let two = try fixture.logbook(["--expand", secondMonth]).stdout
        #expect(Self.lines(two, "[-] ").count == 2)
        #expect(Self.lines(two, "      ").count == counts[0] + counts[1])
    }

    @Test func weeksStartOnTheLocalesFirstDayAndTimesAreLocal() throws {
        let fixture = try Fixture()
        for (environment, day) in [
            (["TZ": "UTC", "LC_ALL": "", "LC_TIME": "", "LANG": "ko_KR.UTF-8"], "Sun"),
            (["TZ": "UTC", "LC_ALL": "", "LC_TIME": "ja_JP.UTF-8", "LANG": "en_GB.UTF-8"], "Sun"),
            (["TZ": "UTC", "LC_ALL": "en_US.UTF-8"], "Sun"),
            (["TZ": "UTC", "LC_ALL": "de_DE.UTF-8"], "Mon"),
            (["TZ": "UTC", "LC_ALL": "C"], "Mon"),
        ] {
            let text = try fixture.logbook(environment: environment).stdout
            let weeks = Self.lines(text, "    week ")
            #expect(!weeks.isEmpty && weeks.allSatisfy { $0.hasPrefix("    week \(day) ") }, "\(environment)")
        }
        let forced = try fixture.logbook(["--first-weekday", "sat"]).stdout
        #expect(Self.lines(forced, "    week ").allSatisfy { $0.hasPrefix("    week Sat ") && $0.contains(" - Fri ") })

        // The same flight, nine hours later on the clock in Seoul.
        let newest = fixture.ids.last!
        func time(_ zone: String) throws -> Int {
            let line = try #require(
                Self.lines(try fixture.logbook(environment: ["TZ": zone, "LC_ALL": "C"]).stdout, "      ")
                    .first { $0.hasSuffix(newest) })
            let clock = line.split(separator: " ")[2].split(separator: ":").compactMap { Int($0) }
            return clock[0] * 60 + clock[1]
        }
        #expect((try time("UTC") + 9 * 60) % 1440 == (try time("KST-9")))
    }

    @Test func badLogbookOptionsAreUsageErrorsAndJSONStaysFlat() throws {
        let fixture = try Fixture()
        for arguments in [
            ["--expand", "2026-13"], ["--expand", "november"], ["--first-weekday", "funday"],
            ["--json", "--expand", "2026-1"],
        ] {
            let result = try fixture.logbook(arguments)
            #expect(result.status == 2, "\(arguments)")
            if arguments.contains("--json") {
                // Under --json the error is one line of JSON (issue 17).
                let error = try JSONValue(parsing: Array(result.stderr.utf8))["error"]
                #expect(error?["name"]?.stringValue == "usage")
                #expect(error?["message"]?.stringValue?.hasPrefix("--expand") == true, "\(arguments)")
            } else {
                #expect(result.stderr.hasPrefix("runway phone logbook: --"), "\(arguments)")
            }
        }
        let json = try fixture.logbook(["--json"])
        let flights = try #require(try JSONValue(parsing: json.stdout).arrayValue)
        #expect(flights.map { $0["id"]?.stringValue ?? "" } == fixture.ids)
        #expect(flights.map { $0["arrival"]?.intValue ?? 0 } == Array(1...75))
    }

    @Test func theFlightSummaryShowsSplitsStopsAndHeartRate() throws {
        try withRunningPair(tag: "summary") { pair in
            let ids = try pair.record(12, distanceKm: 5.5)
            try pair.waitUntilDrained()
            var sawStops = false
            for id in ids {
                let result = try runTool(["phone", "flight", id, "--home", pair.phoneHome])
                #expect(result.status == 0)
                let text = result.stdout
                #expect(text.hasPrefix("FLIGHT SUMMARY  \(id)"))
                #expect(text.contains("  distance    5.50 km"))
                #expect(text.contains(" moving, "))
                #expect(text.contains("  heart rate  avg ") && text.contains(" bpm, max "))
                #expect(Self.lines(text, "    km ").count == 6)  // five kilometres and the last half
                #expect(text.contains("    km 6*"))
                sawStops = sawStops || text.contains("  stops       ")
            }
            #expect(sawStops, "none of twelve generated runs had a stop")
            let json = try runTool(["phone", "flight", ids[0], "--home", pair.phoneHome, "--json"])
            let flight = try JSONValue(parsing: json.stdout)
            #expect(flight["id"] == .string(ids[0]))
            #expect((flight["samples"]?.arrayValue?.count ?? 0) > 10)
            let unknown = try runTool(["phone", "flight", "00000000-0000-4000-8000-000000000000", "--home", pair.phoneHome])
            #expect(unknown.status == 1)
        }
    }

    @Test func deletingAsksOnATerminalAndChangesNothingOnAnyFailure() throws {
        try withRunningPair(tag: "delete") { pair in
            let ids = try pair.record(4)
            try pair.waitUntilDrained()
            let home = ["--home", pair.phoneHome]

            let unknown = try runTool(["phone", "delete", "00000000-0000-4000-8000-000000000000", "--yes"] + home)
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("no flight 00000000-0000-4000-8000-000000000000"))
            #expect(unknown.stderr.split(separator: "\n").count == 1)
            let malformed = try runTool(["phone", "delete", "not-a-flight", "--yes"] + home)
            #expect(malformed.status == 2)
            #expect(malformed.stderr.contains("not a flight id"))
            // No terminal, no --yes: refused before anything is touched.
            let piped = try runTool(["phone", "delete", ids[0]] + home, stdin: "y\n")
            #expect(piped.status == 2)
            #expect(piped.stderr.contains("--yes"))
            #expect(try pair.logbookIDs() == ids)

            // On a terminal: "n" keeps it, "y" deletes it.
            let declined = try runTool(["phone", "delete", ids[1]] + home, terminalInput: "n\n")
            #expect(declined.status == 1)
            #expect(declined.stdout.contains(AppTexts.text(.deleteConfirm, .ko)) && declined.stdout.contains(ids[1]))
            #expect(try pair.logbookIDs() == ids)
            let confirmed = try runTool(["phone", "delete", ids[1]] + home, terminalInput: "y\n")
            #expect(confirmed.status == 0, "\(confirmed.stderr)")
            #expect(confirmed.stdout.contains("deleted \(ids[1])"))
            #expect(try pair.logbookIDs() == [ids[0], ids[2], ids[3]])

            let yes = try runTool(["phone", "delete", ids[3].lowercased(), "--yes"] + home)
            #expect(yes.status == 0)
            #expect(try pair.logbookIDs() == [ids[0], ids[2]])
            let again = try runTool(["phone", "delete", ids[3], "--yes"] + home)
            #expect(again.status == 1)
            #expect(try pair.logbookIDs() == [ids[0], ids[2]])
            #expect(try runTool(["phone", "status", "--json"] + home).status == 0)  // still serving
        }
    }
}
