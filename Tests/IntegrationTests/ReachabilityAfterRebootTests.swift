import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// Issue 50, row 9: after `runway phone reboot` and its first `unlock`, the watch sees the phone reachable
/// again while the phone's app is not running — through the binaries (phone-os, RunWay's watch-agent in
/// the foreground, the CLI).
///
/// Apple's `isReachable`, for the WatchKit extension: "The iOS device is within range, so communication can
/// occur and the WatchKit extension is running in the foreground, or is running with a high priority in
/// the background" — the iPhone's app need not run (a message wakes it). And
/// `iOSDeviceNeedsUnlockAfterRebootForReachability`: the iPhone "must be unlocked" after a restart before the
/// watch can reach it — once it is, that is false again.
///
/// On the code before issue 50: the flag was cleared only by a link, so with nothing pending the watch
/// kept `isReachable` false (and the flag true) until the phone's app ran.
@Suite(.serialized) struct ReachabilityAfterRebootTests {
    @Test func afterARebootAndItsFirstUnlockTheWatchSeesThePhoneReachableWithItsAppNotRunning() throws {
        try withRunningPair(tag: "reboot-reach", phone: nil) { pair in
            try pair.startPhoneOS()
            try pair.waitUntil("the watch sees the phone in range") { try pair.status("watch")["reachable"] == .bool(true) }
            let rebooted = try pair.phoneOSCall(["reboot"])
            #expect(rebooted["lockedAfterReboot"] == .bool(true))
            try pair.waitUntil("the watch hears the phone needs unlocking") {
                let watch = try pair.status("watch")
                return watch["iOSDeviceNeedsUnlockAfterReboot"] == .bool(true) && watch["reachable"] == .bool(false)
            }
            _ = try pair.phoneOSCall(["unlock"])
            try pair.waitUntil("the watch sees the phone reachable again") {
                let watch = try pair.status("watch")
                return watch["reachable"] == .bool(true) && watch["iOSDeviceNeedsUnlockAfterReboot"] == .bool(false)
            }
            #expect(try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue == "not running", "its app was never launched")
            #expect(try pair.phoneOSCall(["os", "status"])["launchCount"]?.intValue == 0)
            // Reachable means what it says: a message now launches the phone's app, and is answered.
            let path = pair.root + "/ping.json"
            try #"{"ping": 1}"#.write(toFile: path, atomically: true, encoding: .utf8)
            let reply = try runTool(["watch", "message", "--home", pair.watchHome, "--json-file", path, "--json"])
            #expect(reply.status == 0, "\(reply.stderr)")
            #expect(try pair.phoneOSCall(["os", "status"])["launches"]?["message"]?.intValue == 1)
            let log = (try? String(contentsOfFile: pair.watchLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=peer.unlocked"))
        }
    }
}
