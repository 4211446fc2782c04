import Posix
import Control
import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import RunWayApp
import Storage
import Testing
import PropertyLists

/// Issue 10's classes, through the real binaries: what a sender accepts the receiver can take; what
/// still cannot be taken is quarantined, never acknowledged away; no value in a flight crashes anything.
@Suite struct AcceptedIsTakenTests {
    /// A JSON object nested `depth` levels below the top (`{"v":[{"k":[…1…]}]}`).
    static func nested(_ depth: Int) -> String {
        var text = "1"
        for level in 0..<depth { text = level % 2 == 0 ? "[\(text)]" : "{\"k\":\(text)}" }
        return "{\"v\":\(text)}"
    }

    /// A valid flight's userInfo as JSON, with `changes` applied (dates as ISO strings are not flights'
    /// dates in JSON: the JSON form carries numbers, which `Flight(userInfo:)` reads alike).
    static func flightJSON(_ changes: [String: String] = [:]) -> String {
        var generator = FlightGenerator(seed: 8)
        let flight = generator.flight(distanceKm: 5, endingAt: 1.8e9)
        var fields: [String: String] = [
            "type": "\"flight\"", "id": "\"\(flight.id)\"", "startedAt": "\(flight.startedAt)", "endedAt": "\(flight.endedAt)",
            "distanceKm": "5", "durationSeconds": "\(flight.durationSeconds)", "averagePaceSecondsPerKm": "330",
            "averageHeartRate": "150", "mode": "\"pace\"",
        ]
        fields.merge(changes) { _, new in new }
        return "{" + fields.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    func transfer(_ device: String, _ home: String, _ json: String) throws -> CommandResult {
        try runTool([device, "transfer-userinfo", "--home", home, "--json-file", "-"], stdin: json)
    }

    // MARK: - The sender refuses what the receiver could not take

    @Test func theSenderRefusesWhatTheReceiverCouldNotTakeWith7010() throws {
        try withRunningPair(tag: "refuse") { pair in
            let before = try pair.record(3)
            // The top-level dictionary is depth 0, "v" 1, and the decoder takes values up to depth 31.
            let deepest = PropertyListCodec.maximumDepth - 2
            let refused: [(String, String)] = [
                ("too deep", Self.nested(deepest + 1)),
                ("far too deep", Self.nested(60)),
                ("a start time of 1e300", Self.flightJSON(["startedAt": "1e300"])),
                ("a huge duration", Self.flightJSON(["durationSeconds": "1e300"])),
                ("a negative distance", Self.flightJSON(["distanceKm": "-5"])),
                ("a heart rate of 1000", Self.flightJSON(["averageHeartRate": "1000"])),
                ("an id flight and delete would not take", Self.flightJSON(["id": "\"not-a-uuid\""])),
                ("a lower-case id", Self.flightJSON(["id": "\"0193b2c4-7a00-7000-8000-000000000001\""])),
                ("a missing field", Self.flightJSON(["mode": "\"sprint\""])),
            ]
            for (device, home) in [("watch", pair.watchHome), ("phone", pair.phoneHome)] {
                for (what, json) in refused {
                    let result = try transfer(device, home, json)
                    #expect(result.status == 1, "\(device), \(what): \(result.stdout) \(result.stderr)")
                    #expect(result.stderr.contains("7010"), "\(device), \(what): \(result.stderr)")
                    #expect(result.stderr.split(separator: "\n").count == 1)
                }
            }
            // Nothing of it was queued; the deepest payload the receiver decodes still goes through.
            #expect(try transfer("watch", pair.watchHome, Self.nested(deepest)).status == 0)
            let handmade = Self.flightJSON(["startedAt": "1.79e9", "endedAt": "1.79e9", "durationSeconds": "0"])
            #expect(try transfer("watch", pair.watchHome, handmade).status == 0)
            let handmadeID = try #require(try JSONValue(parsing: Array(handmade.utf8))["id"]?.stringValue)
            let after = try pair.record(3)
            try pair.waitUntilDrained()
            let report = InvariantChecker.check(
                recorded: before + [handmadeID] + after, stored: try pair.logbookIDs(),
                outstandingTransfers: try pair.outstandingTransfers(),
                storePaths: pair.storePaths)
            #expect(report.isClean, "\(report.violations.joined(separator: "\n"))")
            #expect(try runTool(["phone", "received", "--home", pair.phoneHome, "--json"]).stdout.contains("\"k\""))
            #expect(try pair.status("phone")["quarantined"] == .integer(0))
            #expect(try pair.storedCount() == 7)
        }
    }

    // MARK: - What still cannot be taken is quarantined

    /// A peer that skips the sender's checks (an older or a hostile watch) sends what the phone cannot
    /// take: each is acknowledged only once it is kept in quarantine, with its reason — the transfers
    /// around it are stored, the link does not wedge, and an attached UI is not hurt.
    @Test func whatTheReceiverCannotTakeIsQuarantinedNeverDropped() throws {
        try withRunningPair(tag: "quar", watch: nil) { pair in
            let ui = try UIProcess(phoneHome: pair.phoneHome, scratch: pair.root, index: 0)
            try pair.waitUntil("the UI attached") { ui.isAttached }
            let pairing: Pairing = try {
                let store = try Database(path: pair.watchHome + "/store.sqlite")
                defer { store.close() }
                return try #require(try SessionStore.pairing(store))
            }()
            // It holds the pair's secret (read from the watch's home, as any process of the user can).
            let hello = Handshake(role: .watch, deviceID: pairing.watchDeviceID, pairingID: pairing.pairingID, appVersion: "1.4.0", resumeSeq: 0)
            let client = try #require(try FakePeer.watch(pair, hello: hello), "no welcome: \(pair.phone!.logTail())").client

            var generator = FlightGenerator(seed: 4)
            let good = generator.flight(distanceKm: 5, endingAt: 1.8e9)
            var huge = generator.flight(distanceKm: 5, endingAt: 1.8e9)
            huge.startedAt = 1e300
            var lower = generator.flight(distanceKm: 5, endingAt: 1.8e9)
            lower.id = lower.id.lowercased()
            var deep: PropertyListValue = .integer(1)
            for _ in 0..<60 { deep = .array([deep]) }
            let payloads: [(seq: Int64, bytes: [UInt8], quarantined: Bool)] = [
                (1, PropertyListCodec.encode(["v": deep]), true),
                (2, PropertyListCodec.encode(huge.userInfo), true),
                (3, PropertyListCodec.encode(good.userInfo), false),
                (4, [0x01, 0xFF, 0xFF, 0xFF, 0xFF], true),
                (5, PropertyListCodec.encode(lower.userInfo), true),
            ]
            var bytes: [UInt8] = []
            for payload in payloads { SequencedFrame.append(.userInfo, number: payload.seq, body: payload.bytes, to: &bytes) }
            client.discardReceived()
            client.send(bytes)
            var acknowledged: Int64 = 0
            try pair.waitUntil("the phone acknowledges all five") {
                client.receive(waitingUpTo: 0.2)
                for frame in (try? decodeFrames(client.received)) ?? [] where frame.type == .ack {
                    acknowledged = max(acknowledged, (try? SequencedFrame.split(frame.payload).number) ?? 0)
                }
                return acknowledged == 5
            }
            client.close()

            // Every one is accounted for: stored, or kept with its reason.
            #expect(try pair.logbookIDs() == [good.id])
            let listing = try runTool(["phone", "quarantine", "--home", pair.phoneHome, "--json"])
            #expect(listing.status == 0)
            let quarantined = try JSONValue(parsing: listing.stdout)
            #expect(quarantined["quarantined"] == .integer(4))
            let entries = quarantined["transfers"]?.arrayValue ?? []
            #expect(entries.compactMap { $0["transferId"]?.intValue } == [1, 2, 4, 5])
            #expect(entries[0]["reason"]?.stringValue?.contains("nested deeper") == true)
            #expect(entries[1]["reason"]?.stringValue?.contains("startedAt") == true)
            #expect(entries[1]["userInfo"]?["id"]?.stringValue == huge.id)
            #expect(entries[2]["payloadBase64"] != nil)
            #expect(entries[3]["reason"]?.stringValue?.contains("id") == true)
            #expect(logText(pair.phoneLog).contains("event=transfer.quarantined"))
            #expect(pair.phone!.isRunning, "the phone died: \(pair.phone!.logTail())")
            #expect(ui.process.isRunning)
            #expect(ui.savedIDs == [good.id])

            // Durable: a SIGKILL and a relaunch keep them, and status counts them.
            pair.killPhone()
            try pair.startPhone()
            #expect(try pair.status("phone")["quarantined"] == .integer(4))
            let text = try runTool(["phone", "quarantine", "--home", pair.phoneHome])
            #expect(text.stdout.hasPrefix("4 quarantined"))
            #expect(text.stdout.split(separator: "\n").count == 5)

            // Removable, one or all; bad input is exit 2, an unknown id exit 1.
            let first = entries[0]["id"]?.intValue ?? 0
            #expect(try runTool(["phone", "quarantine", "remove", String(first), "--home", pair.phoneHome]).status == 0)
            #expect(try runTool(["phone", "quarantine", "remove", String(first), "--home", pair.phoneHome]).status == 1)
            #expect(try runTool(["phone", "quarantine", "remove", "abc", "--home", pair.phoneHome]).status == 2)
            #expect(try runTool(["phone", "quarantine", "remove", "--home", pair.phoneHome]).status == 2)
            #expect(try pair.status("phone")["quarantined"] == .integer(3))
            #expect(try runTool(["phone", "quarantine", "remove", "--all", "--home", pair.phoneHome]).stdout == "removed 3\n")
            #expect(try pair.status("phone")["quarantined"] == .integer(0))

            // The link did not wedge: the real watch, resuming after transfer 5, delivers what it records.
            try pair.startWatch()
            try pair.record(5)
            try pair.waitUntilDrained()
            let report = InvariantChecker.check(
                recorded: [good.id] + pair.recorded, stored: try pair.logbookIDs(),
                outstandingTransfers: try pair.outstandingTransfers(),
                storePaths: pair.storePaths)
            #expect(report.isClean, "\(report.violations.joined(separator: "\n"))")
            ui.signal(SIGTERM)
        }
    }

    /// The other direction: the watch quarantines what it cannot decode from the phone.
    @Test func theWatchQuarantinesToo() throws {
        try withRunningPair(tag: "wquar") { pair in
            try pair.record(2)
            try pair.waitUntilDrained()
            #expect(try pair.status("watch")["quarantined"] == .integer(0))
            let listing = try runTool(["watch", "quarantine", "--home", pair.watchHome])
            #expect(listing.status == 0)
            #expect(listing.stdout == "0 quarantined\n")
        }
    }

    // MARK: - No value crashes anything

    /// Flights with every extreme value, written into the store behind the app's back (a store from
    /// before the limits existed, or edited with sqlite3): every listing and summary works, the phone
    /// keeps running with a UI attached, and new flights still arrive.
    @Test func extremeValuesInAStoreCrashNothing() throws {
        try withPair(tag: "extreme") { pair in
            var injected: [String] = []
            do {
                try FileManager.default.createDirectory(
                    atPath: (pair.phoneAppStore as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                let database = try Database(path: pair.phoneAppStore)
                defer { database.close() }
                try Migrator.migrate(database, RunWayStore.migrations)
                let store = FlightStore(database: database)
                var generator = FlightGenerator(seed: 12)
                let values: [Double] = [1e300, -1e300, 9.3e18, -9.3e18, .greatestFiniteMagnitude, 0, -1]
                let fields = ["startedAt", "endedAt", "distanceKm", "durationSeconds", "averagePaceSecondsPerKm", "averageHeartRate"]
                for (index, value) in values.enumerated() {
                    var flight = generator.flight(distanceKm: 5, endingAt: 1.8e9)
                    for field in fields {
                        switch field {
                        case "startedAt": flight.startedAt = value
                        case "endedAt": flight.endedAt = index % 2 == 0 ? value : 1.8e9
                        case "distanceKm": flight.distanceKm = value
                        case "durationSeconds": flight.durationSeconds = value
                        case "averagePaceSecondsPerKm": flight.averagePaceSecondsPerKm = value
                        default: flight.averageHeartRate = value
                        }
                    }
                    // Samples with NaN, infinities and 3e38 m in them.
                    var samples = flight.samples
                    samples[0] = FlightSample(time: .nan, distance: 3e38, pace: .infinity, heartRate: -.infinity)
                    samples[1] = FlightSample(time: .greatestFiniteMagnitude, distance: Float(value), pace: 1e30, heartRate: 1e30)
                    flight.packedSamples = Flight.pack(samples) + [0x01, 0x02]
                    try store.insert(flight)
                    injected.append(flight.id)
                }
            }
            try pair.startWatch()
            try pair.startPhone()
            let ui = try UIProcess(phoneHome: pair.phoneHome, scratch: pair.root, index: 0)
            try pair.waitUntil("the UI attached") { ui.isAttached }
            for arguments in [
                ["phone", "logbook"], ["phone", "logbook", "--json"], ["phone", "logbook", "--expand", "all"],
                ["phone", "status"],
            ] {
                let result = try runTool(arguments + ["--home", pair.phoneHome])
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
            }
            for id in injected {
                for extra in [[], ["--json"]] {
                    let result = try runTool(["phone", "flight", id, "--home", pair.phoneHome] + extra)
                    #expect(result.status == 0, "flight \(id) \(extra): \(result.stderr)")
                }
            }
            #expect(pair.phone!.isRunning, "the phone died: \(pair.phone!.logTail())")
            try pair.record(5)
            try pair.waitUntilDrained()
            #expect(pair.phone!.isRunning)
            #expect(ui.process.isRunning)
            let stored = try pair.logbookIDs()
            #expect(Array(stored.prefix(injected.count)) == injected)
            let report = InvariantChecker.check(
                recorded: pair.recorded, stored: Array(stored.dropFirst(injected.count)),
                outstandingTransfers: try pair.outstandingTransfers(),
                storePaths: pair.storePaths)
            #expect(report.isClean, "\(report.violations.joined(separator: "\n"))")
            ui.signal(SIGTERM)
        }
    }
}
