import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayPairTesting
import Testing

/// Issue 41: an app writes only inside its container, from its first instruction. Both OSes started by
/// `runway up` with apps of one's own (`--phone-app`, `--watch-app`, their bundle ids), apps that write
/// to Documents before they touch their session: everything lands in the two device homes, nothing in
/// `$HOME` (an empty directory) nor in the passwd entry's home, where Foundation on Linux puts Documents
/// when `user-dirs.dirs` is missing.
@Suite struct ContainerTests {
    static let phoneBundle = "com.example.Cups"
    static let watchBundle = "com.example.Cups.watchkitapp"

    /// Every entry under `path` (relative), with its modification time: what a run must leave as it was.
    static func listing(_ path: String) -> [String: Date] {
        var entries: [String: Date] = [:]
        guard let walker = FileManager.default.enumerator(atPath: path) else { return entries }
        while let name = walker.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
            entries[name] = attributes?[.modificationDate] as? Date ?? .distantPast
        }
        return entries
    }

    static var passwdHome: String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/nonexistent" }
        return String(cString: directory)
    }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func appsOfYourOwnUnderUpWriteOnlyInTheirContainers() throws {
        try withPair(tag: "ctr") { pair in
            let emptyHome = pair.root + "/home", temporary = pair.root + "/tmp"
            for directory in [emptyHome, temporary] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            let environment = ["HOME": emptyHome, "TMPDIR": temporary, "RUNWAY_STATE_DIR": pair.root + "/state"]
            func runway(_ arguments: [String]) throws -> CommandResult { try runTool(arguments, environment: environment) }
            let passwdDocuments = Self.passwdHome + "/Documents"
            let documentsBefore = Self.listing(passwdDocuments)
            let documentsExisted = FileManager.default.fileExists(atPath: passwdDocuments)
            let documentsTime = (try? FileManager.default.attributesOfItem(atPath: passwdDocuments))?[.modificationDate] as? Date

            #expect(try runway(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome]).status == 0)
            defer { _ = try? runway(["down"]) }
            let probe = YourOwnAppTests.probe
            let up = try runway([
                "up", "--phone-app", probe, "--phone-bundle-id", Self.phoneBundle, "--watch-app", probe, "--watch-bundle-id", Self.watchBundle,
                "--watch-arg=--send", "--watch-arg=40", "--json",
            ])
            #expect(up.status == 0, "\(up.stderr)")
            let started = try JSONValue(parsing: up.stdout)
            #expect(started["phone"]?["binary"]?.stringValue == "phone-os")
            #expect(started["watch"]?["binary"]?.stringValue == "watch-os")
            let phoneDocuments = pair.phoneHome + "/apps/\(Self.phoneBundle)/Documents"
            let watchDocuments = pair.watchHome + "/apps/\(Self.watchBundle)/Documents"
            // Both containers, and the file that names Documents in them, exist before any launch.
            for container in [pair.phoneHome + "/apps/\(Self.phoneBundle)", pair.watchHome + "/apps/\(Self.watchBundle)"] {
                #expect(FileManager.default.fileExists(atPath: container + "/Library/Preferences/user-dirs.dirs"), "\(container)")
            }

            // The user opens the watch app: it notes its launch, activates and sends 40 userInfo; phone-os
            // launches the phone's app in the background for them.
            let opened = try runway(["watch", "app", "open"])
            #expect(opened.status == 0, "\(opened.stderr)")
            let sent = (1...40).map { "probe-\($0)" }
            try pair.waitUntil("the phone's app saved all 40") { Set(Self.lines(phoneDocuments + "/received.log")).count == 40 }
            let report = DeliveryReport.check(sent: sent, received: Self.lines(phoneDocuments + "/received.log"))
            #expect(report.isClean, "\(report)")
            let phoneLaunches = Self.lines(phoneDocuments + "/launches.log"), watchLaunches = Self.lines(watchDocuments + "/launches.log")
            #expect(phoneLaunches.first?.hasSuffix(" background") == true, "\(phoneLaunches)")
            #expect(watchLaunches.first?.hasSuffix(" foreground") == true, "\(watchLaunches)")

            // Deleted and installed again, the watch app's container comes back empty before its next launch.
            #expect(try runway(["watch", "app", "uninstall"]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: watchDocuments))
            #expect(try runway(["watch", "app", "install"]).status == 0)
            #expect(try runway(["watch", "app", "open"]).status == 0)
            try pair.waitUntil("the watch app noted its launch again") { Self.lines(watchDocuments + "/launches.log").count == 1 }

            #expect(try runway(["down"]).status == 0)
            // Nothing outside the two homes and TMPDIR.
            #expect(Self.listing(emptyHome).isEmpty, "written in $HOME: \(Self.listing(emptyHome).keys.sorted())")
            #expect(FileManager.default.fileExists(atPath: passwdDocuments) == documentsExisted, "\(passwdDocuments) created")
            let documentsAfter = Self.listing(passwdDocuments)
            #expect(documentsAfter == documentsBefore, "written in \(passwdDocuments): \(Set(documentsAfter.keys).subtracting(documentsBefore.keys).sorted())")
            #expect((try? FileManager.default.attributesOfItem(atPath: passwdDocuments))?[.modificationDate] as? Date == documentsTime)
            for stray in ["/launches.log", "/received.log", "/sent.done"] {
                #expect(!FileManager.default.fileExists(atPath: passwdDocuments + stray))
                #expect(!FileManager.default.fileExists(atPath: emptyHome + "/Documents" + stray))
            }
        }
    }

    /// The documented older form, `--watch-arg=--app --watch-arg=PATH` (watch-os launches watch-agent,
    /// which becomes the app): the app's own container is made before it runs, not RunWay's.
    @Test func anAppRunByWatchAgentUnderWatchOSWritesInItsOwnContainer() throws {
        try withPair(tag: "ctr-agent") { pair in
            let emptyHome = pair.root + "/home"
            try FileManager.default.createDirectory(atPath: emptyHome, withIntermediateDirectories: true)
            let environment = ["HOME": emptyHome, "RUNWAY_STATE_DIR": pair.root + "/state"]
            func runway(_ arguments: [String]) throws -> CommandResult { try runTool(arguments, environment: environment) }
            let passwdDocuments = Self.passwdHome + "/Documents"
            let documentsBefore = Self.listing(passwdDocuments)
            #expect(try runway(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome]).status == 0)
            defer { _ = try? runway(["down"]) }
            let up = try runway(["up", "--watch-arg=--app", "--watch-arg=\(YourOwnAppTests.probe)"])
            #expect(up.status == 0, "\(up.stderr)")
            #expect(try runway(["watch", "app", "open"]).status == 0)
            let launches = pair.watchHome + "/apps/probe-app/Documents/launches.log"
            try pair.waitUntil("the probe noted its launch in its container") { !Self.lines(launches).isEmpty }
            #expect(try runway(["down"]).status == 0)
            #expect(Self.listing(emptyHome).isEmpty, "written in $HOME: \(Self.listing(emptyHome).keys.sorted())")
            #expect(Self.listing(passwdDocuments) == documentsBefore, "written in \(passwdDocuments)")
        }
    }

    /// `--watch-bundle-id` and `--phone-bundle-id` that cannot name a container, or an app with
    /// `--no-os`: one line, exit 2, nothing started.
    @Test func badBundleIDsAndAppsWithoutTheOSAreExitTwo() throws {
        try withPair(tag: "ctr-bad") { pair in
            let state = ["RUNWAY_STATE_DIR": pair.root + "/state"]
            #expect(try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome], environment: state).status == 0)
            defer { _ = try? runTool(["down"], environment: state) }
            for arguments in [
                ["--watch-app", YourOwnAppTests.probe, "--watch-bundle-id", "a/b"], ["--phone-bundle-id", ".."],
                ["--no-os", "--watch-app", YourOwnAppTests.probe], ["--watch-app", pair.root + "/none"],
            ] {
                let result = try runTool(["up"] + arguments, environment: state)
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: pair.watchHome + "/os.sock"), "nothing started")
        }
    }
}
