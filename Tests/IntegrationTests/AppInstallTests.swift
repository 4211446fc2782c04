import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The companion app's install state and the phone's lock, under phone-os, through the real binaries:
/// RunWay's seed #64 — installing over the app keeps its data, deleting and installing loses it — a
/// downgrade refused, the watch's `isCompanionAppInstalled` and 7018 while the app is gone; a restart that
/// leaves the phone unreachable until its first unlock (`iOSDeviceNeedsUnlockAfterRebootForReachability`).
@Suite(.serialized) struct AppInstallTests {
    func run(_ arguments: [String]) throws -> CommandResult { try runTool(arguments) }

    func openApp(_ pair: SimulatedPair) throws {
        _ = try pair.phoneOSCall(["app", "open"])
        try pair.waitUntil("the app answers") { (try? pair.status("phone")) != nil }
    }

    func events(_ pair: SimulatedPair) throws -> [JSONValue] {
        try run(["watch", "events", "--home", pair.watchHome, "--json"]).stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
    }

    @Test func installOverKeepsTheDataDeleteAndInstallLosesItAndADowngradeIsRefused() throws {
        try withPair(tag: "install") { pair in
            try pair.startPhoneOS()
            try pair.startWatch()
            let ids = try pair.record(3)
            try pair.waitUntilDrained()
            try openApp(pair)
            #expect(try pair.logbookIDs() == ids)

            // Install over it, a newer version: the data stays (the app relaunched at 1.5).
            let updated = try pair.phoneOSCall(["app", "install", "--version", "1.5"])
            #expect(updated["appVersion"] == .string("1.5") && updated["appInstalled"] == .bool(true))
            try openApp(pair)
            #expect(try pair.status("phone")["appVersion"] == .string("1.5"))
            #expect(try pair.logbookIDs() == ids, "install-over keeps the Logbook")

            // A downgrade is refused, and changes nothing.
            let downgrade = try run(["phone", "app", "install", "--version", "1.4", "--home", pair.phoneHome])
            #expect(downgrade.status == 1 && downgrade.stderr.contains("older than the installed 1.5"), "\(downgrade.stderr)")
            #expect(try run(["phone", "app", "install", "--version", "1.x", "--home", pair.phoneHome]).status == 2)

            // Delete it: the watch learns it at once (its next connection is turned away with 7018), and
            // the OS forgets the app's notifications with it.
            #expect(try pair.phoneOSCall(["notifications"])["pending"]?.arrayValue?.isEmpty == false, "the saved runs scheduled reminders")
            let deleted = try pair.phoneOSCall(["app", "uninstall"])
            let left = try pair.phoneOSCall(["notifications"])
            #expect(left["pending"]?.arrayValue?.isEmpty == true && left["delivered"]?.arrayValue?.isEmpty == true, "\(left)")
            #expect(deleted["appInstalled"] == .bool(false) && deleted["appState"] == .string("not running"))
            #expect(!FileManager.default.fileExists(atPath: pair.phoneHome + "/apps"), "the app's container is gone")
            try pair.waitUntil("the watch knows the phone app is gone") { try pair.status("watch")["companionAppInstalled"] == .bool(false) }
            #expect(try events(pair).contains { $0["call"] == .string("sessionWatchStateDidChange") })
            let refused = try run(["watch", "record", "--home", pair.watchHome])
            #expect(refused.status == 1 && refused.stderr.contains("7018 companionAppNotInstalled"), "\(refused.stderr)")
            let open = try run(["phone", "app", "open", "--home", pair.phoneHome])
            #expect(open.status == 1 && open.stderr.contains("not installed"), "\(open.stderr)")

            // Install again: a new app, with nothing of the old one's.
            _ = try pair.phoneOSCall(["app", "install"])
            try pair.waitUntil("the watch knows it is back") { try pair.status("watch")["companionAppInstalled"] == .bool(true) }
            try openApp(pair)
            #expect(try pair.logbookIDs().isEmpty, "delete-and-install loses the Logbook")
            // The flights the deletion took are the user's doing, not a loss; what comes now arrives.
            pair.noteDeleted(Set(ids))
            let more = try pair.record(2)
            try pair.waitUntilDrained()
            #expect(try pair.logbookIDs() == more)
            let report = try pair.check()
            #expect(report.isClean, "\(report.violations.joined(separator: "\n"))")
        }
    }

    @Test func aRebootedPhoneIsUnreachableUntilItsFirstUnlock() throws {
        try withPair(tag: "reboot") { pair in
            try pair.startPhoneOS()
            try pair.startWatch()
            try openApp(pair)
            try pair.waitUntil("linked") { try pair.status("watch")["linked"] == .bool(true) }
            let rebooted = try pair.phoneOSCall(["reboot"])
            #expect(rebooted["lockedAfterReboot"] == .bool(true) && rebooted["appState"] == .string("not running"))
            try pair.record(2)  // pending: the watch knocks at once
            try pair.waitUntil("the watch knows the phone needs unlocking") {
                try pair.status("watch")["iOSDeviceNeedsUnlockAfterReboot"] == .bool(true)
            }
            #expect(try pair.status("watch")["outstandingUserInfoTransfers"] == .integer(2), "nothing got through")
            let open = try run(["phone", "app", "open", "--home", pair.phoneHome])
            #expect(open.status == 1 && open.stderr.contains("unlock"), "\(open.stderr)")
            // A lock after the first unlock changes nothing for the watch; the first unlock does.
            _ = try pair.phoneOSCall(["unlock"])
            try pair.waitUntilDrained()
            #expect(try pair.status("watch")["iOSDeviceNeedsUnlockAfterReboot"] == .bool(false))
            _ = try pair.phoneOSCall(["lock"])
            try pair.record(1)
            try pair.waitUntilDrained()
            #expect(try events(pair).filter { $0["call"] == .string("sessionReachabilityDidChange") }.count >= 1)
            try openApp(pair)
            let report = try pair.check()
            #expect(report.isClean && report.stored == 3, "\(report.violations.joined(separator: "\n"))")
        }
    }
}
