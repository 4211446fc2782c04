import Foundation
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Issue 53 item 4: an app that is not RunWay's appears in the CLI as itself — `status` and `top` name
/// its bundle id and its process, with no RunWay rows ("save path ?", "stored ? flights"); `runway phone
/// app kill` kills it as a crash does and prints the state after; `runway help COMMAND` and `-v` are
/// understood; `DevicePair.killWatchApp()` kills the watch's app.
@Suite struct YourAppInTheCLITests {
    func run(_ arguments: [String]) throws -> CommandResult { try runTool(arguments) }

    @Test func anAppOfYourOwnIsItselfInStatusTopAndKill() throws {
        try withPair(tag: "own-cli") { pair in
            try pair.startPhoneOS(["--app", YourOwnAppTests.probe, "--background-budget-ms", "60000"])
            try pair.startWatch()
            let open = try run(["phone", "app", "open", "--home", pair.phoneHome])
            #expect(open.status == 0, "\(open.stderr)")
            let pid = try #require(try pair.phoneOSCall(["os", "status"])["appPid"]?.intValue)
            let status = try run(["phone", "status", "--home", pair.phoneHome])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdout.contains("probe-app, pid \(pid)"), "\(status.stdout)")
            #expect(!status.stdout.contains("flights") && !status.stdout.contains("save path"), "\(status.stdout)")
            let top = try run(["top", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--once"])
            #expect(top.status == 0, "\(top.stderr)")
            #expect(top.stdout.contains("probe-app    up, pid \(pid)"), "\(top.stdout)")
            #expect(top.stdout.contains("app          probe-app, pid \(pid)"), "\(top.stdout)")
            #expect(!top.stdout.contains("save path") && !top.stdout.contains("flights"), "\(top.stdout)")
            // Killed as a crash does: the state printed is the one after it.
            let kill = try run(["phone", "app", "kill", "--home", pair.phoneHome])
            #expect(kill.status == 0, "\(kill.stderr)")
            #expect(kill.stdout.contains("not running"), "\(kill.stdout)")
            #expect(try pair.phoneOSCall(["os", "status"])["appState"]?.stringValue == "not running")
        }
    }

    /// `runway help phone app kill` is `runway phone app kill --help`; `runway help phone` the phone's
    /// commands; `-v` is `--version` (each was `unknown command`).
    @Test func helpCommandAndDashV() throws {
        let help = try run(["help", "phone", "app", "kill"])
        #expect(help.status == 0, "\(help.stderr)")
        let dashHelp = try run(["phone", "app", "kill", "--help"])
        #expect(help.stdout == dashHelp.stdout)
        let group = try run(["help", "phone"])
        #expect(group.status == 0 && group.stdout.contains("runway phone app kill"), "\(group.stdout)\(group.stderr)")
        let version = try run(["-v"]), long = try run(["--version"])
        #expect(version.status == 0 && version.stdout == long.stdout, "\(version.stderr)")
    }

    @Test func devicePairKillsTheWatchsAppAndRestartsIt() throws {
        let pair = try DevicePair(tag: "kill-watch")
        defer { pair.stop() }
        let ids = try pair.record(3)
        try pair.killWatchApp()
        let status = try run(["watch", "status", "--home", pair.watchHome])
        #expect(status.status == 1, "the watch's app is gone: \(status.stdout)")
        try pair.restartWatch()
        try pair.waitUntilDelivered()
        try pair.waitUntil("the phone stored them") { (try? run(["phone", "logbook", "--home", pair.phoneHome, "--json"]))?.stdout.contains(ids[2]) == true }
    }
}
