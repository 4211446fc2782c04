import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The files of a home, taken away under the daemons or while they are stopped, through the real
/// binaries: a store emptied or removed is refused (never silently started afresh), a store unlinked
/// under a running phone is never acknowledged from again, the lock holds without its file, and a
/// removed socket is bound again. Every test that moves flights ends with the invariant checker.
@Suite struct HomeIntegrityTests {
    /// Starts a daemon that is expected to refuse to start: its result, or nil if it was still running
    /// after `timeout` seconds (it was then killed) — that is, it did not refuse.
    func startExpectingRefusal(_ binary: String, home: String, timeout: Double = 20) throws -> CommandResult? {
        try RunningTool(["--home", home], binary: binary).wait(timeout: timeout)
    }

    func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    /// The watch holds queued runs and both sides hold the pairing; its store (or the phone's) is
    /// truncated to zero bytes, or removed, while stopped. The daemon refuses with one line and leaves
    /// the file as it is; once the store is back, every run arrives. (Before: the zero-byte file was
    /// taken for a new store — the queued runs vanished and both sides forgot the pairing.)
    @Test(arguments: ["watch", "phone"], ["truncated", "removed"])
    func anEmptiedStoreIsRefusedNotStartedAfresh(device: String, damage: String) throws {
        try withRunningPair(tag: "empty", phoneFirst: true) { pair in
            try pair.record(20)
            try pair.waitUntilDrained()
            pair.killPhone(SIGTERM)
            try pair.record(30)  // queued on the watch: the phone is down
            pair.killWatch(SIGTERM)
            let home = device == "phone" ? pair.phoneHome : pair.watchHome
            let store = home + "/store.sqlite"
            let backup = pair.root + "/backup.sqlite"
            try FileManager.default.copyItem(atPath: store, toPath: backup)
            if damage == "truncated" {
                #expect(truncate(store, 0) == 0)
            } else {
                try FileManager.default.removeItem(atPath: store)
            }

            let binary = device == "phone" ? "phone-daemon" : "watch-agent"
            let refused = try #require(try startExpectingRefusal(binary, home: home), "\(binary) started on a \(damage) store")
            #expect(refused.status == 1)
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains(damage == "truncated" ? "is empty (0 bytes)" : "is missing"))
            #expect(refused.stderr.contains("was initialised"))
            // Left as it was: still empty (or still missing), no log created beside it.
            #expect(fileSize(store) == (damage == "truncated" ? 0 : nil))
            #expect(fileSize(store + "-wal") == nil)

            // The store comes back from its copy: nothing was lost.
            try? FileManager.default.removeItem(atPath: store)
            try FileManager.default.copyItem(atPath: backup, toPath: store)
            try pair.startWatch()
            try pair.startPhone()
            try pair.expectDrainedAndClean(stored: 50)
        }
    }

    /// The phone's store is unlinked while the phone runs and the watch is linked: the phone says so,
    /// exits 1, and acknowledges nothing recorded after it (those runs stay queued on the watch). With
    /// the store restored from a copy taken before, every run is stored exactly once.
    @Test func aStoreUnlinkedUnderTheRunningPhoneIsNeverAcknowledgedFrom() throws {
        try withRunningPair(tag: "unlink", phoneFirst: true) { pair in
            try pair.record(30)
            try pair.waitUntilDrained()
            // A consistent copy: the phone stopped cleanly has no write-ahead log.
            #expect(pair.phone!.stop() == 0)
            let store = pair.phoneHome + "/store.sqlite"
            let backup = pair.root + "/backup.sqlite"
            try FileManager.default.copyItem(atPath: store, toPath: backup)
            try pair.startPhone()
            try pair.waitUntil("the watch is linked") { try pair.status("watch")["reachable"] == .bool(true) }

            #expect(unlink(store) == 0)
            try pair.record(40)
            #expect(pair.phone!.waitForExit(timeout: 20), "the phone kept running on an unlinked store")
            #expect(pair.phone!.stop() == 1)
            #expect(pair.phone!.terminationSignal == nil)
            try waitForLogLine(pair, pair.phoneLog, "event=store.unlinked", "stopped acknowledging")
            #expect(try pair.outstandingTransfers() == 40, "transfers were acknowledged from an unlinked store")

            for leftover in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + leftover) }
            try FileManager.default.copyItem(atPath: backup, toPath: store)
            try pair.startPhone()
            try pair.expectDrainedAndClean(stored: 70)
        }
    }

    /// `HOME/lock` removed under a running phone: a second phone-daemon is still refused (the lock is on
    /// the directory), the pid file comes back, and the first one serves on.
    @Test func removingTheLockFileDoesNotLetASecondDaemonIn() throws {
        try withRunningPair(tag: "lock", phoneFirst: true) { pair in
            try pair.record(10)
            try FileManager.default.removeItem(atPath: pair.phoneHome + "/lock")
            let second = try #require(try startExpectingRefusal("phone-daemon", home: pair.phoneHome), "a second phone-daemon started")
            #expect(second.status == 1)
            #expect(second.stderr.contains("is already served by"))
            #expect(pair.phone!.isRunning)
            try waitForLogLine(pair, pair.phoneLog, "event=home.lock-file-restored")
            #expect(FileManager.default.fileExists(atPath: pair.phoneHome + "/lock"))
            try pair.record(10)
            try pair.expectDrainedAndClean(stored: 20)
        }
    }

    /// `control.sock` and `link.sock` removed under a running phone: both are bound again, the CLI
    /// reaches the phone, and a watch that must connect afresh links and delivers.
    @Test func removedSocketsAreBoundAgain() throws {
        try withRunningPair(tag: "sock", phoneFirst: true) { pair in
            try pair.record(10)
            try pair.waitUntilDrained()
            try FileManager.default.removeItem(atPath: pair.phoneHome + "/control.sock")
            try FileManager.default.removeItem(atPath: pair.phoneHome + "/link.sock")
            try waitForLogLine(pair, pair.phoneLog, "event=control.socket-rebound")
            try waitForLogLine(pair, pair.phoneLog, "event=link.socket-rebound")
            #expect(try pair.status("phone")["activationState"] == .string("activated"))
            pair.killWatch()
            try pair.startWatch()
            try pair.record(10)
            try pair.waitUntilDrained(timeout: 30)
            #expect(pair.phone!.isRunning)
            try pair.expectClean(stored: 20)
        }
    }

    /// The full health check runs only when the store cannot vouch for itself: skipped after a clean
    /// stop, run after a SIGKILL and after anything touched the store while the phone was stopped.
    @Test func theFullCheckRunsOnlyWhenTheStoreCannotVouchForItself() throws {
        try withRunningPair(tag: "seal", phoneFirst: true) { pair in
            try pair.record(20)
            try pair.waitUntilDrained()
            func lastCheck() -> String {
                logText(pair.phoneLog).split(separator: "\n").last {
                    $0.contains("event=startup.store-trusted") || $0.contains("event=startup.store-checked")
                        || $0.contains("event=startup.store-check-deferred")
                }
                .map(String.init) ?? ""
            }
            #expect(pair.phone!.stop() == 0)
            try pair.startPhone()
            #expect(lastCheck().contains("event=startup.store-trusted"), "\(lastCheck())")
            // After a SIGKILL the check is owed, and runs once the phone is ready, off the critical path.
            func checksPassed() -> Int { logText(pair.phoneLog).components(separatedBy: "event=store.checked check=quick_check result=ok").count - 1 }
            let passedBefore = checksPassed()
            pair.killPhone()
            try pair.startPhone()
            #expect(lastCheck().contains("event=startup.store-check-deferred"), "\(lastCheck())")
            #expect(lastCheck().contains("no clean shutdown recorded"))
            try pair.waitUntil("the owed check passes") { checksPassed() > passedBefore }
            // Checked, it is vouched for: a clean stop seals it, and the next start trusts it.
            #expect(pair.phone!.stop() == 0)
            try pair.startPhone()
            #expect(lastCheck().contains("event=startup.store-trusted"), "\(lastCheck())")
            #expect(pair.phone!.stop() == 0)
            // Touched while stopped (its times change; its bytes do not): evidence, so checked before start-up.
            try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: pair.phoneHome + "/store.sqlite")
            try pair.startPhone()
            #expect(lastCheck().contains("event=startup.store-checked"), "\(lastCheck())")
            #expect(lastCheck().contains("changed after the daemon stopped"))
            try pair.record(10)
            try pair.expectDrainedAndClean(stored: 30)
        }
    }

    /// A store damaged after a crash (pages scribbled over while the killed phone was down): start-up no
    /// longer pays for the full check, so the phone starts — and the check it owes, run in the
    /// background, finds the damage. From that moment nothing is committed, checkpointed into the file
    /// or acknowledged: the phone records the finding (`HOME/store-damaged`) and exits 1, the store file
    /// is byte for byte what was found, the next start checks first and refuses it, and the watch keeps
    /// every run recorded since.
    @Test func aStoreDamagedAfterACrashIsFoundInTheBackgroundAndWrittenNoMore() throws {
        try withRunningPair(tag: "dmg", phoneFirst: true) { pair in
            try pair.record(300)
            try pair.waitUntilDrained()
            // A clean stop first copies the drain's log into the file; then a few runs leave a log too
            // short for the checkpoint thread but not empty: what reaches the file after the relaunch
            // could only come from closing the store — after the damage was found.
            #expect(pair.phone!.stop() == 0)
            try pair.startPhone()
            try pair.record(20)
            try pair.waitUntilDrained()
            pair.killPhone()
            #expect((try? FileManager.default.attributesOfItem(atPath: pair.phoneHome + "/store.sqlite-wal")[.size] as? Int) ?? 0 > 0)
            let path = pair.phoneHome + "/store.sqlite"
            let scribbled = try scribbleOverTheMiddle(of: path)
            try pair.startPhone()
            #expect(pair.phone!.waitForExit(timeout: 60), "the phone kept running on a damaged store")
            #expect(pair.phone!.stop() == 1)
            try waitForLogLine(pair, pair.phoneLog, "event=store.damaged")
            #expect(FileManager.default.fileExists(atPath: pair.phoneHome + "/store-damaged"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == scribbled, "written into after the damage was found")
            let refused = try runTool(["--home", pair.phoneHome], binary: "phone-daemon")
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("is damaged"), "\(refused.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == scribbled)
            try pair.record(20)
            #expect(try pair.outstandingTransfers() == 20, "nothing acknowledged from the damaged store")
        }
    }

    /// A regular file renamed over `control.sock` under the running phone: the phone cannot listen there
    /// and will not remove someone's file, so it exits 1 saying so, rather than run deaf; the file is
    /// left as it was. With it moved away, the phone starts again and every flight arrives.
    @Test func aSocketReplacedByAFileMakesThePhoneExitLoudly() throws {
        try withRunningPair(tag: "sockfile", phoneFirst: true) { pair in
            try pair.record(10)
            try pair.waitUntilDrained()
            let socket = pair.phoneHome + "/control.sock"
            let file = pair.root + "/notes.txt"
            try Data("mine".utf8).write(to: URL(fileURLWithPath: file))
            #expect(rename(file, socket) == 0)
            #expect(pair.phone!.waitForExit(timeout: 20), "the phone kept running without its control socket")
            #expect(pair.phone!.stop() == 1)
            try waitForLogLine(pair, pair.phoneLog, "event=home.socket-lost")
            #expect(try Data(contentsOf: URL(fileURLWithPath: socket)) == Data("mine".utf8))
            try FileManager.default.removeItem(atPath: socket)
            try pair.record(10)
            try pair.startPhone()
            try pair.expectDrainedAndClean(stored: 20)
        }
    }
}
