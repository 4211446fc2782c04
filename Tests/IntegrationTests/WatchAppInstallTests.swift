import Foundation
import Glibc
import JSONText
import PairTesting
import Testing

/// The watch app deleted and installed again under watch-os, through the real binaries (issue 25 item 4):
/// an uninstall stops the app and deletes its data — its container, what it received, what the watch
/// had queued for the phone — and tells the phone (`isWatchAppInstalled`, `sessionWatchStateDidChange`,
/// 7006 for new transfers); `install` brings it back empty; both with the app not running.
@Suite(.serialized) struct WatchAppInstallTests {
    func run(_ arguments: [String]) throws -> CommandResult { try runTool(arguments) }

    func write(_ text: String, to path: String) throws -> String {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aWatchAppUninstallDeletesItsDataAndInstallBringsItBackEmpty() throws {
        try withRunningPair(tag: "winstall", watch: nil) { pair in
            try pair.startWatchOS(["--background-budget-ms", "1500"])
            // The phone sends the watch app a dictionary and a file: watch-os launches it, it keeps both.
            let note = try write(#"{"note": "before the deletion"}"#, to: pair.root + "/note.json")
            #expect(try run(["phone", "transfer-userinfo", "--json-file", note, "--home", pair.phoneHome]).status == 0)
            let route = try write(String(repeating: "trkpt ", count: 20_000), to: pair.root + "/route.gpx")
            let sent = try run(["phone", "transfer-file", route, "--home", pair.phoneHome])
            #expect(sent.status == 0, "\(sent.stderr)")
            try pair.waitUntil("the watch app took both", timeout: 60) {
                let phone = try pair.status("phone")
                return phone["outstandingUserInfoTransfers"]?.intValue == 0 && phone["outstandingFileTransfers"]?.intValue == 0
            }
            // The phone away: three runs recorded on the watch stay queued there.
            pair.killPhone()
            let queued = try pair.record(3)
            let before = try pair.status("watch")
            #expect(before["outstandingUserInfoTransfers"]?.intValue == 3)
            #expect(before["inbox"]?["receivedUserInfo"]?.intValue == 1 && before["inbox"]?["receivedFiles"]?.intValue == 1, "\(before)")
            let container = try #require(before["container"]?["path"]?.stringValue)
            #expect(FileManager.default.fileExists(atPath: container))

            // Deleted while it runs: stopped, its container and its queue gone.
            let uninstalled = try run(["watch", "app", "uninstall", "--home", pair.watchHome])
            #expect(uninstalled.status == 0, "\(uninstalled.stderr)")
            let os = try pair.watchOSCall(["os", "status"])
            #expect(os["appInstalled"] == .bool(false) && os["appState"] == .string("not running"), "\(os)")
            #expect(!FileManager.default.fileExists(atPath: pair.watchHome + "/apps"), "the watch app's container is gone")
            let gone = try pair.status("watch")
            #expect(gone["watchAppInstalled"] == .bool(false) && gone["outstandingUserInfoTransfers"]?.intValue == 0, "\(gone)")
            let open = try run(["watch", "app", "open", "--home", pair.watchHome])
            #expect(open.status == 1 && open.stderr.contains("not installed"), "\(open.stderr)")
            let again = try run(["watch", "app", "uninstall", "--home", pair.watchHome])
            #expect(again.status == 1 && again.stderr.contains("not installed"), "\(again.stderr)")

            // The phone comes back: watch-os's hello tells it; its new transfers fail with 7006.
            try pair.startPhone()
            try pair.waitUntil("the phone knows the watch app is gone") { try pair.status("phone")["watchAppInstalled"] == .bool(false) }
            let trace = try run(["phone", "events", "--home", pair.phoneHome, "--json"]).stdout
            #expect(trace.contains("sessionWatchStateDidChange"))
            let refused = try run(["phone", "transfer-userinfo", "--json-file", note, "--home", pair.phoneHome])
            #expect(refused.status == 1 && refused.stderr.contains("7006 watchAppNotInstalled"), "\(refused.stderr)")

            // Installed again, with the app not running: back, and empty.
            let installed = try run(["watch", "app", "install", "--home", pair.watchHome])
            #expect(installed.status == 0, "\(installed.stderr)")
            try pair.waitUntil("the phone knows the watch app is back") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
            _ = try pair.watchOSCall(["app", "open"])
            let fresh = try pair.status("watch")
            #expect(fresh["inbox"]?["receivedUserInfo"]?.intValue == 0 && fresh["inbox"]?["receivedFiles"]?.intValue == 0, "\(fresh)")
            #expect(try run(["watch", "received", "--home", pair.watchHome, "--json"]).stdout.contains("before the deletion") == false)
            #expect(try run(["watch", "files", "--home", pair.watchHome, "--json"]).stdout.contains("route.gpx") == false)

            // The runs the deletion took are the user's doing, not a loss, and never arrive; new ones do.
            pair.noteDeleted(Set(queued))
            try pair.record(2)
            try pair.expectDrainedAndClean(stored: 2)
        }
    }
}
