import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The app's life under `phone-os` when something goes wrong: the OS killed under it, an app left behind
/// by an earlier OS. Every test through the real binaries, with the invariant checker at the end.
@Suite(.serialized) struct PhoneOSLifeTests {
    func osStatus(_ pair: SimulatedPair) throws -> JSONValue { try pair.phoneOSCall(["os", "status"]) }

    /// Whether `pid` has exited: no such process, or a zombie nobody has reaped yet (an orphan's new
    /// parent may take its time).
    static func isGone(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        // Read to the end (a /proc file says it is 0 bytes long).
        guard let data = FileHandle(forReadingAtPath: "/proc/\(pid)/stat")?.readDataToEndOfFile() else { return true }
        let stat = String(decoding: data, as: UTF8.self)
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// SIGKILL of phone-os while its app drains a backlog: the app dies with it (it never outlives its
    /// OS, so it takes no flight and runs past no budget), a new phone-os starts on the home at once and
    /// launches the app again, and the backlog is stored exactly once. Before the app was tied to its
    /// OS it kept running for good, and the new phone-os refused the home ("served by a phone-daemon
    /// started by hand").
    @Test func anAppDiesWithItsOSAndTheNextOSTakesOver() throws {
        try withPair(tag: "os-kill") { pair in
            pair.watchArguments = ["--link-rate", "400"]
            try pair.startWatch()
            try pair.record(1500)
            try pair.startPhoneOS(["--background-budget-ms", "600000"])
            try pair.waitUntil("the app drains in the background") {
                try osStatus(pair)["appState"]?.stringValue == "background" && pair.outstandingTransfers() < 1500
            }
            let appPID = pid_t(try osStatus(pair)["appPid"]?.intValue ?? 0)
            #expect(appPID > 0)
            defer { if !Self.isGone(appPID) { kill(appPID, SIGKILL) } }  // the app this test's phone-os launched
            pair.phoneOS?.kill(SIGKILL)
            try pair.waitUntil("the app is gone with its OS", timeout: 10) { Self.isGone(appPID) }
            try pair.startPhoneOS(["--background-budget-ms", "600000"])
            try pair.waitUntilDrained(timeout: 300)
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the app answers") { (try? pair.status("phone")) != nil }
            try pair.expectDrainedAndClean(stored: 1500, "after phone-os was SIGKILLed")
        }
    }

    /// An app launched by an earlier phone-os of this home that still holds the home (one from before
    /// apps were tied to their OS: here a phone-daemon whose NOTIFY_SOCKET is the home's os-notify.sock,
    /// as phone-os sets it) is reclaimed by the next phone-os, which then serves the home; a phone-daemon
    /// started by hand is still refused (`PhoneOSTests.conflictsAndBadBudgetsAreOneLineAndChangeNothing`).
    @Test func theNextOSReclaimsAnOrphanOfItsHome() throws {
        try withPair(tag: "os-orph") { pair in
            try pair.startPhone(environment: ["NOTIFY_SOCKET": pair.phoneHome + "/os-notify.sock"])
            let orphan = try #require(pair.phone?.pid)
            try pair.startWatch()
            try pair.record(40)
            try pair.waitUntilDrained()
            try pair.startPhoneOS()
            #expect(pair.phone?.waitForExit(timeout: 10) == true, "the orphan is reclaimed")
            #expect(Self.isGone(orphan))
            let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
            #expect(log.contains("event=os.orphan-reclaimed pid=\(orphan)"))
            try pair.record(30)
            try pair.waitUntilDrained()
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the app answers") { (try? pair.status("phone")) != nil }
            try pair.expectDrainedAndClean(stored: 70, "after the orphan was reclaimed")
        }
    }

    /// The race the kernel's parent-death signal leaves open: phone-os dies after launching the app but
    /// before the app asked to die with it. The app checks that its parent is still the phone-os named in
    /// RUNWAY_OS_PID and, if not, stops with one line before it touches the home.
    @Test func anAppWhoseOSIsAlreadyGoneDoesNotStart() throws {
        let scratch = makeScratchDirectory("os-gone")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let home = scratch + "/phone"
        let notMyParent = getppid()  // alive, and not the parent of the app this test starts
        let result = try runTool(["--home", home], binary: "phone-daemon", environment: ["RUNWAY_OS_PID": "\(notMyParent)"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the OS that launched this app (process \(notMyParent)) is gone"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home), "the home is not even created")
    }
}
