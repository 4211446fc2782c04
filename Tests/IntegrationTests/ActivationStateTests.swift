import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 50, row 5: `activationState` before the delegate hears activation — through the binaries,
/// phone-os hosting `probe-app --poll-activation-state` (another thread reads `activationState` every
/// millisecond until the delegate is told), RunWay's watch-agent on a slow link (400 ms each way), so that
/// the phone's activation waits for the watch's first link for most of a second.
///
/// Apple's `activationState`: "Use the `sessionDidBecomeInactive(_:)` and `sessionDidDeactivate(_:)` methods
/// of your session delegate to monitor changes in the session's activation state", and
/// `session(_:activationDidCompleteWith:error:)`: "Tells the delegate that the session has finished
/// activating" — the state is `.notActivated` until then; an app that reads `.activated` first sends before
/// its delegate has seen the counterpart's state.
///
/// On the code before issue 50: the session was activated inside at once and announced only once the first
/// link settled: the app read `.activated` for the whole wait (`early` in the hundreds).
@Suite(.serialized) struct ActivationStateTests {
    func log(_ pair: SimulatedPair) -> [String] {
        let text = (try? String(contentsOfFile: pair.phoneHome + "/apps/probe-app/Documents/activationstate.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    @Test func activationStateIsNotActivatedUntilTheDelegateHearsIt() throws {
        try withRunningPair(tag: "actstate", phone: nil) { pair in
            let slow = try runTool(["link", "set", "--latency", "400", "--home", pair.watchHome])
            #expect(slow.status == 0, "\(slow.stderr)")
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--app-arg=--poll-activation-state"])
            // The watch knocks (and is declined: nothing pending): phone-os knows it is near, so the app's
            // activation waits for its link.
            try pair.waitUntil("phone-os has heard the watch") { try pair.phoneOSCall(["os", "status"])["declinedLaunches"]?.intValue ?? 0 >= 1 }
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the probe has polled until its delegate heard activation") { log(pair).contains { $0.hasPrefix("polled") } }
            let lines = log(pair)
            #expect(lines.contains("heard 2 read 2"), "the delegate heard .activated, and reads it there: \(lines)")
            let polled = try #require(lines.first { $0.hasPrefix("polled") })
            #expect(polled.hasSuffix(" early=0"), "never .activated before the delegate heard it: \(polled)")
            let reads = Int(polled.split(separator: " ")[1].dropFirst("reads=".count)) ?? 0
            #expect(reads > 10, "the poller read it many times while activation waited for the link: \(polled)")
            let phoneLog = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(phoneLog.contains("event=session.activated"))
        }
    }
}
