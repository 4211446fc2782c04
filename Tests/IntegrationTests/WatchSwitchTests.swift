import Connectivity
import Control
import Foundation
import Glibc
import JSONText
import PairTesting
import Storage
import Testing

/// Several watches per phone, and Apple's switch between them (issue 25 item 6), through the real
/// binaries: the old watch's pending transfers are delivered before `sessionDidDeactivate`, each watch's
/// flights arrive once, a transfer queued for one watch goes to that watch only, and under phone-os the
/// switch is made while the app does not run.
@Suite(.serialized) struct WatchSwitchTests {
    func run(_ arguments: [String]) throws -> CommandResult { try runTool(arguments) }

    /// A second watch paired with the pair's phone (added: the first stays active), and its agent.
    func addWatch(_ pair: SimulatedPair, start: Bool = true) throws -> (home: String, agent: DaemonProcess?) {
        let home = pair.root + "/watch2"
        let paired = try run(["pair", "--phone", pair.phoneHome, "--watch", home, "--json"])
        #expect(paired.status == 0, "\(paired.stderr)")
        #expect(try JSONValue(parsing: paired.stdout)["active"] == .bool(false), "a watch added does not take over")
        let agent = start ? try DaemonProcess("watch-agent", ["--home", home], logPath: pair.root + "/watch2.log") : nil
        return (home, agent)
    }

    func events(_ home: String, _ device: String = "phone") throws -> [JSONValue] {
        try run([device, "events", "--home", home, "--limit", "1024", "--json"]).stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
    }

    func record(_ home: String, _ count: Int) throws -> [String] {
        let result = try run(["watch", "record", "--home", home, "--count", String(count), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONValue(parsing: result.stdout).arrayValue?.compactMap(\.stringValue) ?? []
    }

    func switchWatch(_ pair: SimulatedPair, to watch: String) throws -> JSONValue {
        let result = try run(["phone", "switch-watch", watch, "--home", pair.phoneHome, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONValue(parsing: result.stdout)
    }

    /// What the phone delivers while inactive is acknowledged to the old watch before the link closes.
    /// Watch 1 holds its reading through the switch, so the acknowledgements, the phone's closing error
    /// frame and the hang-up reach it in one read, as a busy watch (not scheduled while the phone closes)
    /// reads them: an acknowledgement must not be dropped for the error that follows it.
    @Test func aSwitchMidDrainDeliversTheOldWatchsPendingTransfersBeforeDeactivating() throws {
        try withRunningPair(tag: "switch", watch: ["--enable-test-commands"], phone: ["--enable-test-commands"]) { pair in
            let (home2, agent2) = try addWatch(pair)
            defer { agent2?.kill() }
            try pair.record(30)
            try pair.waitUntilDrained()
            // Watch 2 records while watch 1 is active: the phone turns it away (7007), it keeps them.
            let second = try record(home2, 5)
            pair.noteRecorded(second, onWatch: home2)
            try pair.waitUntil("watch 2 is turned away as not the active watch", timeout: 30) {
                logText(pair.root + "/watch2.log").contains("code=7007")
            }
            #expect(try pair.storedCount() == 30)

            // Mid-drain: the phone stops reading watch 1's link, watch 1 sends into it.
            let client = try ControlClient(home: DeviceHome(path: pair.phoneHome, role: .phone))
            _ = try client.call(ControlRequest(command: "receive-hold", arguments: ["state": .string("on")]))
            try pair.record(200)
            try pair.waitUntil("watch 1 has transfers on the wire") { (try pair.status("watch")["outbox"]?["inFlight"]?.intValue ?? 0) > 0 }
            let watchClient = try ControlClient(home: DeviceHome(path: pair.watchHome, role: .watch))
            _ = try watchClient.call(ControlRequest(command: "receive-hold", arguments: ["state": .string("on")]))
            let switched = try switchWatch(pair, to: home2)
            #expect(switched["switched"] == .bool(true))

            // Watch 2's five arrive; watch 1 is turned away until it is active again.
            let trace = try events(pair.phoneHome)
            let inactive = try #require(trace.firstIndex { $0["call"] == .string("sessionDidBecomeInactive") })
            let deactivated = try #require(trace.firstIndex { $0["call"] == .string("sessionDidDeactivate") })
            #expect(inactive < deactivated)
            let pending = trace[inactive..<deactivated].filter { $0["call"] == .string("didReceiveUserInfo") }.count
            #expect(pending > 0, "what watch 1 had sent is delivered while inactive, before sessionDidDeactivate")
            #expect(
                trace[deactivated...].contains { $0["call"] == .string("activationDidComplete") && $0["state"] == .string("activated") },
                "RunWay's phone app activates again after sessionDidDeactivate")
            try pair.waitUntil("watch 2's flights arrive") { try pair.storedCount() == 30 + pending + 5 }
            // What was delivered while inactive was acknowledged before the link closed: watch 1 lets go
            // of it and holds the rest, turned away (7007) until it is active again.
            try pair.waitUntil("watch 1 is turned away after the switch", timeout: 30) {
                logText(pair.watchLog).components(separatedBy: "code=7007").count > 1
            }
            let outstanding = try pair.outstandingTransfers()
            #expect(outstanding == 200 - pending, "watch 1 holds \(outstanding): the \(pending) delivered while inactive must be acknowledged")
            let status = try pair.status("phone")
            #expect(status["activeWatch"] == switched["activeWatch"])
            #expect(status["pairedWatches"]?.arrayValue?.count == 2)

            // Back to watch 1: the rest of its flights arrive, each once.
            #expect(try switchWatch(pair, to: pair.watchHome)["switched"] == .bool(true))
            try pair.expectDrainedAndClean(stored: 235)
            let secondStored = Set(try pair.logbookIDs()).intersection(second)
            #expect(secondStored.count == 5)
        }
    }

    @Test func aTransferQueuedForOneWatchGoesToThatWatchOnly() throws {
        try withRunningPair(tag: "switchq") { pair in
            let (home2, agent2) = try addWatch(pair)
            defer { agent2?.kill() }
            try pair.setLink(up: false)
            let file = pair.root + "/note.json"
            try Data(#"{"note":"for watch 1"}"#.utf8).write(to: URL(fileURLWithPath: file))
            let queued = try run(["phone", "transfer-userinfo", "--json-file", file, "--home", pair.phoneHome])
            #expect(queued.status == 0, "\(queued.stderr)")
            _ = try switchWatch(pair, to: home2)
            try pair.waitUntil("the phone talks to watch 2") { try pair.status("phone")["linked"] == .bool(true) }
            let phone = try pair.status("phone")
            #expect(phone["outstandingUserInfoTransfers"]?.intValue == 0, "watch 2's queue is its own")
            let watch1 = phone["pairedWatches"]?.arrayValue?.first { $0["active"] == .bool(false) }
            #expect(watch1?["queuedWhileInactive"]?.intValue == 1, "\(phone)")
            // Watch 2 records meanwhile: its flights arrive.
            let second = try record(home2, 3)
            pair.noteRecorded(second, onWatch: home2)
            try pair.waitUntil("watch 2's flights arrive") { try pair.storedCount() == 3 }
            func notes(_ home: String) throws -> Int {
                try events(home, "watch").filter { $0["call"] == .string("didReceiveUserInfo") && $0["keys"] == .array([.string("note")]) }.count
            }
            #expect(try notes(home2) == 0, "nothing of watch 1's is delivered to watch 2")

            try pair.setLink(up: true)
            _ = try switchWatch(pair, to: pair.watchHome)
            try pair.waitUntil("watch 1 receives what was queued for it") { try notes(pair.watchHome) == 1 }
            #expect(try notes(home2) == 0)
            try pair.expectDrainedAndClean(stored: 3)
        }
    }

    /// A file queued for watch 1 is set aside with its queue while watch 2 is active — across a SIGKILL of
    /// the phone, whose restart sweeps the file queue — and arrives on watch 1, whole, once it is back.
    @Test func aFileQueuedForTheOldWatchSurvivesTheSwitchAndARestart() throws {
        try withRunningPair(tag: "switchfile") { pair in
            let (home2, agent2) = try addWatch(pair)
            defer { agent2?.kill() }
            try pair.setLink(up: false)
            let path = pair.root + "/route.gpx"
            try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: path))
            try pair.transferFile(from: "phone", path)
            _ = try switchWatch(pair, to: home2)
            let second = try record(home2, 2)
            pair.noteRecorded(second, onWatch: home2)
            try pair.waitUntil("watch 2's flights arrive") { try pair.storedCount() == 2 }
            // The phone dies and comes back: watch 2 is still the active one, watch 1's file still queued.
            pair.killPhone()
            try pair.startPhone()
            let phone = try pair.status("phone")
            #expect(phone["activeWatch"] == (try switchWatch(pair, to: home2))["activeWatch"], "the switch is durable")
            #expect(phone["outstandingFileTransfers"]?.intValue == 0)
            #expect(phone["pairedWatches"]?.arrayValue?.first { $0["active"] == .bool(false) }?["queuedWhileInactive"]?.intValue == 1)
            #expect(try run(["watch", "files", "--home", home2, "--json"]).stdout.contains("route.gpx") == false)

            try pair.setLink(up: true)
            _ = try switchWatch(pair, to: pair.watchHome)
            try pair.waitUntil("the file reaches watch 1") {
                try pair.status("phone")["outstandingFileTransfers"]?.intValue == 0 && (try pair.keptFiles()).count == 1
            }
            #expect(try run(["watch", "files", "--home", home2, "--json"]).stdout.contains("route.gpx") == false, "nothing of watch 1's went to watch 2")
            try pair.expectDrainedAndClean(stored: 2)
        }
    }

    /// A phone home from before there could be several watches (its store without `connectivity.6`) opens
    /// with its one watch active; runway pair then records its home and adds a second.
    @Test func aHomeFromBeforeSeveralWatchesOpensWithItsWatchActive() throws {
        try withPair(tag: "switchmig") { pair in
            let database = try Database(path: pair.phoneHome + "/store.sqlite")
            try database.execute(
                """
                DROP TABLE cx_paired_watch; DROP TABLE cx_parked_outbox; DROP TABLE cx_parked_lane; DROP TABLE cx_parked_cancelled;
                DROP TABLE cx_parked_context; DROP TABLE cx_parked_state; DELETE FROM schema_migrations WHERE id = 'connectivity.6'
                """)
            database.close()
            try pair.startPhone()
            try pair.startWatch()
            try pair.record(3)
            try pair.waitUntilDrained()
            let status = try pair.status("phone")
            let watches = try #require(status["pairedWatches"]?.arrayValue)
            #expect(watches.count == 1 && watches[0]["active"] == .bool(true) && watches[0]["home"] == .string(""), "\(status)")
            #expect(status["activeWatch"] == watches[0]["deviceId"])
            // Paired again (the same pairing kept), its home is recorded; a second watch is added beside it.
            #expect(try run(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome]).stdout.hasPrefix("already paired"))
            let (home2, _) = try addWatch(pair, start: false)
            let again = try #require(try pair.status("phone")["pairedWatches"]?.arrayValue)
            #expect(again.compactMap { $0["home"]?.stringValue }.sorted() == [pair.watchHome, home2].sorted())
            try pair.record(2)
            try pair.expectDrainedAndClean(stored: 5)
        }
    }

    @Test func anUnknownWatchIsOneLineExit2AndTheActiveOneIsANoOp() throws {
        try withRunningPair(tag: "switchbad") { pair in
            let unknown = try run(["phone", "switch-watch", "no-such-watch", "--home", pair.phoneHome])
            #expect(unknown.status == 2)
            #expect(unknown.stderr.split(separator: "\n").count == 1 && unknown.stderr.contains("7005 deviceNotPaired"), "\(unknown.stderr)")
            let notAHome = pair.root + "/empty"
            try FileManager.default.createDirectory(atPath: notAHome, withIntermediateDirectories: true)
            let empty = try run(["phone", "switch-watch", notAHome, "--home", pair.phoneHome])
            #expect(empty.status == 2 && empty.stderr.contains("not a watch home"), "\(empty.stderr)")
            let same = try run(["phone", "switch-watch", pair.watchHome, "--home", pair.phoneHome])
            #expect(same.status == 0 && same.stdout.contains("already the active watch"), "\(same.stdout)")
            #expect(!(try events(pair.phoneHome)).contains { $0["call"] == .string("sessionDidBecomeInactive") }, "a no-op tells the app nothing")
            try pair.record(2)
            try pair.expectDrainedAndClean(stored: 2)
        }
    }

    /// Under phone-os the OS owns the choice: with the app not running it switches in the store, declines
    /// the inactive watch without launching the app for it, and launches the app for the active one.
    @Test func underPhoneOSTheSwitchWorksWithTheAppNotRunning() throws {
        try withPair(tag: "switchos") { pair in
            try pair.startPhoneOS(["--background-budget-ms", "1500"])
            try pair.startWatch()
            let (home2, agent2) = try addWatch(pair)
            defer { agent2?.kill() }
            try pair.record(2)
            try pair.waitUntilDrained()
            try pair.waitUntil("the app is reclaimed") { try pair.phoneOSCall(["os", "status"])["appState"] == .string("not running") }
            let switched = try switchWatch(pair, to: home2)
            #expect(switched["switched"] == .bool(true) && switched["by"]?.stringValue?.contains("phone-os") == true, "\(switched)")
            let status = try run(["phone", "status", "--home", pair.phoneHome, "--json"])
            #expect(try JSONValue(parsing: status.stdout)["activeWatch"] == switched["activeWatch"], "\(status.stdout)")
            // Watch 1 now: declined, the app not launched for it; watch 2: launched, delivered.
            try pair.record(2)
            try pair.waitUntil("phone-os declines watch 1", timeout: 30) { logText(pair.phoneLog).contains("is not the active watch") }
            let second = try record(home2, 3)
            pair.noteRecorded(second, onWatch: home2)
            try pair.waitUntil("watch 2's flights arrive", timeout: 60) { (try? pair.storedCountOffline()) == 5 }
            #expect(try pair.outstandingTransfers() == 2, "watch 1 keeps its two")
            // Back to watch 1 with the app open: now its session makes the switch, and hears it.
            _ = try pair.phoneOSCall(["app", "open"])
            try pair.waitUntil("the app answers") { (try? pair.status("phone")) != nil }
            let back = try switchWatch(pair, to: pair.watchHome)
            #expect(back["by"]?.stringValue?.contains("the app's session") == true, "\(back)")
            try pair.waitUntil("watch 1's flights arrive", timeout: 60) { try pair.storedCount() == 7 }
            let calls = try events(pair.phoneHome).compactMap { $0["call"]?.stringValue }
            let inactive = try #require(calls.lastIndex(of: "sessionDidBecomeInactive"))
            let deactivated = try #require(calls.lastIndex(of: "sessionDidDeactivate"))
            #expect(inactive < deactivated && calls[deactivated...].contains("activationDidComplete"), "\(calls)")
            try pair.expectDrainedAndClean(stored: 7)
        }
    }
}
