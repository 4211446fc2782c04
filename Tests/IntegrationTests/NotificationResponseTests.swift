import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The user sees and opens an app's notifications, through the real binaries (phone-os hosting
/// `probe-app`, whose `UNUserNotificationCenterDelegate` notes each call in Documents/notifications.log).
///
/// Apple, `userNotificationCenter(_:willPresent:withCompletionHandler:)`: "If your app is in the
/// foreground when a notification arrives, the shared user notification center calls this method to
/// deliver the notification directly to your app." — so never while it runs in the background.
/// Apple, `userNotificationCenter(_:didReceive:withCompletionHandler:)`: "Use this method to process the
/// user's response to a notification. If the user selected one of your app's custom actions, the response
/// parameter contains the identifier for that action. (The response can also indicate that the user
/// dismissed the notification interface, or launched your app, without selecting a custom action.)" — the
/// open launches the app if it is not running, and hands it the response with
/// `UNNotificationDefaultActionIdentifier`.
@Suite struct NotificationResponseTests {
    static var probe: String { Binaries.path("probe-app") }

    static func log(_ pair: SimulatedPair) -> [String] {
        let path = pair.phoneHome + "/apps/probe-app/Documents/notifications.log"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// Adds a notification `inSeconds` of device time ahead (the OS's test command), then moves the clock
    /// past it: delivered when the command returns.
    func deliver(_ id: String, _ pair: SimulatedPair) throws {
        let home = DeviceHome(path: pair.phoneHome, role: .phone)
        let os = try ControlClient(home: home, socketPath: home.osControlSocketPath)
        _ = try os.call(
            ControlRequest(command: "notification-add", arguments: ["id": .string(id), "inSeconds": .integer(60), "body": .string("Time to run")]))
        #expect(try runTool(["clock", "advance", "2m", "--home", pair.phoneHome]).status == 0)
        let delivered = try pair.phoneOSCall(["notifications"])["delivered"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(delivered.contains(id), "\(id) not delivered: \(delivered)")
    }

    func open(_ id: String, _ pair: SimulatedPair) throws -> CommandResult {
        try runTool(["phone", "notifications", "open", id, "--home", pair.phoneHome, "--json"])
    }

    func appState(_ pair: SimulatedPair) throws -> String { try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue ?? "?" }

    @Test func openingANotificationLaunchesTheAppInTheForegroundAndHandsItTheResponse() throws {
        try withPair(tag: "un-open") { pair in
            try pair.startPhoneOS(["--app", Self.probe, "--background-budget-ms", "60000"])
            #expect(try appState(pair) == "not running")
            // Delivered while nothing runs: nobody is told (the user sees it on the lock screen).
            try deliver("run-reminder", pair)
            #expect(try appState(pair) == "not running")
            let opened = try open("run-reminder", pair)
            #expect(opened.status == 0, "\(opened.stderr)")
            let reply = try JSONValue(parsing: opened.stdout)
            #expect(reply["opened"]?.stringValue == "run-reminder")
            #expect(reply["actionIdentifier"]?.stringValue == "com.apple.UNNotificationDefaultActionIdentifier")
            try pair.waitUntil("the launched app hears the response") { Self.log(pair).contains { $0.hasPrefix("didReceive run-reminder") } }
            #expect(Self.log(pair) == ["didReceive run-reminder default active"], "launched in the foreground, told once, nothing presented")
            #expect(try appState(pair) == "foreground")
            #expect(try pair.phoneOSCall(["os", "status"])["launches"]?["user"]?.intValue == 1, "a foreground launch, as a tap on the app")
            // Opened, it leaves the delivered list; opening it again is an error.
            let delivered = try pair.phoneOSCall(["notifications"])["delivered"]?.arrayValue ?? []
            #expect(!delivered.contains { $0["id"]?.stringValue == "run-reminder" })
            let again = try open("run-reminder", pair)
            #expect(again.status == 1)
            #expect(again.stderr.contains("no delivered notification has the id run-reminder"), "\(again.stderr)")
        }
    }

    @Test func willPresentOnlyInTheForegroundAndAnOpenBringsABackgroundAppForward() throws {
        try withPair(tag: "un-present") { pair in
            try pair.startPhoneOS(["--app", Self.probe, "--background-budget-ms", "60000"])
            _ = try pair.phoneOSCall(["app", "open"])
            try deliver("front", pair)
            try pair.waitUntil("the foreground app is asked how to present it") { Self.log(pair).contains("willPresent front active") }
            _ = try pair.phoneOSCall(["app", "close"])
            #expect(try appState(pair) == "background")
            try deliver("behind", pair)
            // Opened from the background: the same process comes forward and hears it. Had `willPresent`
            // been called for "behind", its line would be in the log before this one (one queue, in order).
            #expect(try open("behind", pair).status == 0)
            try pair.waitUntil("the app hears the response") { Self.log(pair).contains { $0.hasPrefix("didReceive behind") } }
            #expect(Self.log(pair) == ["willPresent front active", "didReceive behind default active"], "\(Self.log(pair))")
            #expect(try appState(pair) == "foreground")
            #expect(try pair.phoneOSCall(["os", "status"])["launches"]?["user"]?.intValue == 1, "the same process, not a second launch")
        }
    }

    /// SIGKILLed after it was told, the app is launched again by the next open and told only of that one:
    /// a response is handed once, to the launch it was for.
    @Test func aKilledAppIsLaunchedAgainByTheNextOpenAndToldOnlyOfIt() throws {
        try withPair(tag: "un-kill") { pair in
            try pair.startPhoneOS(["--app", Self.probe, "--background-budget-ms", "60000"])
            try deliver("first", pair)
            try deliver("second", pair)
            #expect(try open("first", pair).status == 0)
            try pair.waitUntil("told of the first") { Self.log(pair).contains("didReceive first default active") }
            let pid = try #require(try pair.phoneOSCall(["os", "status"])["appPid"]?.intValue)
            kill(pid_t(pid), SIGKILL)
            try pair.waitUntil("the app is down") { try appState(pair) == "not running" }
            #expect(try open("second", pair).status == 0)
            try pair.waitUntil("told of the second") { Self.log(pair).contains { $0.hasPrefix("didReceive second") } }
            #expect(Self.log(pair) == ["didReceive first default active", "didReceive second default active"], "\(Self.log(pair))")
            let launches = try #require(try? String(contentsOfFile: pair.phoneHome + "/apps/probe-app/Documents/launches.log", encoding: .utf8))
            #expect(launches.split(separator: "\n").count == 2, "two launches, each by an open: \(launches)")
        }
    }
}
