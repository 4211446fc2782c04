import Foundation
import Glibc
import JSONText
import PairTesting
import Posix
import Testing

/// The everyday loop (issue 17): the pair remembered, `--home` implied, both daemons up and down with
/// one command each, errors as JSON under `--json`, `--version` everywhere.
@Suite struct PairRegistryTests {
    /// Runs `runway` against the registry in `state`.
    func runway(_ arguments: [String], state: String, extra: [String: String] = [:]) throws -> CommandResult {
        try runTool(arguments, environment: ["RUNWAY_STATE_DIR": state].merging(extra) { $1 })
    }

    @Test func onePairIsImpliedTwoNeedANameAndACorruptRegistryIsLeftAlone() throws {
        try withRunningPair(tag: "reg1", watch: nil) { first in
            try withRunningPair(tag: "reg2", watch: nil) { second in
                let state = first.root + "/state"

                // No pair registered: --home is required (exit 2, one line).
                var result = try runway(["phone", "status", "--json"], state: state)
                #expect(result.status == 2)
                #expect(result.stderr.contains("no pair is registered"))

                // One pair: implied. Pairing the same homes again keeps the one entry and its name.
                #expect(try runway(["pair", "--phone", first.phoneHome, "--watch", first.watchHome], state: state).status == 0)
                result = try runway(["pair", "--phone", first.phoneHome, "--watch", first.watchHome, "--json"], state: state)
                #expect(try JSONValue(parsing: result.stdout)["name"]?.stringValue == "default")
                result = try runway(["phone", "status", "--json"], state: state)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try JSONValue(parsing: result.stdout)["home"]?.stringValue == first.phoneHome)

                // Two pairs: a name is needed, by --pair or RUNWAY_PAIR; an unknown one is exit 2.
                #expect(try runway(["pair", "--phone", second.phoneHome, "--watch", second.watchHome, "--name", "other"], state: state).status == 0)
                result = try runway(["phone", "status"], state: state)
                #expect(result.status == 2)
                #expect(result.stderr.split(separator: "\n").count == 1)
                #expect(result.stderr.contains("default, other"))
                result = try runway(["phone", "status", "--json", "--pair", "other"], state: state)
                #expect(try JSONValue(parsing: result.stdout)["home"]?.stringValue == second.phoneHome)
                result = try runway(["phone", "status", "--json"], state: state, extra: ["RUNWAY_PAIR": "default"])
                #expect(try JSONValue(parsing: result.stdout)["home"]?.stringValue == first.phoneHome)
                #expect(try runway(["phone", "status", "--pair", "nope"], state: state).status == 2)
                // --home still wins.
                result = try runway(["phone", "status", "--json", "--home", second.phoneHome], state: state)
                #expect(try JSONValue(parsing: result.stdout)["home"]?.stringValue == second.phoneHome)

                let listing = try JSONValue(parsing: try runway(["list", "--json"], state: state).stdout).arrayValue ?? []
                #expect(listing.compactMap { $0["name"]?.stringValue } == ["default", "other"])
                #expect(listing.first?["phoneRunning"] == .bool(true))
                #expect(listing.first?["watchRunning"] == .bool(false))

                // unpair: one pair left, implied again (a running pair is refused: RunningDaemonNamesTests).
                _ = second.phone?.stop()
                #expect(try runway(["unpair", "other"], state: state).status == 0)
                #expect(try runway(["unpair", "other"], state: state).status == 2)
                #expect(try runway(["phone", "status"], state: state).status == 0)

                // A corrupt registry: one line naming it, exit 2, the file untouched — pair refuses too.
                let path = state + "/pairs.json"
                try Data("{\"pairs\": [{\"name\": 1}]".utf8).write(to: URL(fileURLWithPath: path))
                let before = try Data(contentsOf: URL(fileURLWithPath: path))
                for arguments in [["phone", "status"], ["list"], ["pair", "--phone", second.phoneHome, "--watch", second.watchHome]] {
                    result = try runway(arguments, state: state)
                    #expect(result.status == 2, "\(arguments)")
                    #expect(result.stderr.contains(path))
                    #expect(result.stderr.split(separator: "\n").count == 1)
                }
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            }
        }
    }

    /// `--no-os`: the phone-daemon itself, always running (the behaviour before phone-os).
    @Test func upAndDownStartAndStopBothDaemonsAndNothingTwice() throws {
        try withPair(tag: "updown") { pair in
            let state = pair.root + "/state"
            #expect(try runway(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--name", "mine"], state: state).status == 0)
            defer { _ = try? runway(["down", "mine"], state: state) }
            var result = try runway(["up", "--no-os", "--json"], state: state)
            #expect(result.status == 0, "\(result.stderr)")
            let started = try JSONValue(parsing: result.stdout)
            #expect(started["phone"]?["state"]?.stringValue == "started")
            #expect(started["phone"]?["binary"]?.stringValue == "phone-daemon")
            #expect(started["watch"]?["state"]?.stringValue == "started")
            // Up again: says so, starts nothing.
            result = try runway(["up", "mine", "--json"], state: state)
            let again = try JSONValue(parsing: result.stdout)
            #expect(again["phone"]?["state"]?.stringValue == "already running")
            #expect(again["phone"]?["pid"] == started["phone"]?["pid"])
            // Without --no-os either: a phone-daemon already serving the home is not joined by a phone-os.
            #expect(try JSONValue(parsing: try runway(["up", "mine", "--json"], state: state).stdout)["phone"]?["binary"]?.stringValue == "phone-daemon")

            // Flights move between daemons nobody started by hand.
            try pair.record(20)
            try pair.expectDrainedAndClean(stored: 20)

            // SIGHUP is logged and ignored.
            let phonePID = Int32(started["phone"]?["pid"]?.intValue ?? 0)
            kill(phonePID, SIGHUP)
            try pair.waitUntil("the phone logs SIGHUP") { logText(pair.phoneHome + "/daemon.log").contains("signal=SIGHUP") }
            #expect(kill(phonePID, 0) == 0)

            result = try runway(["down", "--json"], state: state)
            #expect(result.status == 0, "\(result.stderr)")
            let stopped = try JSONValue(parsing: result.stdout)
            #expect(stopped["phone"]?["signal"]?.stringValue == "SIGTERM")
            #expect(kill(phonePID, 0) != 0)
            #expect(!FileManager.default.fileExists(atPath: pair.phoneHome + "/control.sock"))
            #expect(!FileManager.default.fileExists(atPath: pair.watchHome + "/control.sock"))
            #expect(try runway(["list", "--json"], state: state).stdout.contains("\"phoneRunning\":false"))
            // Down again: nothing to stop.
            #expect(try runway(["down"], state: state).stdout.contains("not running"))
            #expect(try pair.storedCountOffline() == 20)
        }
    }

    /// `up --phone-arg/--watch-arg` hands switches to what it starts: the app phone-os launches gets its
    /// legacy save path (RunWay 1.3's bug, reproducible under the default `up`), the watch app watch-os launches its version;
    /// `--phone-app` that is no executable is one line, exit 2, nothing started.
    @Test func upPassesSwitchesToTheAppAndTheWatch() throws {
        try withPair(tag: "upargs") { pair in
            let state = pair.root + "/state"
            #expect(try runway(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome], state: state).status == 0)
            defer { _ = try? runway(["down"], state: state) }
            let bad = try runway(["up", "--phone-app", pair.root + "/no-such-app"], state: state)
            #expect(bad.status == 2 && bad.stderr.contains("not an executable file"), "\(bad.stderr)")
            #expect(!FileManager.default.fileExists(atPath: pair.phoneHome + "/os.sock"), "nothing started")
            let result = try runway(
                ["up", "--phone-arg=--save-path", "--phone-arg=ui-drain", "--watch-arg=--app-version", "--watch-arg=1.7", "--json"], state: state)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try JSONValue(parsing: result.stdout)["phone"]?["binary"]?.stringValue == "phone-os")
            #expect(try runway(["phone", "app", "open"], state: state).status == 0)
            #expect(try pair.status("phone")["savePath"]?.stringValue == "ui-drain")
            // watch-os launches the watch app on demand: opened, it runs with the switch.
            #expect(try runway(["watch", "app", "open"], state: state).status == 0)
            #expect(try pair.status("watch")["appVersion"]?.stringValue == "1.7")
        }
    }

    /// With phone-os installed next to runway (it is, in the build directory), `up` starts phone-os, not
    /// the app: the app is launched in the background when the watch has something for it, `down` stops
    /// phone-os and with it the app, `list` shows the app's state.
    @Test func upStartsPhoneOSWhichLaunchesTheAppAndDownStopsBoth() throws {
        try withPair(tag: "upos") { pair in
            let state = pair.root + "/state"
            #expect(try runway(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome], state: state).status == 0)
            defer { _ = try? runway(["down"], state: state) }
            var result = try runway(["up", "--json"], state: state)
            #expect(result.status == 0, "\(result.stderr)")
            let started = try JSONValue(parsing: result.stdout)
            #expect(started["phone"]?["binary"]?.stringValue == "phone-os")
            let osPID = Int32(started["phone"]?["pid"]?.intValue ?? 0)
            #expect(osPID > 0)
            var listing = try JSONValue(parsing: try runway(["list", "--json"], state: state).stdout).arrayValue?.first
            #expect(listing?["phoneOS"] == .bool(true))
            #expect(listing?["phoneRunning"] == .bool(true))
            #expect(listing?["phoneApp"]?.stringValue == "not running", "nothing pending, nothing launched")
            // The app is not running: phone-os answers with what the OS knows.
            let osAnswer = try runway(["phone", "status", "--json"], state: state)
            #expect(osAnswer.status == 0, "\(osAnswer.stderr)")
            #expect(try JSONValue(parsing: osAnswer.stdout)["answeredBy"]?.stringValue == "phone-os")
            #expect(try runway(["phone", "logbook"], state: state).status == 1, "the app is not running")
            // Up again: phone-os is already running; nothing starts twice.
            let again = try JSONValue(parsing: try runway(["up", "--json"], state: state).stdout)
            #expect(again["phone"]?["state"]?.stringValue == "already running")
            #expect(again["phone"]?["pid"] == started["phone"]?["pid"])

            // Runs recorded on the watch launch the app in the background; nobody starts it.
            try pair.record(30)
            try pair.waitUntilDrained()
            let os = try JSONValue(parsing: try runway(["phone", "os", "status", "--json"], state: state).stdout)
            #expect(os["launches"]?["watch-transfer"]?.intValue ?? 0 >= 1)
            #expect(os["launches"]?["user"] == nil)
            // The user opens the app (the call returns once it is ready) to look at the logbook.
            #expect(try runway(["phone", "app", "open"], state: state).status == 0)
            listing = try JSONValue(parsing: try runway(["list", "--json"], state: state).stdout).arrayValue?.first
            #expect(listing?["phoneApp"]?.stringValue == "foreground")
            try pair.expectClean(stored: 30)

            // phone-os ignores SIGHUP, as the daemons do.
            kill(osPID, SIGHUP)
            try pair.waitUntil("phone-os logs SIGHUP") { logText(pair.phoneHome + "/daemon.log").contains("event=os.signal signal=SIGHUP") }
            #expect(kill(osPID, 0) == 0)

            let appPID = Int32(try JSONValue(parsing: try runway(["phone", "os", "status", "--json"], state: state).stdout)["appPid"]?.intValue ?? 0)
            #expect(appPID > 0)
            // `up` starts phone-os with the daemons' allocator settings, and phone-os passes them on to
            // the app it launches (the user's own GLIBC_TUNABLES, if this test has one, wins).
            let tunables = "GLIBC_TUNABLES=" + (ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? FreeMemory.daemonTunables)
            for (name, pid) in [("phone-os", osPID), ("the app", appPID)] {
                let environ = (FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()).split(separator: 0).map {
                    String(decoding: $0, as: UTF8.self)
                }
                #expect(environ.filter { $0.hasPrefix("GLIBC_TUNABLES=") } == [tunables], "\(name) started without the daemons' tunables")
            }
            result = try runway(["down", "--json"], state: state)
            #expect(result.status == 0, "\(result.stderr)")
            let stopped = try JSONValue(parsing: result.stdout)
            #expect(stopped["phone"]?["binary"]?.stringValue == "phone-os")
            #expect(stopped["phone"]?["signal"]?.stringValue == "SIGTERM")
            #expect(kill(osPID, 0) != 0)
            #expect(kill(appPID, 0) != 0, "phone-os stopped the app it launched")
            for name in ["link.sock", "control.sock", "os.sock"] {
                #expect(!FileManager.default.fileExists(atPath: pair.phoneHome + "/" + name), "\(name) left behind")
            }
            listing = try JSONValue(parsing: try runway(["list", "--json"], state: state).stdout).arrayValue?.first
            #expect(listing?["phoneRunning"] == .bool(false))
            #expect(try runway(["down"], state: state).stdout.contains("phone: not running"))
            #expect(try pair.storedCountOffline() == 30)
        }
    }

    @Test func errorsAreJSONUnderJSONAndEveryBinaryHasAVersion() throws {
        try withRunningPair(tag: "jsonerr", phone: nil) { pair in
            // Invalid input, a daemon not running, a WatchConnectivity error: one JSON line each.
            let cases: [([String], Int32, String?)] = [
                (["phone", "status", "--home", pair.root + "/nowhere", "--json"], 2, nil),
                (["phone", "status", "--home", pair.phoneHome, "--json"], 1, nil),
                (["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", "-", "--json"], 1, "7010"),
                (["watch", "record", "--count", "-1", "--home", pair.watchHome, "--json"], 2, nil),
            ]
            for (arguments, status, code) in cases {
                let result = try runTool(arguments, stdin: "{\"a\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}")
                #expect(result.status == status, "\(arguments): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 1, "\(arguments): \(result.stderr)")
                let error = try JSONValue(parsing: Array((lines.first ?? "").utf8))["error"]
                #expect(error?["message"]?.stringValue?.isEmpty == false)
                if let code { #expect(error?["code"]?.intValue == Int(code)) }
            }
            for binary in ["runway", "phone-daemon", "watch-agent"] {
                let result = try runTool(["--version"], binary: binary)
                #expect(result.status == 0)
                #expect(result.stdout.hasPrefix("\(binary) "))
            }
            // `runway phone` alone lists its commands.
            let group = try runTool(["phone"])
            #expect(group.status == 0)
            #expect(group.stdout.contains("runway phone logbook"))
            #expect(!group.stdout.contains("runway watch record"))
        }
    }

    /// The man page comes from the same command list as --help: every command is in it (completion, in
    /// the real shells: `CompletionTests`).
    @Test func theManPageNamesEveryCommand() throws {
        let manual = try runTool(["man"])
        #expect(manual.status == 0)
        #expect(manual.stdout.hasPrefix(".TH RUNWAY 1"))
        let usage = try runTool(["--help"]).stdout
        for line in usage.split(separator: "\n") where line.hasPrefix("  runway ") {
            let words = line.dropFirst(2).split(separator: " ").prefix {
                !$0.hasPrefix("-") && !$0.hasPrefix("[") && !$0.hasPrefix("(") && $0 == $0.lowercased()
            }
            // roff escapes hyphens
            let escaped = words.joined(separator: " ").split(separator: "-", omittingEmptySubsequences: false).joined(separator: "\\-")
            #expect(manual.stdout.contains(escaped), "\(words)")
        }
    }

    /// More than 10,000 runs are recorded in chunks, each its own transaction, in one series: the ids
    /// are all there once, in order, the series ends at the watch's now, and every flight arrives once.
    @Test func aLongRecordingGoesInChunksAndLosesNothing() throws {
        try withRunningPair(tag: "chunks", phone: nil) { pair in
            let ids = try pair.record(25_000)
            #expect(Set(ids).count == 25_000)
            #expect(try pair.outstandingTransfers() == 25_000)
            // Not a terminal: no progress line.
            let quiet = try runTool(["watch", "record", "--home", pair.watchHome, "--count", "10001"])
            #expect(quiet.status == 0)
            #expect(quiet.stderr.isEmpty)
            #expect(quiet.stdout.split(separator: "\n").count == 10_001)
            pair.noteRecorded(quiet.stdout.split(separator: "\n").map(String.init))
            try pair.startPhone()
            try pair.expectDrainedAndClean(stored: 35_001, timeout: 300)
        }
    }

    /// `--log-format json`: every line of the daemon's log is one JSON object with the usual fields.
    @Test func daemonsLogJSONWhenAsked() throws {
        try withRunningPair(tag: "jsonlog", watch: ["--log-format", "json"], phone: ["--log-format", "json"]) { pair in
            try pair.record(5)
            try pair.expectDrainedAndClean()
            for path in [pair.phoneLog, pair.watchLog] {
                let lines = logText(path).split(separator: "\n")
                #expect(lines.count > 5)
                for line in lines {
                    let object = try JSONValue(parsing: Array(line.utf8))
                    #expect(object["ts"]?.stringValue != nil && object["event"]?.stringValue != nil && object["level"]?.stringValue != nil, "\(line)")
                }
                #expect(lines.contains { $0.contains(#""event":"daemon.ready""#) })
            }
            let bad = try runUntilExit("phone-daemon", ["--home", pair.root + "/other", "--log-format", "xml"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--log-format must be logfmt or json"))
        }
    }

    /// `runway dump` decodes the BLOBs a person finds with sqlite3, and changes nothing.
    @Test func dumpDecodesTheStoresPayloads() throws {
        try withRunningPair(tag: "dump", phone: nil) { pair in
            let ids = try pair.record(3)
            #expect(try runTool(["watch", "transfer-userinfo", "--home", pair.watchHome, "--json-file", "-"], stdin: #"{"note":"hello"}"#).status == 0)
            let result = try runTool(["dump", "--home", pair.watchHome, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let dump = try JSONValue(parsing: result.stdout)
            let outbox = dump["outbox"]?.arrayValue ?? []
            #expect(outbox.compactMap { $0["userInfo"]?["id"]?.stringValue } == ids)
            #expect(outbox.last?["userInfo"]?["note"]?.stringValue == "hello")
            try pair.startPhone()
            try pair.waitUntilDrained()
            let phone = try JSONValue(parsing: try runTool(["dump", "--home", pair.phoneHome, "--json", "--limit", "5"]).stdout)
            #expect(phone["received"]?.arrayValue?.first?["userInfo"]?["note"]?.stringValue == "hello")
            #expect(try JSONValue(parsing: try runTool(["dump", "--home", pair.watchHome, "--json"]).stdout)["outbox"]?.arrayValue?.isEmpty == true)
            pair.noteRecorded([])
            try pair.expectClean()
            #expect(try runTool(["dump", "--home", pair.root + "/nothing"]).status == 2)
            #expect(try runTool(["dump", "--home", pair.watchHome]).stdout.hasPrefix("outbox (not yet acknowledged): 0"))
        }
    }
}
