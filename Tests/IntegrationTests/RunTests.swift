import Foundation
import JSONText
import PairTesting
import Posix
import Testing

/// Live runs, GPWS and alerts through the real binaries (APP_SPEC D).
@Suite(.serialized) struct RunTests {
    /// D.1: the 1.3 bug and its fix, side by side, as a scripted heart-rate run; pace mode is CLEAR in both.
    @Test func theEighteenKilometreBugAndItsFix() throws {
        try withRunningPair(tag: "gpws1", watch: nil) { pair in
            var alertsByBehaviour: [String: Int] = [:]
            for behaviour in ["legacy", "fixed"] {
                pair.watchArguments = ["--gpws", behaviour]
                try pair.startWatch()
                try pair.watchRun(["start", "--mode", "heart-rate", "--target-hr", "140-160"])
                let trace = try pair.feed(ScriptedRun.restInTheMiddle()).trace
                #expect(trace.count == 28)
                let alerts = trace.filter { $0["alert"] != .null }
                if behaviour == "legacy" {
                    #expect(alerts.count == 1)
                    #expect(alerts.first?["alert"] == .string("SINK RATE"))
                    // The second stationary sample (120 bpm) raised it.
                    #expect(alerts.first?["t"]?.doubleValue == 660 && alerts.first?["stationary"] == .bool(true))
                } else {
                    #expect(alerts.isEmpty)
                    #expect(trace.allSatisfy { $0["gpws"] == .string("CLEAR") })
                    #expect(trace.filter { $0["stationary"] == .bool(true) }.allSatisfy { $0["decided"] == .bool(false) })
                }
                alertsByBehaviour[behaviour] = try pair.stopWatchRun()["alerts"]?.intValue
                // Pace mode, the same shape: CLEAR in both behaviours.
                try pair.watchRun(["start", "--mode", "pace", "--target-pace", "5:00"])
                let paceTrace = try pair.feed(ScriptedRun.restInTheMiddle(pace: 300)).trace
                #expect(paceTrace.allSatisfy { $0["gpws"] == .string("CLEAR") && $0["alert"] == .null }, "\(behaviour)")
                try pair.stopWatchRun()
                _ = pair.watch?.stop()
            }
            #expect(alertsByBehaviour == ["legacy": 1, "fixed": 0])
            try pair.startWatch()
            try pair.expectDrainedAndClean()
            let alerts = try pair.alertsJSON()
            #expect(alerts.count == 1)
            #expect(alerts.first?["type"] == .string("SINK RATE") && alerts.first?["value"]?.doubleValue == 120)
        }
    }

    /// D.2: seeds 1–200 replayed (stops included) in heart-rate mode: fixed never decides or alerts on a
    /// stationary sample; legacy alerts on one exactly when its heart rate is under the zone while the
    /// status was not already SINK RATE.
    @Test func theGPWSPropertyOverTwoHundredReplays() throws {
        try withRunningPair(tag: "gpws2", watch: nil) { pair in
            var stationaryAlerts = 0, stationarySamples = 0
            for behaviour in ["fixed", "legacy"] {
                pair.watchArguments = ["--gpws", behaviour]
                try pair.startWatch()
                for seed in 1...200 {
                    let replay = try pair.watchRun(["replay", "--seed", String(seed), "--mode", "heart-rate", "--target-hr", "140-160"])
                    if let id = replay["id"]?.stringValue { pair.noteRecorded([id]) }
                    var previous = "CLEAR"
                    for step in replay.trace {
                        let stationary = step["stationary"] == .bool(true)
                        let alerted = step["alert"] != .null
                        if stationary {
                            stationarySamples += 1
                            if behaviour == "fixed" {
                                #expect(step["decided"] == .bool(false) && !alerted, "seed \(seed) \(step.text)")
                            } else {
                                let hr = step["hr"]?.doubleValue ?? 0
                                #expect(alerted == (hr > 0 && hr < 140 && previous != "SINK RATE"), "seed \(seed) \(step.text)")
                                if alerted { stationaryAlerts += 1 }
                            }
                        }
                        previous = step["gpws"]?.stringValue ?? "?"
                    }
                }
                _ = pair.watch?.stop()
            }
            // Not vacuous: the runs do stop, and legacy does raise false alarms on some of the stops.
            #expect(stationarySamples > 100)
            #expect(stationaryAlerts > 0)
            try pair.startWatch()
            try pair.expectDrainedAndClean()
        }
    }

    /// D.1 durability: a watch SIGKILLed mid-run finds its run after relaunch, finishes it, and the flight
    /// reaches the phone exactly once with its alerts.
    @Test func aWatchKilledMidRunFinishesItOnce() throws {
        try withRunningPair(tag: "run3", watch: ["--gpws", "legacy"]) { pair in
            let started = try pair.watchRun(["start", "--mode", "heart-rate"])
            let script = ScriptedRun.restInTheMiddle()
            try pair.feed(Array(script[0..<22]))
            pair.killWatch()
            try pair.startWatch()
            let recovered = try pair.watchRun(["status"])
            #expect(recovered["state"] == .string("running"))
            #expect(recovered["runId"] == started["runId"])
            #expect(recovered["samples"] == .integer(22))
            #expect(recovered["alerts"] == .integer(1))
            #expect(recovered["gpws"] == .string("SINK RATE"))
            // E.6: a watch-only run never makes the phone think it is running.
            #expect(try pair.phoneRun(["status"])["state"] == .string("idle"))
            try pair.feed(Array(script[22...]))
            let stopped = try pair.stopWatchRun()
            #expect(stopped["id"] == started["runId"])
            #expect(stopped["alerts"] == .integer(1))
            #expect(try pair.watchRun(["status"])["state"] == .string("idle"))
            try pair.expectDrainedAndClean()
            #expect(try pair.logbookIDs() == [started["runId"]?.stringValue ?? "?"])
            #expect(try pair.alertsJSON().count == 1)
        }
    }

    /// D.3: a live run with two alerts stopped while the phone is down; the phone starts with no UI and is
    /// SIGKILLed after its commit and before its acknowledgement, so the watch resends: the alerts are
    /// stored once, with their flight.
    @Test func alertsTravelWithTheFlightAcrossAPhoneKill() throws {
        try withRunningPair(tag: "run4", phone: nil) { pair in
            try pair.watchRun(["start", "--mode", "heart-rate"])
            let trace = try pair.feed(ScriptedRun.withAlerts(2)).trace
            #expect(trace.filter { $0["alert"] != .null }.count == 2)
            let id = try #require(try pair.stopWatchRun()["id"]?.stringValue)
            try pair.startPhone(environment: ["RUNWAY_CRASH_AT": "receive.after-commit"])
            try pair.waitUntil("the phone killed itself after its commit") { !(pair.phone?.isRunning ?? false) }
            try pair.startPhone()
            try pair.expectDrainedAndClean()
            let alerts = try pair.alertsJSON()
            #expect(alerts.count == 2)
            #expect(alerts.allSatisfy { $0["flightId"] == .string(id) && $0["runId"] == .string(id) })
            #expect(Set(alerts.compactMap { $0["id"]?.stringValue }).count == 2)
            let phoneLog = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(phoneLog.contains("crash point receive.after-commit reached"))
        }
    }

    /// D.4: alerts at 23:30 on 30 September and 00:30 on 1 October in Seoul fall in two months and two
    /// days; the newest month is expanded; a toggled September stays open, an untouched October collapses
    /// when November arrives. H: deleting a flight removes its alerts.
    @Test func theAlertsViewAcrossAMonthBoundaryInSeoul() throws {
        try withRunningPair(tag: "run5") { pair in
            func alertAt(_ iso: String) throws -> String {
                // The alert comes 60 s into the run, at the run's start plus 60 s of device time.
                let start = try #require(Timestamp.parseISO8601(iso)) - 60
                try pair.clock(["set", Timestamp.iso8601(start), "--home", pair.watchHome, "--frozen"])
                try pair.watchRun(["start", "--mode", "heart-rate"])
                try pair.feed([[60, 200, 300, 120], [120, 400, 300, 150]])
                return try #require(try pair.stopWatchRun()["id"]?.stringValue)
            }
            let september = try alertAt("2026-09-30T14:30:00Z")  // 23:30 in Seoul
            _ = try alertAt("2026-09-30T15:30:00Z")  // 00:30 on 1 October in Seoul
            try pair.waitUntilDrained()
            let seoul = ["TZ": "Asia/Seoul"]
            func view(_ extra: [String] = []) throws -> [String] {
                let result = try runTool(["phone", "alerts", "--home", pair.phoneHome] + extra, environment: seoul)
                #expect(result.status == 0, "\(result.stderr)")
                return result.stdout.split(separator: "\n").map(String.init)
            }
            var lines = try view()
            #expect(lines.first == "Alerts: 2 (local time)")
            #expect(lines.contains("[-] 2026-10 October 2026  1 alert"))
            #expect(lines.contains("    Thu 2026-10-01"))
            #expect(lines.contains { $0.hasPrefix("      00:30  SINK RATE  heart rate 120 bpm (zone 140-160)") })
            #expect(lines.contains("[+] 2026-09 September 2026  1 alert"))
            #expect(!lines.contains("    Wed 2026-09-30"))
            _ = try view(["--toggle", "2026-09"])
            lines = try view()
            #expect(lines.contains("[-] 2026-09 September 2026  1 alert"))
            #expect(lines.contains("    Wed 2026-09-30"))
            #expect(lines.contains { $0.hasPrefix("      23:30  SINK RATE") })
            // In UTC the same two alerts share one day.
            let utc = try runTool(["phone", "alerts", "--home", pair.phoneHome], environment: ["TZ": "UTC"]).stdout
            #expect(utc.contains("[-] 2026-09 September 2026  2 alerts"))
            _ = try alertAt("2026-11-02T01:00:00Z")
            try pair.waitUntilDrained()
            lines = try view()
            #expect(lines.contains("[-] 2026-11 November 2026  1 alert"))
            #expect(lines.contains("[+] 2026-10 October 2026  1 alert"))
            #expect(lines.contains("[-] 2026-09 September 2026  1 alert"))
            // --reset-groups forgets the toggle.
            lines = try view(["--reset-groups"])
            #expect(lines.contains("[+] 2026-09 September 2026  1 alert"))
            // Deleting a flight deletes its alerts.
            try pair.delete(september)
            #expect(try pair.alertsJSON().count == 2)
            #expect(try pair.alertsJSON().allSatisfy { $0["flightId"] != .string(september) })
            try pair.expectDrainedAndClean()
        }
    }

    /// D.2 #52: during a 100-sample run the watch sends the phone nothing: the phone's counters do not move.
    @Test func noInstrumentStreamDuringARun() throws {
        try withRunningPair(tag: "run6") { pair in
            try pair.record(1)
            try pair.waitUntilDrained()
            func counters() throws -> [JSONValue?] {
                let status = try pair.status("phone")
                let received = try JSONValue(parsing: try runTool(["phone", "received", "--home", pair.phoneHome, "--json"]).stdout)
                return [status["receivedTransfers"], status["inbox"]?["receivedUserInfo"], status["flights"], status["receivedMessages"], received]
            }
            let before = try counters()
            try pair.watchRun(["start"])
            for batch in 0..<10 {
                try pair.feed(
                    (0..<10).map { i in
                        let n = Double(batch * 10 + i + 1)
                        return [n * 3, n * 10, 300, 150]
                    })
                usleep(100_000)
            }
            #expect(try pair.watchRun(["status"])["samples"] == .integer(100))
            #expect(try counters() == before)
            try pair.stopWatchRun()
            try pair.expectDrainedAndClean()
        }
    }

    /// Bad input: exit 2, one line on stderr, the run unchanged; refusals: exit 1 naming the reason.
    @Test func badInputIsRefusedWhole() throws {
        try withRunningPair(tag: "run7") { pair in
            let w = pair.watchHome
            func fails(_ arguments: [String], _ status: Int32, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let result = try runTool(["watch", "run"] + arguments + ["--home", w])
                #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
                if status == 2 { #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation) }
            }
            try fails(["sample", "--t", "30", "--distance-m", "100", "--pace", "5:00", "--hr", "150"], 1, "no run in progress")
            try fails(["stop"], 1, "no run in progress")
            try fails(["start", "--target-hr", "160-140"], 2, "--target-hr must be LOW-HIGH")
            try fails(["start", "--target-hr", "30-100"], 2, "--target-hr must be LOW-HIGH")
            try fails(["start", "--target-pace", "1:59"], 2, "--target-pace must be M:SS")
            try fails(["start", "--mode", "walk"], 2, "--mode must be pace or heart-rate")
            let started = try pair.watchRun(["start"])
            let id = try #require(started["runId"]?.stringValue)
            try fails(["start"], 1, "a run is already in progress (\(id))")
            try pair.feed([[30, 100, 300, 150]])
            let bad: [([[Double]], String)] = [
                ([[60, 200, 300, 150], [60, 300, 300, 150]], "time must increase"),
                ([[60, 50, 300, 150]], "distance must not decrease"),
                ([[60, 200, 100, 150]], "pace must be 0"),
                ([[60, 200, 300, 251]], "heart rate must be 0"),
                ([[60, 200, 300, 150], [90, 300, 300, 20]], "heart rate must be 0"),
            ]
            for (batch, message) in bad {
                let path = pair.root + "/bad.json"
                try JSONValue.array(batch.map { .array($0.map(JSONValue.number)) }).text.write(toFile: path, atomically: true, encoding: .utf8)
                try fails(["sample", "--json-file", path], 2, message)
            }
            try fails(["sample", "--t", "60", "--distance-m", "200", "--pace", "6", "--hr", "150"], 2, "--pace must be 0 or M:SS")
            try fails(["sample", "--t", "60", "--distance-m", "200"], 2, "a sample needs --t, --distance-m, --pace and --hr")
            let status = try pair.watchRun(["status"])
            #expect(status["samples"] == .integer(1) && status["elapsedSeconds"]?.doubleValue == 30)
            try pair.feed([[60, 200, 300, 150]])
            try pair.stopWatchRun()
            // No app, no run.
            _ = try runTool(["watch", "app", "uninstall", "--home", w])
            try fails(["start"], 1, "not installed")
            try pair.expectDrainedAndClean()
        }
    }
}

/// H (#16): the Logbook remembers the user's toggles by the same rule as the Alerts view.
@Suite(.serialized) struct RememberedGroupTests {
    @Test func theLogbookRemembersToggles() throws {
        try withRunningPair(tag: "grp1") { pair in
            for month in ["2026-08-15T07:00:00Z", "2026-09-15T07:00:00Z", "2026-10-15T07:00:00Z"] {
                try pair.freezeWatch(at: try #require(Timestamp.parseISO8601(month)))
                try pair.record(1, distanceKm: 5)
            }
            try pair.waitUntilDrained()
            func heads(_ extra: [String] = []) throws -> [String] {
                let result = try runTool(["phone", "logbook", "--home", pair.phoneHome] + extra, environment: ["TZ": "UTC"])
                #expect(result.status == 0, "\(result.stderr)")
                return result.stdout.split(separator: "\n").filter { $0.hasPrefix("[") }.map { String($0.prefix(11)) }
            }
            #expect(try heads() == ["[-] 2026-10", "[+] 2026-09", "[+] 2026-08"])
            #expect(try heads(["--toggle", "2026-08"]) == ["[-] 2026-10", "[+] 2026-09", "[-] 2026-08"])
            #expect(try heads() == ["[-] 2026-10", "[+] 2026-09", "[-] 2026-08"])
            // --expand is one call only.
            #expect(try heads(["--expand", "2026-09"]) == ["[-] 2026-10", "[-] 2026-09", "[-] 2026-08"])
            #expect(try heads() == ["[-] 2026-10", "[+] 2026-09", "[-] 2026-08"])
            // A new month: it is the newest; October (untouched) collapses; August stays open.
            try pair.freezeWatch(at: try #require(Timestamp.parseISO8601("2026-11-15T07:00:00Z")))
            try pair.record(1, distanceKm: 5)
            try pair.waitUntilDrained()
            #expect(try heads() == ["[-] 2026-11", "[+] 2026-10", "[+] 2026-09", "[-] 2026-08"])
            // Toggling the newest collapses it, and that is remembered too.
            #expect(try heads(["--toggle", "2026-11"]) == ["[+] 2026-11", "[+] 2026-10", "[+] 2026-09", "[-] 2026-08"])
            #expect(try heads() == ["[+] 2026-11", "[+] 2026-10", "[+] 2026-09", "[-] 2026-08"])
            // A bad month changes nothing (exit 2); --reset-groups forgets.
            let bad = try runTool(["phone", "logbook", "--home", pair.phoneHome, "--toggle", "2026-13"])
            #expect(bad.status == 2 && bad.stderr.contains("--toggle takes a month like 2026-11"))
            #expect(try heads() == ["[+] 2026-11", "[+] 2026-10", "[+] 2026-09", "[-] 2026-08"])
            #expect(try heads(["--reset-groups"]) == ["[-] 2026-11", "[+] 2026-10", "[+] 2026-09", "[+] 2026-08"])
            // The alerts view's toggles are its own.
            let alerts = try runTool(["phone", "alerts", "--home", pair.phoneHome, "--toggle", "2026-11"])
            #expect(alerts.status == 0 && alerts.stdout == "No alerts.\n")
            #expect(try heads() == ["[-] 2026-11", "[+] 2026-10", "[+] 2026-09", "[+] 2026-08"])
            try pair.expectDrainedAndClean()
        }
    }
}

/// H: what a delete also changes. The flight's alerts go with it; a resend of the same transfer is not
/// stored (the receive cursor: `DeletedStaysDeletedTests`); a *new* transfer carrying the deleted id is
/// stored again, alerts and all, as RunWay's id-based dedup would (the documented edge).
@Suite(.serialized) struct DeleteEdgeTests {
    @Test func aNewTransferOfADeletedIdIsStoredAgain() throws {
        try withRunningPair(tag: "del15") { pair in
            try pair.watchRun(["start", "--mode", "heart-rate"])
            try pair.feed(ScriptedRun.withAlerts(1))
            let id = try #require(try pair.stopWatchRun()["id"]?.stringValue)
            try pair.waitUntilDrained()
            let flight = try JSONValue(parsing: try runTool(["phone", "flight", id, "--home", pair.phoneHome, "--json"]).stdout)
            #expect(try pair.alertsJSON().count == 1)
            try pair.delete(id)
            #expect(try pair.alertsJSON().isEmpty)
            #expect(try pair.logbookIDs().isEmpty)
            // The same flight as a new transfer (times as seconds since 1970, which a flight's decoder takes).
            func seconds(_ key: String, _ object: JSONValue?) -> JSONValue { .number(object?[key]?.stringValue.flatMap(Timestamp.parseISO8601) ?? 0) }
            let alert = flight["alerts"]?.arrayValue?.first
            var fields: [String: JSONValue] = [
                "type": .string("flight"), "id": .string(id), "mode": .string("heartRate"),
                "startedAt": seconds("startedAt", flight), "endedAt": seconds("endedAt", flight),
            ]
            for key in ["distanceKm", "durationSeconds", "averagePaceSecondsPerKm", "averageHeartRate"] { fields[key] = flight[key] }
            fields["alerts"] = .array([
                .object([
                    "id": alert?["id"] ?? .null, "at": seconds("at", alert), "type": .string("SINK RATE"), "mode": .string("heartRate"),
                    "value": .number(120), "target": .string("140-160"),
                ])
            ])
            let path = pair.root + "/again.json"
            try JSONValue.object(fields).text.write(toFile: path, atomically: true, encoding: .utf8)
            let sent = try runTool(["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", path])
            #expect(sent.status == 0, "\(sent.stderr)")
            try pair.waitUntilDrained()
            #expect(try pair.logbookIDs() == [id])
            #expect(try pair.alertsJSON().map { $0["id"] } == [alert?["id"]])
            // The checker sees exactly that, and nothing else.
            let report = try pair.check()
            #expect(report.resurrected == [id])
            #expect(report.lost.isEmpty && report.duplicated.isEmpty && report.unexpected.isEmpty && report.orderKept)
            #expect(report.integrityProblems.isEmpty && report.outstandingTransfers == 0)
        }
    }
}
