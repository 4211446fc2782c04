import Connectivity
import Control
import Foundation
import JSONText
import PairTesting
import Posix
import Testing

/// APP_SPEC F through the real binaries: the update notice's every branch against the simulated App
/// Store lookup, the version mismatch, and an upgrade that keeps the logbook.
@Suite(.serialized) struct UpdateNoticeTests {
    static let storeURL = "https://apps.apple.com/kr/app/runway/id6740000000?l=en&mt=8"

    /// 2, 3, 9. An attach shows one alert (version, URL byte for byte, the watch sentence); a second attach
    /// the same day asks nothing; the next day asks again; Update prints the URL as it came, Later
    /// dismisses; neither touches the day.
    @Test func anAttachShowsTheAlertAtMostOnceADay() throws {
        try withRunningPair(tag: "up2", phone: ["--app-version", "1.3.1"]) { pair in
            try pair.freezePhone(at: SimulatedPair.t0)
            try pair.appstore(["set", "--version", "1.3.2", "--url", Self.storeURL])
            #expect(pair.lookups == 0)
            try pair.record(3)

            let ui = try pair.attachUI()
            try pair.waitUntil("the UI shows the alert") { ui.stdoutSoFar.contains("[업데이트] [나중에]") }
            #expect(ui.stdoutSoFar.contains("Apple Watch 앱도 같이 업데이트해주세요."))
            #expect(ui.stdoutSoFar.contains(Self.storeURL))
            ui.close()
            let status = try pair.updateStatus()
            #expect(status["alert"]?["version"] == .string("1.3.2"))
            #expect(status["alert"]?["storeURL"] == .string(Self.storeURL))
            #expect(status["alert"]?["buttons"] == .array([.string("Update"), .string("Later")]))
            #expect(status["alert"]?["message"]?.stringValue?.contains("두 앱의 버전이 다르면") == true)
            #expect(status["lastCheckedAt"] == .string(Timestamp.iso8601(SimulatedPair.t0)))
            #expect(pair.lookups == 1)
            #expect(try pair.appstore(["show"])["lastURL"] == .string("https://itunes.apple.com/lookup?bundleId=HaroldSong.Project.RunWay&country=kr"))

            // Commands keep working while the alert shows; Later dismisses it.
            #expect(try pair.storedCount() >= 0)
            #expect(try runTool(["phone", "update", "respond", "later", "--home", pair.phoneHome]).status == 0)
            #expect(try pair.updateStatus()["alert"] == .null)
            #expect(try runTool(["phone", "update", "respond", "later", "--home", pair.phoneHome]).status == 1)

            // The same day: no lookup, no alert.
            let again = try pair.attachUI()
            try pair.waitUntilNoLookup()
            #expect(pair.lookups == 1)
            #expect(try pair.updateCheck()["outcome"] == .string("skipped-today"))
            #expect(!again.stdoutSoFar.contains("[업데이트]"))
            again.close()

            // The next local day: asked again.
            try pair.advancePhone("1d")
            let next = try pair.attachUI()
            try pair.waitUntil("the UI shows the alert") { next.stdoutSoFar.contains("[업데이트] [나중에]") }
            next.close()
            #expect(pair.lookups == 2)
            let opened = try runTool(["phone", "update", "respond", "update", "--home", pair.phoneHome])
            #expect(opened.status == 0 && opened.stdout == Self.storeURL + "\n")
            #expect(pair.logLines(pair.phoneLog, containing: "event=update.open-store").count == 1)
            #expect(try pair.updateStatus()["alert"] == .null)
            #expect(try pair.updateStatus()["lastCheckedAt"] == .string(Timestamp.iso8601(SimulatedPair.t0 + SimulatedPair.day)))
            try pair.expectDrainedAndClean()
        }
    }

    /// 4. A failed lookup, a malformed answer, an empty `results`, a result with no version or URL: silent
    /// (no alert, nothing printed by the UI) and the day is not used up — a good answer the same day alerts.
    @Test func failuresAreSilentAndDoNotCostTheDay() throws {
        try withRunningPair(tag: "up4", phone: ["--app-version", "1.3.1"]) { pair in
            try pair.freezePhone(at: SimulatedPair.t0)
            #expect(try pair.appstore(["show"])["mode"] == .string("network"))  // the default

            let ui = try pair.attachUI()
            try pair.waitUntil("the attach's lookup was made") { pair.lookups == 1 }
            try pair.waitUntilNoLookup()
            #expect(try pair.updateStatus()["lastCheckedAt"] == .null)

            let answers: [(String, String)] = [
                (#"{"resultCount":1,"results":["#, "invalid-json"),
                (#"{"resultCount":0,"results":[]}"#, "empty-results"),
                (#"{"resultCount":1,"results":[{"trackViewUrl":"https://x.example/a"}]}"#, "no-version"),
                (#"{"resultCount":1,"results":[{"version":2,"trackViewUrl":"https://x.example/a"}]}"#, "no-version"),
                (#"{"resultCount":1,"results":[{"version":"9.9"}]}"#, "no-track-view-url"),
                (#"{"resultCount":1,"results":[{"version":"9.9","trackViewUrl":"not a url"}]}"#, "no-track-view-url"),
                (#"[1,2]"#, "invalid-json"),
            ]
            for (index, (body, reason)) in answers.enumerated() {
                let file = pair.root + "/answer-\(index).json"
                try body.write(toFile: file, atomically: true, encoding: .utf8)
                try pair.appstore(["set", "--json-file", file])
                let outcome = try pair.updateCheck()
                #expect(outcome["outcome"] == .string("failed") && outcome["reason"] == .string(reason), "\(body): \(outcome.text)")
                #expect(outcome["lastCheckedAt"] == .null)
            }
            try pair.appstore(["fail", "network"])
            #expect(try pair.updateCheck()["reason"] == .string("network"))
            #expect(pair.lookups == 2 + answers.count)
            #expect(!ui.stdoutSoFar.contains("[업데이트]"))
            #expect(pair.logLines(pair.phoneLog, containing: "event=update.check-failed").count == 2 + answers.count)

            // The same day, a good answer: the check runs and alerts.
            try pair.appstore(["set", "--version", "1.3.2"])
            #expect(try pair.updateCheck()["outcome"] == .string("update"))
            try pair.waitUntil("the UI shows the alert") { ui.stdoutSoFar.contains("[업데이트] [나중에]") }
            ui.close()
            try pair.record(2)
            try pair.expectDrainedAndClean()
        }
    }

    /// 5, 6. Not newer: nothing shown, but the day is spent. The comparison is numeric: 1.10 > 1.9.
    @Test func theComparisonIsNumericAndNotNewerSpendsTheDay() throws {
        try withRunningPair(tag: "up5") { pair in
            try pair.freezePhone(at: SimulatedPair.t0)
            try pair.appstore(["set", "--version", "1.4"])
            let same = try pair.updateCheck()
            #expect(same["outcome"] == .string("not-newer") && same["installed"] == .string("1.4") && same["store"] == .string("1.4"))
            #expect(same["lastCheckedAt"] != .null)
            #expect(try pair.updateCheck()["outcome"] == .string("skipped-today"))
            #expect(pair.lookups == 1)
            try pair.appstore(["set", "--version", "1.3.2"])
            try pair.advancePhone("1d")
            #expect(try pair.updateCheck()["outcome"] == .string("not-newer"))

            // 1.9 installed, 1.10 in the store (an upgrade: the same home, restarted).
            pair.killPhone(SIGTERM)
            _ = pair.phone?.waitForExit(timeout: 10)
            pair.phoneArguments = ["--app-version", "1.9"]
            try pair.startPhone()
            try pair.appstore(["set", "--version", "1.10"])
            try pair.advancePhone("1d")
            let newer = try pair.updateCheck()
            #expect(newer["outcome"] == .string("update") && newer["store"] == .string("1.10") && newer["installed"] == .string("1.9"))
            try pair.record(2)
            try pair.expectDrainedAndClean()
        }
    }

    /// 7, 8. Never during a run: a run in progress skips the check (nothing asked, nothing recorded); a run
    /// that starts while the lookup is on its way drops the alert — and the day is spent (the seed's race,
    /// pinned). The lookup never blocks a command or a save.
    @Test func neverDuringARunAndTheRacePinned() throws {
        try withRunningPair(tag: "up7", phone: ["--app-version", "1.3.1", "--enable-test-commands"]) { pair in
            try pair.freezePhone(at: SimulatedPair.t0)
            func running(_ on: Bool) throws {
                try pair.runwayJSONRaw("test-run-state", ["running": .bool(on)])
            }
            try pair.appstore(["set", "--version", "1.3.2", "--delay-ms", "6000"])
            try running(true)
            let ui = try pair.attachUI()
            #expect(try pair.updateCheck()["outcome"] == .string("skipped-running"))
            #expect(pair.lookups == 0)
            #expect(try pair.updateStatus()["lastCheckedAt"] == .null)
            try running(false)

            // The race: the lookup is asked while not running, the run starts before the answer.
            let check = try RunningTool(["phone", "update", "check", "--home", pair.phoneHome, "--json"])
            try pair.waitUntil("the lookup is on its way") { try pair.updateStatus()["checking"] == .bool(true) }
            try running(true)
            // Meanwhile every command answers and flights are saved: the lookup is still on its way after.
            try pair.record(3)
            try pair.waitUntilDrained()
            #expect(try pair.updateStatus()["checking"] == .bool(true), "the save waited for the lookup")
            let result = check.wait()
            let outcome = try JSONValue(parsing: result.stdout)
            #expect(outcome["outcome"] == .string("suppressed-running"), "\(result.stdout) \(result.stderr)")
            #expect(outcome["lastCheckedAt"] == .string(Timestamp.iso8601(SimulatedPair.t0)))
            #expect(try pair.updateStatus()["alert"] == .null)
            #expect(!ui.stdoutSoFar.contains("[업데이트]"))
            ui.close()
            // The faithful consequence: that day's notice is lost.
            try running(false)
            #expect(try pair.updateCheck()["outcome"] == .string("skipped-today"))
            #expect(pair.lookups == 1)
            try pair.expectDrainedAndClean()

            // The hidden command needs --enable-test-commands.
            try withRunningPair(tag: "up7b", watch: nil) { other in
                #expect(throws: (any Error).self) { try other.runwayJSONRaw("test-run-state", ["running": .bool(true)]) }
            }
        }
    }

    /// 10. The version mismatch: null before a first handshake, true on both sides with the preflight
    /// line and one log line per link, flights unaffected; false once the watch runs the same version
    /// (1.4.0 is 1.4 here).
    @Test func theVersionMismatchIsShownAndNeverBlocks() throws {
        try withRunningPair(tag: "up10", watch: nil) { pair in
            #expect(try pair.status("phone")["versionMismatch"] == .null)
            #expect(try pair.status("phone")["watchAppVersion"] == .null)
            #expect(try pair.preflight()["versionMismatch"] == .null)
            pair.watchArguments = ["--app-version", "1.3.2"]
            try pair.startWatch()
            try pair.record(5)
            try pair.waitUntilDrained()
            let phone = try pair.status("phone"), watch = try pair.status("watch")
            #expect(phone["appVersion"] == .string("1.4") && phone["watchAppVersion"] == .string("1.3.2") && phone["versionMismatch"] == .bool(true))
            #expect(watch["appVersion"] == .string("1.3.2") && watch["phoneAppVersion"] == .string("1.4") && watch["versionMismatch"] == .bool(true))
            let text = try runTool(["phone", "preflight", "--home", pair.phoneHome]).stdout
            #expect(text.contains("  VERSION          WATCH APP 1.3.2 ≠ PHONE APP 1.4\n"))
            #expect(text.contains("Apple Watch 앱도 같이 업데이트해주세요."))
            #expect(try pair.row() == "READY")
            #expect(pair.logLines(pair.phoneLog, containing: "event=link.version-mismatch local=1.4 peer=1.3.2").count == 1)
            #expect(pair.logLines(pair.watchLog, containing: "event=link.version-mismatch local=1.3.2 peer=1.4").count == 1)
            // A UI is told too.
            let ui = try pair.attachUI()
            try pair.setLink(up: false)
            try pair.setLink(up: true)
            try pair.waitUntil("the UI saw the mismatch") { ui.stdoutSoFar.contains("version-mismatch watch=1.3.2") }
            ui.close()
            // The UI's line may come from the link going down (the watch's state is kept): wait for the
            // second link itself, then expect exactly one line per link.
            try pair.waitUntil("the second link logged its mismatch") {
                pair.logLines(pair.phoneLog, containing: "event=link.version-mismatch").count >= 2
            }
            #expect(pair.logLines(pair.phoneLog, containing: "event=link.version-mismatch").count == 2)  // one per link
            try pair.expectDrainedAndClean()

            pair.killWatch(SIGTERM)
            _ = pair.watch?.waitForExit(timeout: 10)
            pair.watchArguments = ["--app-version", "1.4.0"]
            try pair.startWatch()
            try pair.record(2)
            try pair.waitUntilDrained()
            #expect(try pair.status("phone")["versionMismatch"] == .bool(false))
            #expect(try pair.status("watch")["versionMismatch"] == .bool(false))
            #expect(!(try runTool(["phone", "preflight", "--home", pair.phoneHome]).stdout.contains("VERSION")))
            #expect(pair.logLines(pair.phoneLog, containing: "event=link.version-mismatch").count == 2)
            try pair.expectDrainedAndClean()
        }
    }

    /// 11. An upgrade: the phone restarted with a new version keeps its logbook.
    @Test func anUpgradeKeepsTheLogbook() throws {
        try withRunningPair(tag: "up11") { pair in
            try pair.record(6)
            try pair.waitUntilDrained()
            let before = try runTool(["phone", "logbook", "--home", pair.phoneHome, "--json"]).stdout
            pair.killPhone(SIGTERM)
            _ = pair.phone?.waitForExit(timeout: 10)
            pair.phoneArguments = ["--app-version", "1.5"]
            try pair.startPhone()
            #expect(try pair.status("phone")["appVersion"] == .string("1.5"))
            #expect(try runTool(["phone", "logbook", "--home", pair.phoneHome, "--json"]).stdout == before)
            try pair.record(2)
            try pair.expectDrainedAndClean()
        }
    }

    /// Bad input: exit 2 and one line, nothing changed; a phone that is not running: exit 1.
    @Test func badInput() throws {
        try withPair(tag: "upbad") { pair in
            let p = pair.phoneHome
            for version in ["1.2.3.4.5", "1.10000", "abc", "1..2", "", "1.4 ", "-1"] {
                for binary in ["phone-daemon", "watch-agent"] {
                    let home = binary == "phone-daemon" ? p : pair.watchHome
                    let result = try runUntilExit(binary, ["--home", home, "--app-version", version], timeout: 10)
                    #expect(result.status == 2, "\(binary) --app-version '\(version)': \(result.status)")
                    #expect(result.stderr.hasPrefix("\(binary): --app-version: "))
                }
            }
            // Not running: exit 1.
            for arguments in [["phone", "preflight"], ["appstore", "show"], ["phone", "update", "check"], ["phone", "update", "status"]] {
                let result = try runTool(arguments + ["--home", p])
                #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
            }
            try pair.startPhone()
            try pair.appstore(["set", "--version", "1.3.2"])
            let before = try pair.appstore(["show"])
            let cases: [[String]] = [
                ["appstore", "set", "--version", "1.x"], ["appstore", "set", "--version", "1.99999"], ["appstore", "set"],
                ["appstore", "set", "--version", "1.5", "--json-file", "/nonexistent"], ["appstore", "fail", "wifi"],
                ["appstore", "set", "--version", "1.5", "--delay-ms", "-3"],
                ["phone", "update", "respond", "maybe"], ["phone", "update", "respond", "skip"],
                ["phone", "update", "respond"],
            ]
            for arguments in cases {
                let result = try runTool(arguments + ["--home", p])
                #expect(result.status == 2, "\(arguments): \(result.status)")
                #expect(result.stderr.split(separator: "\n").count >= 1 && result.stderr.hasPrefix("runway"), "\(arguments): \(result.stderr)")
            }
            for arguments in [
                ["phone", "preflight", "extra"], ["phone", "update", "check", "now"], ["phone", "update", "status", "x"], ["appstore", "show", "x"],
            ] {
                #expect(try runTool(arguments + ["--home", p]).status == 2, "\(arguments)")
            }
            #expect(try pair.appstore(["show"]) == before)
            // No alert showing: respond fails (1).
            #expect(try runTool(["phone", "update", "respond", "update", "--home", p]).status == 1)
        }
    }
}

extension SimulatedPair {
    /// A control command straight to the phone (for the hidden test commands, which have no CLI).
    @discardableResult
    func runwayJSONRaw(_ command: String, _ arguments: [String: JSONValue]) throws -> JSONValue {
        try ControlClient(home: DeviceHome(path: phoneHome, role: .phone)).call(ControlRequest(command: command, arguments: arguments))
    }
}
