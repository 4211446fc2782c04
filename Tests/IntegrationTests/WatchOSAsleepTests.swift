import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 41: the watch's OS answers while its app sleeps, as phone-os does. The complication is the
/// watch face's and the radio the system's: `runway watch complication on` and `runway link down|up`
/// work under watch-os with the watch app not running — launching nothing — and what watch-os recorded
/// holds for the app's next launch. A command that truly needs the app says so in one line, exit 1.
@Suite(.serialized) struct WatchOSAsleepTests {
    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.watchOSCall(["os", "status"]) }
    func appState(_ pair: SimulatedPair) throws -> String { try osStatus(pair)["appState"]?.stringValue ?? "?" }

    func waitUntilAppIsDown(_ pair: SimulatedPair) throws {
        try pair.waitUntil("the phone's queue for the watch is empty") { try pair.status("phone")["outstandingUserInfoTransfers"]?.intValue == 0 }
        try pair.waitUntil("the watch app is not running") { try appState(pair) == "not running" }
    }

    func runway(_ arguments: [String], _ pair: SimulatedPair) throws -> CommandResult { try runTool(arguments + ["--home", pair.watchHome]) }

    @Test func theComplicationAndTheLinkAnswerWithTheAppAsleepAndHoldForItsLaunch() throws {
        try withRunningPair(tag: "wos-asleep", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "300"])
            try waitUntilAppIsDown(pair)
            let launches = try osStatus(pair)["launchCount"]?.intValue ?? -1

            // The complication on the face: the phone hears it at once, and no app is launched for it.
            let on = try runway(["watch", "complication", "on", "--json"], pair)
            #expect(on.status == 0, "\(on.stderr)")
            #expect(try JSONValue(parsing: on.stdout)["complicationEnabled"] == .bool(true), "\(on.stdout)")
            try pair.waitUntil("the phone sees the complication on") { try pair.status("phone")["complicationEnabled"] == .bool(true) }
            var watch = try pair.status("watch")
            #expect(watch["answeredBy"]?.stringValue == "watch-os")
            #expect(watch["complicationEnabled"] == .bool(true))

            // Out of range by the user: the phone sees the watch gone, still nothing launched.
            let down = try runway(["watch", "link", "down"], pair)
            #expect(down.status == 0, "\(down.stderr)")
            try pair.waitUntil("the phone sees the watch gone") { try pair.status("phone")["linked"] == .bool(false) }
            watch = try pair.status("watch")
            #expect(watch["linkEnabled"] == .bool(false))
            #expect(try osStatus(pair)["launchCount"]?.intValue == launches, "neither command launched the app")
            #expect(try appState(pair) == "not running")

            // The user records runs: the app opens with the link down (the system's), the runs queue.
            try pair.record(5)
            #expect(try pair.status("watch")["linkEnabled"] == .bool(false), "the app took over the link down")
            #expect(try pair.status("watch")["complicationEnabled"] == .bool(true), "and the complication on")
            usleep(500_000)
            #expect(try pair.storedCount() == 0, "nothing crosses a link that is down")
            _ = try pair.watchOSCall(["app", "close"])
            try pair.waitUntil("the app is reclaimed") { try appState(pair) == "not running" }
            usleep(500_000)
            #expect(try appState(pair) == "not running", "out of range: nothing launches the app to send")

            // Back in range with the app asleep: watch-os connects and launches the app to send its queue.
            let up = try runway(["link", "up"], pair)
            #expect(up.status == 0, "\(up.stderr)")
            try pair.waitUntilDrained()
            #expect(try osStatus(pair)["launches"]?["watch-transfer"]?.intValue ?? 0 >= 1)
            try pair.expectClean(stored: 5)

            // A command only the app answers: one line, exit 1, saying how to open it.
            try pair.waitUntil("the app is reclaimed again") { try appState(pair) == "not running" }
            let needsTheApp = try runway(["watch", "transfers"], pair)
            #expect(needsTheApp.status == 1)
            #expect(needsTheApp.stderr.contains("the watch's app is not running"), "\(needsTheApp.stderr)")
            #expect(needsTheApp.stderr.split(separator: "\n").count == 1)
        }
    }

    /// The watch's clock and notification centre are watch-os's: a notification falls due on
    /// `runway clock advance` and is delivered with the app asleep, and nothing is launched for either.
    @Test func theClockAndNotificationsAnswerWithTheAppAsleep() throws {
        try withRunningPair(tag: "wos-notes", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "300"])
            try waitUntilAppIsDown(pair)
            let launches = try osStatus(pair)["launchCount"]?.intValue ?? -1
            let os = try ControlClient(home: DeviceHome(path: pair.watchHome, role: .watch), socketPath: pair.watchHome + "/os.sock")
            _ = try os.call(
                ControlRequest(command: "notification-add", arguments: ["id": .string("stand-up"), "inSeconds": .integer(3600), "body": .string("Stand up")]))
            var notes = try JSONValue(parsing: try runway(["watch", "notifications", "--json"], pair).stdout)
            #expect(notes["pending"]?.arrayValue?.count == 1)
            let advanced = try runway(["clock", "advance", "2h"], pair)
            #expect(advanced.status == 0, "\(advanced.stderr)")
            notes = try JSONValue(parsing: try runway(["watch", "notifications", "--json"], pair).stdout)
            #expect(notes["pending"]?.arrayValue?.isEmpty == true)
            #expect(notes["delivered"]?.arrayValue?.first?["id"]?.stringValue == "stand-up", "\(notes)")
            #expect(try runway(["clock", "show"], pair).status == 0)
            #expect(try osStatus(pair)["launchCount"]?.intValue == launches, "neither launched the app")
        }
    }
}
