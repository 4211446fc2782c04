import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 50, row 6: an iPhone app whose session delegate implements neither `sessionDidBecomeInactive(_:)`
/// nor `sessionDidDeactivate(_:)` opts out of quick watch switching, and after a switch its system
/// terminates it in the background — through the binaries, with an app of one's own on the phone
/// (`probe-app --bare-delegate`: only `session(_:activationDidCompleteWith:error:)`) and the same app with
/// both methods (`probe-app`) beside it as the control.
///
/// Apple's `sessionDidBecomeInactive(_:)` page: "You must implement this method to support quick
/// switching between Apple Watch devices in your iPhone app."; `sessionDidDeactivate(_:)`'s: "You must
/// implement this method to support quick switching between Apple Watch devices in your iOS app."; and
/// `WCSessionDelegate`'s overview: apps must implement `session(_:activationDidCompleteWith:error:)`,
/// and "On iOS," the two switching methods too. That an app implementing neither is terminated in the
/// background after a switch is the account of iOS (docs/protocol.md, "Differences from Apple",
/// says which part is Apple's sentence and which is not).
///
/// On the code before issue 50 row 6 (dbfabb38 and after rows 1–5, 7–9): the bare app kept running after
/// the switch, with a session that was deactivated and never activated again — deaf to the new watch
/// until something else ended it.
@Suite(.serialized) struct WatchSwitchOptOutTests {
    /// A second watch paired with the pair's phone (added: the first stays active).
    func addWatch(_ pair: SimulatedPair) throws -> String {
        let home = pair.root + "/watch2"
        let paired = try runTool(["pair", "--phone", pair.phoneHome, "--watch", home, "--json"])
        #expect(paired.status == 0, "\(paired.stderr)")
        return home
    }

    /// Starts phone-os with the probe app, opens it, waits for its session, and puts it in the background.
    func backgroundApp(_ pair: SimulatedPair, bare: Bool) throws {
        var arguments = ["--app", YourOwnAppTests.probe, "--background-budget-ms", "120000", "--suspend-after-idle-ms", "600000"]
        if bare { arguments.append("--app-arg=--bare-delegate") }
        try pair.startPhoneOS(arguments)
        _ = try pair.phoneOSCall(["app", "open"])
        try pair.waitUntil("the app's session is activated", timeout: 30) {
            (try? pair.status("phone"))?["activationState"]?.stringValue == "activated"
        }
        _ = try pair.phoneOSCall(["app", "close"])
        #expect(try pair.phoneOSCall(["os", "status"])["appState"] == .string("background"))
    }

    /// The delegate calls the phone's session made, in order (`runway phone events`).
    func calls(_ pair: SimulatedPair) throws -> [String] {
        let result = try runTool(["phone", "events", "--home", pair.phoneHome, "--limit", "1024", "--json"])
        return try result.stdout.split(separator: "\n").compactMap { try JSONValue(parsing: String($0))["call"]?.stringValue }
    }

    func switchTo(_ pair: SimulatedPair, _ home: String) throws {
        let result = try runTool(["phone", "switch-watch", home, "--home", pair.phoneHome, "--json"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(try JSONValue(parsing: result.stdout)["by"]?.stringValue?.contains("the app's session") == true, "\(result.stdout)")
    }

    @Test func anAppImplementingNeitherSwitchMethodIsTerminatedInTheBackgroundAfterASwitch() throws {
        try withRunningPair(tag: "optout", phone: nil) { pair in
            let home2 = try addWatch(pair)
            try backgroundApp(pair, bare: true)
            try switchTo(pair, home2)
            try pair.waitUntil("phone-os terminates the app that opted out", timeout: 30) {
                try pair.phoneOSCall(["os", "status"])["appState"] == .string("not running")
            }
            let log = logText(pair.phoneLog)
            #expect(log.contains("event=delegate.not-implemented method=sessionDidBecomeInactive(_:) "), "the session names the method")
            #expect(log.contains("event=delegate.not-implemented method=sessionDidDeactivate(_:) "), "the session names the method")
            #expect(log.contains("event=os.watch-switch-opt-out "), "phone-os says why")
            #expect(
                log.contains("event=os.reclaimed ") && log.contains("implements neither sessionDidBecomeInactive nor sessionDidDeactivate"), "reclaimed for it")
            #expect(try pair.phoneOSCall(["os", "status"])["reclaims"]?.intValue == 1)
            // The switch itself was made: the next launch talks to the new watch.
            let status = try JSONValue(parsing: runTool(["phone", "status", "--home", pair.phoneHome, "--json"]).stdout)
            #expect(status["activeWatch"]?.stringValue?.isEmpty == false)
        }
    }

    /// The control: the same app with both methods hears the switch, activates again and keeps running.
    @Test func anAppImplementingTheSwitchMethodsKeepsRunningAfterASwitch() throws {
        try withRunningPair(tag: "optin", phone: nil) { pair in
            let home2 = try addWatch(pair)
            try backgroundApp(pair, bare: false)
            try switchTo(pair, home2)
            try pair.waitUntil("the app hears the deactivation and activates again for the new watch", timeout: 30) {
                let calls = try calls(pair)
                guard let deactivated = calls.lastIndex(of: "sessionDidDeactivate") else { return false }
                return calls[deactivated...].contains("activationDidComplete")
            }
            let log = logText(pair.phoneLog)
            #expect(!log.contains("event=os.watch-switch-opt-out "), "no opt-out for an app with both methods")
            #expect(try pair.phoneOSCall(["os", "status"])["appState"] == .string("background"))
        }
    }
}
