import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The phone's OS under its app: phone-os keeps the clock and the notification centre and serves them
/// while the app is not running, a reminder is delivered at its fire date whether the app runs or not,
/// and a command that needs the app says at once that it is not running (or suspended). Through the
/// real binaries; the invariant checker at the end of each test that moves flights.
@Suite(.serialized) struct PhoneOSServicesTests {
    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.phoneOSCall(["os", "status"]) }

    /// `runway ARGUMENTS`, exit 0, its JSON.
    func json(_ arguments: [String], environment: [String: String] = [:]) throws -> JSONValue {
        let result = try runTool(arguments, environment: environment)
        guard result.status == 0 else { throw HarnessError("runway \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    /// Flights saved by a background launch, which then ends (the budget): the app is not running.
    func savedInTheBackground(_ pair: SimulatedPair, _ count: Int, osArguments: [String] = []) throws {
        try pair.startPhoneOS(["--background-budget-ms", "1500"] + osArguments)
        try pair.startWatch()
        try pair.record(count)
        try pair.waitUntilDrained()
        try pair.waitUntil("the background launch is reclaimed") { try osStatus(pair)["appState"]?.stringValue == "not running" }
    }

    func openAndCheck(_ pair: SimulatedPair, stored: Int) throws {
        _ = try pair.phoneOSCall(["app", "open"])
        let report = try pair.check()
        #expect(report.isClean, "\(report.violations.joined(separator: "\n"))")
        #expect(report.stored == stored)
    }

    /// The issue's scenario: the app saved runs in the background and was reclaimed; the clock is moved 8
    /// days on; the 7-day reminder is delivered by the OS while the app is still not running, and
    /// `runway phone notifications` lists it — answered by phone-os, with no launch for it.
    @Test func aReminderIsDeliveredWhileTheAppIsNotRunning() throws {
        try withPair(tag: "os-remind") { pair in
            try savedInTheBackground(pair, 5)
            let launches = try osStatus(pair)["launchCount"]?.intValue
            let before = try json(["phone", "notifications", "--json", "--home", pair.phoneHome])
            #expect(before["pending"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [7, 14, 21, 28].map { "runway.reminder.\($0)d" })
            #expect(before["delivered"]?.arrayValue?.isEmpty == true)

            let advanced = try json(["clock", "advance", "8d", "--home", pair.phoneHome, "--json"])
            #expect(advanced["mode"]?.stringValue == "offset")
            let after = try json(["phone", "notifications", "--json", "--home", pair.phoneHome])
            #expect(after["delivered"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["runway.reminder.7d"])
            #expect(after["pending"]?.arrayValue?.count == 3)
            // Delivered by the OS: the app was never launched for it.
            let status = try osStatus(pair)
            #expect(status["appState"]?.stringValue == "not running")
            #expect(status["launchCount"]?.intValue == launches)
            #expect(
                try String(contentsOfFile: pair.phoneLog, encoding: .utf8).contains("event=os.notification-delivered id=runway.reminder.7d appRunning=false"))
            try openAndCheck(pair, stored: 5)
        }
    }

    /// With the app not running: `status` is what the OS knows; a command for the app is one line, exit
    /// 1, saying how to open it; suspended, the same at once; `runway phone ui` opens the app, as a tap on
    /// its icon would.
    @Test func withTheAppDownTheOSAnswersAndTheAppsCommandsSaySo() throws {
        try withPair(tag: "os-down") { pair in
            try savedInTheBackground(pair, 3)
            let status = try json(["phone", "status", "--json", "--home", pair.phoneHome])
            #expect(status["answeredBy"]?.stringValue == "phone-os")
            #expect(status["appState"]?.stringValue == "not running")
            #expect(status["paired"]?.boolValue == true)
            let down = try runTool(["phone", "logbook", "--home", pair.phoneHome])
            #expect(down.status == 1)
            #expect(down.stderr.contains("app is not running") && down.stderr.contains("runway phone app open"), "\(down.stderr)")
            #expect(down.stderr.split(separator: "\n").count == 1)
            // The clock is the OS's: `--home` reaches it with the app down, as `--pair` does (issue 39).
            let clock = try json(["clock", "advance", "1d", "--home", pair.phoneHome, "--json"])
            #expect((clock["offsetSeconds"]?.doubleValue ?? 0) > 86_000, "\(clock.text)")
            #expect(try json(["clock", "show", "--home", pair.phoneHome, "--json"])["mode"]?.stringValue == "offset")
            #expect(try osStatus(pair)["appState"]?.stringValue == "not running", "the clock did not need the app")

            _ = try pair.phoneOSCall(["app", "open"])
            _ = try pair.phoneOSCall(["app", "suspend"])
            let suspended = try runTool(["phone", "logbook", "--home", pair.phoneHome])
            #expect(suspended.status == 1)
            #expect(suspended.stderr.contains("suspended"), "\(suspended.stderr)")
            _ = try pair.phoneOSCall(["app", "force-quit"])
            try pair.waitUntil("the app is gone") { try osStatus(pair)["appState"]?.stringValue == "not running" }

            // `phone ui` (not on a terminal: a line per event) opens it.
            let ui = try ChildProcess("runway", ["phone", "ui", "--home", pair.phoneHome], stdout: .file(pair.root + "/ui.out"))
            defer { _ = ui.stop() }
            try pair.waitUntil("the UI attached") {
                ((try? String(contentsOfFile: pair.root + "/ui.out", encoding: .utf8)) ?? "").contains("-- attached;")
            }
            #expect(try osStatus(pair)["appState"]?.stringValue == "foreground")
            try openAndCheck(pair, stored: 3)
        }
    }

    /// `phone-os --app-arg` reaches the app at each launch: RunWay 1.3.1's single reminder
    /// (`--reminders legacy`) is what the background launch schedules.
    @Test func appArgumentsReachTheApp() throws {
        try withPair(tag: "os-args") { pair in
            try savedInTheBackground(pair, 2, osArguments: ["--app-arg=--reminders", "--app-arg=legacy"])
            let pending = try json(["phone", "notifications", "--json", "--home", pair.phoneHome])["pending"]?.arrayValue
            #expect(pending?.compactMap { $0["id"]?.stringValue } == ["runway.reminder.inactivity"])
            try openAndCheck(pair, stored: 2)
            #expect(try pair.status("phone")["reminderRule"]?.stringValue == "legacy")
        }
    }

    /// An `--app-arg` the app refuses: the launch fails with the app's own line in `os status` (and the
    /// log), and is backed off — never a launch loop; the runs wait on the watch.
    @Test func anArgumentTheAppRefusesIsReportedInItsOwnWords() throws {
        try withPair(tag: "os-badarg") { pair in
            try pair.startPhoneOS(["--app-arg=--reminders", "--app-arg=sometimes"])
            try pair.startWatch()
            try pair.record(2)
            try pair.waitUntil("a failed launch") { try osStatus(pair)["failuresInARow"]?.intValue ?? 0 >= 1 }
            let failure = try osStatus(pair)["lastFailure"]?.stringValue ?? ""
            #expect(failure.contains("exited with status 2") && failure.contains("--reminders must be current or legacy"), "\(failure)")
            #expect(try pair.outstandingTransfers() == 2)
        }
    }

    /// The app's container: Foundation's own directory APIs resolve inside `HOME/apps/BUNDLE-ID` for
    /// the app phone-os launches and for a phone-daemon started by hand alike.
    @Test func foundationsDirectoriesAreInTheAppsContainer() throws {
        try withPair(tag: "os-box") { pair in
            let container = pair.phoneHome + "/apps/com.runway.RunWay"
            try pair.startPhoneOS()
            _ = try pair.phoneOSCall(["app", "open"])
            let launched = try pair.status("phone")["container"]
            #expect(launched?["path"]?.stringValue == container)
            #expect(launched?["documents"]?.stringValue == container + "/Documents")
            #expect(launched?["temporary"]?.stringValue == container + "/tmp")
            pair.phoneOS?.stop()
            try pair.startPhone()
            #expect(try pair.status("phone")["container"] == launched)
            for folder in ["Documents", "Library/Preferences", "Library/Application Support", "Library/Caches", "tmp"] {
                #expect(FileManager.default.fileExists(atPath: container + "/" + folder), "\(folder)")
            }
        }
    }

    /// `runway clock` resolves the registered pair like every other command: both devices.
    @Test func theClockResolvesTheRegisteredPair() throws {
        try withRunningPair(tag: "clock-pair") { pair in
            // A registry with this pair in it (re-pairing the same two homes keeps their pairing).
            let registry = ["RUNWAY_STATE_DIR": pair.root + "/state"]
            _ = try json(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--json"], environment: registry)
            let both = try json(["clock", "show", "--json"], environment: registry)
            #expect(both["phone"]?["mode"]?.stringValue == "offset")
            #expect(both["watch"]?["mode"]?.stringValue == "offset")
            let moved = try json(["clock", "advance", "1d", "--json"], environment: registry)
            #expect((moved["phone"]?["offsetSeconds"]?.doubleValue ?? 0) > 86_000)
            #expect((moved["watch"]?["offsetSeconds"]?.doubleValue ?? 0) > 86_000)
        }
    }

    /// A notification the OS delivers while the app runs under phone-os reaches the app's delegate: the
    /// OS publishes it, relays it on the app's attached connection to `os.sock`, the app's channel
    /// decodes it by its name (`NotificationDelivered`), and `willPresent` tells an attached UI.
    @Test func aDeliveryWhileTheAppRunsReachesItsDelegate() throws {
        try withPair(tag: "os-present") { pair in
            try pair.startPhoneOS()
            _ = try pair.phoneOSCall(["app", "open"])
            let home = DeviceHome(path: pair.phoneHome, role: .phone)
            let ui = try ControlClient(home: home)
            _ = try ui.call(ControlRequest(command: "attach"))
            let os = try ControlClient(home: home, socketPath: home.osControlSocketPath)
            _ = try os.call(
                ControlRequest(command: "notification-add", arguments: ["id": .string("present"), "inSeconds": .integer(1), "body": .string("Hello")]))
            // Not told within 15 s: the connection is shut, and the wait ends with nothing.
            let descriptor = ui.rawDescriptor
            let timeout = DispatchWorkItem { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 15, execute: timeout)
            var presented: JSONValue?
            while presented == nil, let event = try? ui.nextEvent() {
                if event["event"]?.stringValue == "notificationDelivered" { presented = event }
            }
            timeout.cancel()
            #expect(presented?["id"]?.stringValue == "present", "the app's delegate was not told within 15 s")
            #expect(presented?["body"]?.stringValue == "Hello")
            #expect(
                try String(contentsOfFile: pair.phoneLog, encoding: .utf8).contains("event=os.notification-delivered id=present appRunning=true"))
        }
    }
}
