import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

extension SimulatedPair {
    /// The runs each device's Health store holds (`runway DEVICE health --json`'s uuids).
    func healthCounts(_ id: String) throws -> (phone: Int, watch: Int) {
        (try healthUUIDs("phone").filter { $0 == id }.count, try healthUUIDs("watch").filter { $0 == id }.count)
    }
}

/// Issue 51's failures 1 and 2, each reproduced through the real binaries (the watch under watch-os, as a
/// user runs it) with the invariant checker counting the run's Health saves across both devices' stores;
/// each also run with `phone-daemon --health volatile` — the phone before issue 51, its decision who saves
/// kept in memory only and never taken back — to show the checker catches the loss and the double save.
@Suite(.serialized) struct HealthOwnershipTests {
    /// Failure 1: the watch app deleted after the phone's run was mirrored. The phone left the Health save
    /// to the watch and nothing took it back; the deletion took the watch's run with its container, and
    /// `run stop` still answered `saved`: the run was in no Health store (5 of 7 rounds). Now the phone
    /// hears the app is gone, reads the watch's Health store (no workout for the run) and saves it itself.
    @Test(arguments: ["once", "volatile"])
    func aPhoneLedRunWhoseWatchAppIsDeletedMidRunIsSavedOnce(rule: String) throws {
        try withRunningPair(tag: "w51u", watch: nil, phone: ["--health", rule]) { pair in
            try pair.startWatchOS()
            try pair.waitUntilWatchOSSettles()
            let id = try pair.confirmedPhoneLedRun()
            #expect(try pair.phoneRun(["status"])["mirroring"]?["healthSaver"] == .string("watch"))
            _ = try pair.watchOSCall(["app", "uninstall"])
            try pair.waitUntil("the phone hears the watch app is gone") { try pair.status("phone")["watchAppInstalled"] == .bool(false) }
            #expect(try pair.stopPhoneRun()["saved"] == .string("saved"))
            pair.noteFinishedRun(id)
            if rule == "volatile" {
                // Nothing on either side will ever save it: the watch's run went with its container.
                let report = try pair.check()
                #expect(report.health.missing == [id], "\(report.violations)")
                return
            }
            try pair.waitUntil("the phone took the save back and saved the run", timeout: 15) {
                try pair.status("phone")["healthDecisionsPending"] == .integer(0) && pair.healthCounts(id) != (0, 0)
            }
            try pair.expectClean(stored: 1)
            #expect(try pair.healthCounts(id) == (1, 0), "the phone took the save back")
            let log = try String(contentsOfFile: pair.phoneLog, encoding: .utf8)
            #expect(log.contains("event=run.health-looked-up runId=\(id) found=false"))
            #expect(log.contains("event=run.health-taken-back runId=\(id)"))
        }
    }

    /// Failure 2 (RunWay's bug #28 come back): the watch app killed, then the phone restarted, during a
    /// phone-led run. The phone kept its mirroring state in memory only and waited for the watch to mirror
    /// again, which the dead watch app never did: the phone saved the run at its stop, and the watch app,
    /// next opened, recovered the run and saved it too (5 of 5 rounds). Now the restarted phone knows from
    /// its record that the watch saves the run (and watch-os relaunches the killed app: item 4).
    @Test(arguments: ["once", "volatile"])
    func theWatchAppKilledThenThePhoneRestartedSavesTheRunOnce(rule: String) throws {
        try withRunningPair(tag: "w51k", watch: nil, phone: ["--health", rule]) { pair in
            try pair.startWatchOS()
            try pair.waitUntilWatchOSSettles()
            let id = try pair.confirmedPhoneLedRun()
            try pair.killWatchApp()
            pair.killPhone()
            try pair.startPhone()
            #expect(try pair.stopPhoneRun()["id"] == .string(id))
            pair.noteFinishedRun(id)
            // The user opens the watch app at last (it is launched already if watch-os recovered it).
            _ = try pair.watchOSCall(["app", "open"])
            try pair.waitUntil("the watch no longer runs the phone's run", timeout: 30) { try pair.watchRun(["status"])["state"] == .string("idle") }
            if rule == "volatile" {
                try pair.waitUntil("both devices saved the run", timeout: 15) { try pair.healthCounts(id) == (1, 1) }
                let report = try pair.check()
                #expect(report.health.duplicated == [id], "\(report.violations)")
                return
            }
            try pair.waitUntil("the watch's save is reported to the phone", timeout: 15) {
                try pair.status("phone")["healthDecisionsPending"] == .integer(0)
            }
            try pair.expectClean(stored: 1)
            #expect(try pair.healthCounts(id) == (0, 1), "saved by the watch, whose session recorded it")
        }
    }
}
