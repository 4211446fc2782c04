import Foundation
import FoundationXML
import Glibc
import JSONText
import PairTesting
import Testing

/// `runway top`, the phone's screen (`runway phone ui` on a terminal) and `runway timeline`, through the
/// real binaries: the views run on a pseudo-terminal and the test reads back the screen a person would see.
@Suite(.serialized) struct ViewsTests {
    /// What every full-screen view must leave behind: the main screen, the cursor shown.
    static func expectGivenBack(_ tool: TerminalTool, sourceLocation: SourceLocation = #_sourceLocation) {
        let screen = tool.screen
        let alternate = screen.isAlternateScreen, cursorShown = screen.cursorVisible
        #expect(!alternate, "still on the alternate screen", sourceLocation: sourceLocation)
        #expect(cursorShown, "the cursor is still hidden", sourceLocation: sourceLocation)
        #expect(tool.rawOutput.contains("\u{1B}[?1049h"), "it never took the alternate screen", sourceLocation: sourceLocation)
    }

    @Test func topShowsBothDevicesAndFollowsARecordingAndAKill() throws {
        try withRunningPair(tag: "top") { try Self.checkTopShowsBothDevicesAndFollowsARecordingAndAKill($0) }
    }

    /// The body of `topShowsBothDevicesAndFollowsARecordingAndAKill`, a function of its own: inline in the closure, swift-frontend 6.3.1 crashes (SendNonSendable, map::at).
    static func checkTopShowsBothDevicesAndFollowsARecordingAndAKill(_ pair: SimulatedPair) throws {
        let top = try TerminalTool(["top", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--interval-ms", "200"])
        try top.waitForScreen("both devices up") { screen in
            screen.text.contains("watch-agent  up, pid \(pair.watch!.pid)") && screen.text.contains("phone-daemon up, pid \(pair.phone!.pid)")
                && screen.text.contains("stored       0 flights")
        }
        #expect(top.screen.isAlternateScreen)
        #expect(!top.screen.cursorVisible)
        #expect(top.screen.lines[0].hasPrefix("runway top — pair"), "the view is drawn from the top, in place")

        let ids = try pair.record(25)
        try pair.waitUntilDrained()
        try top.waitForScreen("the 25 flights saved") { screen in
            screen.text.contains("stored       25 flights") && screen.text.contains("outbox       0 queued")
                && screen.text.contains("phone  saved +")
        }
        #expect(top.screen.lines[0].hasPrefix("runway top — pair"), "still in place, not scrolled")
        #expect(ids.count == 25)

        let killed = pair.phone!.pid
        pair.killPhone()
        try top.waitForScreen("the phone shown down") { screen in
            screen.text.contains("phone-daemon DOWN (not running)") && screen.text.contains("phone  down (pid \(killed))")
        }
        #expect(top.isRunning, "a device going down is shown, not an error")
        top.signal(SIGINT)
        #expect(top.wait() == 0)
        Self.expectGivenBack(top)
        try pair.startPhone()
        try pair.expectDrainedAndClean()
    }

    @Test func thePhoneUIOnATerminalIsAScreenNotAScroll() throws {
        try withRunningPair(tag: "uiscreen") { try Self.checkThePhoneUIOnATerminalIsAScreenNotAScroll($0) }
    }

    /// The body of `thePhoneUIOnATerminalIsAScreenNotAScroll`, a function of its own: inline in the closure, swift-frontend 6.3.1 crashes (SendNonSendable, map::at).
    static func checkThePhoneUIOnATerminalIsAScreenNotAScroll(_ pair: SimulatedPair) throws {
        try pair.record(2)
        try pair.waitUntilDrained()
        let ui = try TerminalTool(["phone", "ui", "--home", pair.phoneHome], columns: 160, rows: 30)
        try ui.waitForScreen("the phone's screen") { screen in
            screen.text.contains("APPLE WATCH READY") && screen.text.contains("2 flights stored") && screen.text.contains("attached")
                && screen.text.contains("Logbook: 2 flights")
        }
        let ids = try pair.record(3)
        try pair.waitUntilDrained()
        try ui.waitForScreen("the three new flights") { screen in
            screen.text.contains("5 flights stored") && ids.allSatisfy { screen.text.contains("saved: ") && screen.text.contains($0) }
        }
        let screen = ui.screen
        #expect(screen.lines[0].hasPrefix("RunWay — phone "), "the header stays at the top")
        #expect(screen.text.contains("Logbook: 2 flights"), "the Logbook pane stays as it was on attaching")
        #expect(!ui.rawOutput.contains("-- attached; new flights appear below"), "the line-per-event form is for pipes")
        ui.signal(SIGTERM)
        #expect(ui.wait() == 0)
        Self.expectGivenBack(ui)
        try pair.expectDrainedAndClean()
    }

    @Test func topWithoutATerminalIsPlainAndADownDeviceIsNoError() throws {
        try withRunningPair(tag: "topplain", phone: nil) { try Self.checkTopWithoutATerminalIsPlainAndADownDeviceIsNoError($0) }
    }

    /// The body of `topWithoutATerminalIsPlainAndADownDeviceIsNoError`, a function of its own: inline in the closure, swift-frontend 6.3.1 crashes (SendNonSendable, map::at).
    static func checkTopWithoutATerminalIsPlainAndADownDeviceIsNoError(_ pair: SimulatedPair) throws {
        let state = pair.root + "/state"
        let environment = ["RUNWAY_STATE_DIR": state]
        #expect(try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--name", "views"], environment: environment).status == 0)
        let once = try runTool(["top", "views", "--once"], environment: environment)
        #expect(once.status == 0, "\(once.stderr)")
        #expect(!once.stdout.contains("\u{1B}"), "no escape codes when stdout is not a terminal")
        #expect(once.stdout.contains("watch-agent  up, pid \(pair.watch!.pid)"))
        #expect(once.stdout.contains("phone-daemon DOWN (not running)"))
        let json = try runTool(["top", "--json"], environment: environment)
        #expect(json.status == 0)
        let snapshot = try JSONValue(parsing: json.stdout)
        #expect(snapshot["pair"] == .string("views"))
        #expect(snapshot["phone"]?["up"] == .bool(false))
        #expect(snapshot["watch"]?["up"] == .bool(true))
        #expect(snapshot["watch"]?["status"]?["outstandingUserInfoTransfers"] == .integer(0))

        // A phone run by phone-os: its line says what the app is doing.
        try pair.startPhoneOS()
        let underOS = try runTool(["top", "--once"], environment: environment)
        #expect(underOS.stdout.contains("phone-os     app "), "\(underOS.stdout)")
        let osSnapshot = try JSONValue(parsing: try runTool(["top", "--json"], environment: environment).stdout)
        #expect(osSnapshot["phone"]?["os"]?["appState"]?.stringValue != nil)

        // A watch run by watch-os, its app not running: watch-os's line, and what it holds for the watch.
        pair.killWatch()
        try pair.startWatchOS(["--background-budget-ms", "300"])
        try pair.setLinkConditions(["--range", "out"])
        try pair.waitUntil("watch-os holds the watch, its app down") {
            let view = try runTool(["top", "--once"], environment: environment).stdout
            return view.contains("watch-agent  not running (watch-os launches it)") && view.contains("link         watch-os's, out of range")
        }
        let watchView = try runTool(["top", "--once"], environment: environment).stdout
        #expect(watchView.contains("watch-os     app not running, "), "\(watchView)")
        #expect(watchView.contains("outbox       0 queued, for the app to send"), "\(watchView)")
        let watchSnapshot = try JSONValue(parsing: try runTool(["top", "--json"], environment: environment).stdout)
        #expect(watchSnapshot["watch"]?["os"]?["appState"] == .string("not running"))
        #expect(watchSnapshot["watch"]?["heldByOS"]?["linkRange"] == .string("out"))

        for (arguments, words) in [
            (["top", "--interval-ms", "5"], "--interval-ms"), (["top", "--phone", pair.phoneHome], "--phone and --watch"),
            (["top", "--phone", "/nonexistent/p", "--watch", pair.watchHome, "--once"], "/nonexistent/p"),
            (["top", "nosuchpair"], "no pair named 'nosuchpair'"),
        ] {
            let result = try runTool(arguments, environment: environment)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").first?.contains(words) == true, "\(arguments): \(result.stderr)")
        }
    }

    @Test func topFollowsPhoneOSLaunchingAndReclaimingTheApp() throws {
        try withRunningPair(tag: "topos", phone: nil) { try Self.checkTopFollowsPhoneOSLaunchingAndReclaimingTheApp($0) }
    }

    /// The body of `topFollowsPhoneOSLaunchingAndReclaimingTheApp`, a function of its own: inline in the closure, swift-frontend 6.3.1 crashes (SendNonSendable, map::at).
    static func checkTopFollowsPhoneOSLaunchingAndReclaimingTheApp(_ pair: SimulatedPair) throws {
        try pair.startPhoneOS(["--background-budget-ms", "300"])
        let top = try RunningTool(["top", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--interval-ms", "100"])
        defer { top.signal(SIGKILL); _ = top.wait() }
        try pair.waitUntil("top's first block") { top.stdoutSoFar.contains("phone-os     app ") }
        try pair.record(30)
        try pair.waitUntil("the launch and the reclaim in top's events") {
            top.stdoutSoFar.contains("phone  app launched by phone-os") && top.stdoutSoFar.contains("phone  app reclaimed by phone-os")
        }
        top.signal(SIGINT)
        let result = top.wait()
        #expect(result.signal == SIGINT || result.status == 0, "plain top ends on Ctrl-C")
        #expect(!result.stdout.contains("\u{1B}"))
        _ = try pair.phoneOSCall(["app", "open"])
        try pair.waitUntil("the app answers") { (try? pair.status("phone")) != nil }
        try pair.expectDrainedAndClean()
    }

    @Test func aTimelineMarksAPhoneKillAndEndsWithTheCheckersCounts() throws {
        try withRunningPair(tag: "timeline", watch: ["--link-rate", "300"], phone: nil) {
            try Self.checkATimelineMarksAPhoneKillAndEndsWithTheCheckersCounts($0)
        }
    }

    /// The body of `aTimelineMarksAPhoneKillAndEndsWithTheCheckersCounts`, a function of its own: inline in the closure, swift-frontend 6.3.1 crashes (SendNonSendable, map::at).
    static func checkATimelineMarksAPhoneKillAndEndsWithTheCheckersCounts(_ pair: SimulatedPair) throws {
        let file = pair.root + "/timeline.ndjson", svg = pair.root + "/timeline.svg"
        let recorder = try RunningTool([
            "timeline", "record", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--out", file,
            "--interval-ms", "20", "--until-drained", "--max-seconds", "600", "--json",
        ])
        try pair.record(400)
        try pair.startPhone()
        try pair.waitUntil("the phone has stored some") { try pair.storedCount() >= 50 }
        let killed = pair.phone!.pid
        pair.killPhone()
        // The recorder has seen the phone down once a sample says so (a relaunch alone would show as a new pid).
        try pair.waitUntil("a sample with the phone down") {
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").last?.contains("\"phone\":{\"up\":false}") == true
        }
        try pair.startPhone()
        let relaunched = pair.phone!.pid
        let recorded = recorder.wait()
        #expect(recorded.status == 0, "\(recorded.stderr)")
        try pair.expectDrainedAndClean()
        let stored = try pair.logbookIDs().count

        let show = try runTool(["timeline", "show", file, "--json", "--svg", svg])
        #expect(show.status == 0, "\(show.stderr)")
        let summary = try JSONValue(parsing: show.stdout)
        let marks = summary["marks"]?.arrayValue ?? []
        #expect(marks.contains { $0["device"] == .string("phone") && $0["transition"] == .string("down") && $0["pid"] == .integer(Int64(killed)) })
        #expect(marks.contains { $0["device"] == .string("phone") && $0["transition"] == .string("up") && $0["pid"] == .integer(Int64(relaunched)) })
        #expect(!marks.contains { $0["device"] == .string("watch") }, "the watch was never down")
        #expect(summary["final"]?["phoneStored"] == .integer(Int64(stored)))
        #expect(summary["final"]?["watchOutbox"] == .integer(0))
        #expect(stored == 400)

        let picture = try runTool(["timeline", "show", file, "--width", "60"])
        #expect(picture.status == 0)
        #expect(picture.stdout.contains("✕") && picture.stdout.contains("phone down (pid \(killed))"))
        #expect(picture.stdout.contains("end: watch outbox 0, phone stored \(stored)"))
        // The SVG is well-formed XML with both series and the kill marked.
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: svg)))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("class=\"watch-outbox\"") && text.contains("class=\"phone-stored\"") && text.contains(">phone down</text>"))
    }

    @Test func theFlightSummaryDrawsPaceHeartRateAndSplits() throws {
        try withRunningPair(tag: "charts") { try Self.checkTheFlightSummaryDrawsPaceHeartRateAndSplits($0) }
    }

    /// The body of `theFlightSummaryDrawsPaceHeartRateAndSplits`, a function of its own: inline in the closure, swift-frontend 6.3.1 crashes (SendNonSendable, map::at).
    static func checkTheFlightSummaryDrawsPaceHeartRateAndSplits(_ pair: SimulatedPair) throws {
        let id = try pair.record(1, distanceKm: 5.5)[0]
        try pair.waitUntilDrained()
        let drawn = try runTool(["phone", "flight", id, "--home", pair.phoneHome], environment: ["LANG": "C.UTF-8", "LC_ALL": ""])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let lines = drawn.stdout.split(separator: "\n").map(String.init)
        let pace = try #require(lines.firstIndex(of: "  pace (faster up)"))
        let heart = try #require(lines.firstIndex(of: "  heart rate"))
        #expect(heart - pace == 6, "five rows of pace chart")
        #expect(lines[(pace + 1)..<heart].allSatisfy { $0.contains("┤") })
        #expect(lines[(pace + 1)..<heart].contains { $0.unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) } }, "braille dots")
        let blocks = Set("█▉▊▋▌▍▎▏")
        #expect(lines.filter { $0.hasPrefix("  km ") && $0.contains(where: blocks.contains) }.count == 6, "a bar for each split: five km and the last half")
        #expect(drawn.stdout.hasSuffix("delete: runway phone delete \(id)\n"), "the summary still ends with the way to delete")
        #expect(lines.filter { $0.hasPrefix("    km ") }.count == 6, "the splits table is unchanged")

        let ascii = try runTool(["phone", "flight", id, "--home", pair.phoneHome, "--ascii"])
        #expect(ascii.stdout.contains("  pace (faster up)") && ascii.stdout.contains("#"))
        let chartPart = ascii.stdout.components(separatedBy: "  pace (faster up)")[1]
        #expect(chartPart.unicodeScalars.allSatisfy { $0.isASCII }, "--ascii draws in ASCII")
        let posix = try runTool(["phone", "flight", id, "--home", pair.phoneHome], environment: ["LANG": "C", "LC_ALL": ""])
        #expect(posix.stdout.components(separatedBy: "  pace (faster up)")[1].unicodeScalars.allSatisfy { $0.isASCII }, "a C locale draws in ASCII")
        let plain = try runTool(["phone", "flight", id, "--home", pair.phoneHome, "--no-charts"])
        #expect(!plain.stdout.contains("pace (faster up)") && plain.stdout.hasSuffix("delete: runway phone delete \(id)\n"))
        let json = try JSONValue(parsing: try runTool(["phone", "flight", id, "--home", pair.phoneHome, "--json"]).stdout)
        #expect(json["id"] == .string(id))
        try pair.expectDrainedAndClean()
    }

    @Test func aTimelineThatIsNotOneIsOneLineAndExitTwo() throws {
        let scratch = makeScratchDirectory("tlbad")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let header = "{\"runwayTimeline\":1,\"pair\":\"x\",\"intervalMs\":100}\n"
        let cases: [(String, String)] = [
            ("garbage\n", "not a timeline file"),
            (header + "{\"t\":1,\"watch\":{\"up\":true},\"phone\":{\"up\":false}}\n{\"t\":0.5,\"watch\":{\"up\":true},\"phone\":{\"up\":false}}\n", "line 3"),
            (header + "{\"t\":1,\"watch\":{\"up\":true,\"count\":-4},\"phone\":{\"up\":false}}\n", "line 2"),
            (header + "{\"t\":1e99,\"watch\":{\"up\":true},\"phone\":{\"up\":false}}\n", "line 2"),
        ]
        for (index, (content, words)) in cases.enumerated() {
            let path = "\(scratch)/t\(index)"
            try content.write(toFile: path, atomically: true, encoding: .utf8)
            let result = try runTool(["timeline", "show", path])
            #expect(result.status == 2, "case \(index): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(words), "case \(index): \(result.stderr)")
        }
        let missing = try runTool(["timeline", "show", scratch + "/none"])
        #expect(missing.status == 2)
        let unwritable = try runTool(["timeline", "record", "--phone", scratch, "--watch", scratch, "--out", scratch + "/no/such/dir/f"])
        #expect(unwritable.status == 2 && unwritable.stderr.contains("cannot write"), "\(unwritable.stderr)")
    }
}
