import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import PropertyLists
import RunWayApp
import Testing

/// Issue 51, failure 3: one forged or replayed frame on the link, from a process of the same user that
/// reads the homes (`FakePeer`), through the real binaries. Each must close the link with a logged
/// reason and lose nothing: the invariant checker closes every test, with the real device back.
@Suite(.serialized) struct ForgedFrameTests {
    /// A `fileAck` for a file the receiver never finished: the phone sends a file to a fake watch,
    /// which acknowledges it at its first frame. Before the file lane's rule the phone took it as
    /// delivered and dropped it (3 of 3 in the issue); now the acknowledgement names a file the receiver
    /// has not reported complete, the link closes with a protocol violation, and the real watch gets
    /// the file when it is back.
    @Test func aForgedFileAckIsAViolationAndTheFileStillArrives() throws {
        try withRunningPair(tag: "fk-fack", phoneFirst: true) { pair in
            #expect(try forgeFileAck(pair), "the phone kept the link after a forged fileAck")
            let report = try pair.expectDrainedAndClean()
            #expect(report.files.received == 1, "\(report.summary)")
            #expect(
                logText(pair.phoneLog).split(separator: "\n").contains { $0.contains("event=link.protocol-violation") && $0.contains("fileAck") },
                "no protocol violation logged")
        }
    }

    /// The same forged `fileAck` to a phone with the rules before issue 51 (`--unsafe-trust-counterpart`):
    /// the file is dropped, never delivered — the checker sees it lost, so the test above can fail.
    @Test func theRuleBeforeLosesTheFile() throws {
        try withRunningPair(tag: "fk-fack-old", phone: ["--unsafe-trust-counterpart"], phoneFirst: true) { pair in
            _ = try forgeFileAck(pair)
            try pair.waitUntilDrained()
            let report = try pair.check()
            #expect(report.files.sent == 1 && report.files.lost.count == 1, "\(report.summary)")
        }
    }

    /// Kills the watch, has the phone queue a 1.5 MB file, acknowledges it from a fake watch at its
    /// `fileBegin`, then brings the real watch back. Returns whether the phone closed the fake's link.
    func forgeFileAck(_ pair: SimulatedPair) throws -> Bool {
        try pair.waitUntil("the phone knows the watch app") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
        pair.killWatch()
        try pair.waitUntil("the phone lost the watch") { try pair.status("phone")["linked"] == .bool(false) }
        let route = try FileTransferIntegrationTests.randomFile(pair, "route.gpx", size: 1_500_000)
        let id = try pair.transferFile(from: "phone", route)
        let fake = try #require(try FakePeer.watch(pair), "the phone refused the fake watch: \(pair.phone!.logTail())")
        let begin = try #require(try fake.waitForFrame { $0.type == .fileBegin }, "no fileBegin reached the fake watch")
        #expect(try SequencedFrame.split(begin.payload).number == Int64(id))
        fake.send(SequencedFrame.frame(.fileAck, number: Int64(id)))
        // Closed at once by the rule; before it, the link stayed until the real watch replaced it.
        let closed = try fake.waitUntilClosed(timeout: 5)
        fake.client.close()
        try pair.startWatch()
        return closed
    }

    /// A replayed application context with a far version: a fake phone (bound at the phone's socket
    /// while the phone is down) sends the watch a context numbered a million. Before the rule the watch
    /// stored it and dropped every later real context as older (2 of 2); now the version is beyond
    /// anything the phone said it had, the link closes with a protocol violation, nothing is stored, and
    /// the phone's next real context arrives.
    @Test func aContextWithAFarVersionIsAViolationAndLaterContextsArrive() throws {
        try withRunningPair(tag: "fk-ctx", phoneFirst: true) { pair in
            #expect(try forgeFarContext(pair), "the watch kept the link after a context a million versions ahead")
            #expect(try receivedContext(pair)?["lap"] == .integer(1), "the forged context was stored")
            try pair.startPhone()
            try setContext(pair, ["lap": .integer(2)])
            try pair.record(3)
            try pair.expectDrainedAndClean()
            try pair.waitUntil("the watch has the phone's next context", timeout: 30) { try receivedContext(pair)?["lap"] == .integer(2) }
            #expect(
                logText(pair.watchLog).split(separator: "\n").contains { $0.contains("event=link.protocol-violation") && $0.contains("context") },
                "no protocol violation logged")
        }
    }

    /// The same forged context to a pair with the rules before issue 51 (`--unsafe-trust-counterpart` on
    /// both: the watch takes any version, the phone does not move past what the watch holds): it is
    /// stored, and the phone's next real context is taken as older and never delivered.
    @Test func theRuleBeforeHidesEveryLaterContext() throws {
        let old = ["--unsafe-trust-counterpart"]
        try withRunningPair(tag: "fk-ctx-old", watch: old, phone: old, phoneFirst: true) { pair in
            _ = try forgeFarContext(pair)
            #expect(try receivedContext(pair)?["lap"] == .integer(999), "the forged context is what the watch holds")
            try pair.startPhone()
            try setContext(pair, ["lap": .integer(2)])
            try pair.record(3)
            try pair.expectDrainedAndClean()
            #expect(try receivedContext(pair)?["lap"] == .integer(999), "the real context was taken")
        }
    }

    /// The phone sets a context the watch takes, stops; a fake phone at its socket sends the watch a
    /// context a million versions on. Returns whether the watch closed the fake's link.
    func forgeFarContext(_ pair: SimulatedPair) throws -> Bool {
        try setContext(pair, ["lap": .integer(1)])
        try pair.waitUntil("the watch has the first context") { try receivedContext(pair)?["lap"] == .integer(1) }
        pair.killPhone(SIGTERM)
        _ = pair.phone!.waitForExit(timeout: 30)
        let listener = try RawListener(path: pair.phoneHome + "/link.sock")
        let fake = try FakePeer.phone(pair, listener: listener)
        fake.send(SequencedFrame.frame(.applicationContext, number: 1_000_000, body: PropertyListCodec.encode(["lap": .integer(999)])))
        let closed = try fake.waitUntilClosed(timeout: 5)
        // Before the rule the watch acknowledged it: wait for that, so the forged context is surely taken.
        if !closed { _ = try fake.waitForFrame(timeout: 5) { $0.type == .contextAck } }
        fake.client.close()
        listener.close()
        return closed
    }

    /// A replayed `hello`: what the watch says when it connects, sent again by another process, with a
    /// forged flight after it. Before the challenge the phone welcomed it as the watch (the real watch's
    /// link replaced) and stored the flight; now the phone asks for the pairing's proof, the replay
    /// cannot give it, and it is refused with one logged line — nothing stored, the real link untouched.
    @Test func aReplayedHelloIsRefusedAndItsFlightNeverStored() throws {
        try withRunningPair(tag: "fk-hello") { pair in
            try pair.record(5)
            try pair.waitUntilDrained()
            var hello = try FakePeer.handshake(of: pair.watchHome, role: .watch)
            hello.nonce = LinkProof.freshNonce()  // a captured hello has the nonce its watch chose then
            // The next number the phone takes from the watch: after its cursor.
            let next = try FakePeer.handshake(of: pair.phoneHome, role: .phone).resumeSeq + 1
            var generator = FlightGenerator(seed: 51)
            let forged = generator.flight(distanceKm: 42, endingAt: 1.8e9)
            let replay = try RawClient(path: pair.phoneHome + "/link.sock")
            replay.send(
                Frame(.hello, hello.encoded).encoded
                    + SequencedFrame.frame(.userInfo, number: next, body: PropertyListCodec.encode(forged.userInfo)))
            #expect(replay.waitUntilClosed(timeout: 15), "the phone kept talking to the replay")
            try pair.record(5)
            try pair.expectDrainedAndClean(stored: 10)
            #expect(try !pair.logbookIDs().contains(forged.id), "the replayed hello's flight was stored")
            let refusals = logText(pair.phoneLog).split(separator: "\n").filter { $0.contains("event=link.refused") && $0.contains("proof") }
            #expect(refusals.count == 1, "one logged line: \(refusals)")
        }
    }

    /// A forged `mirrorAck` (HealthKit's mirrored workout traffic, in `workout` frames): during a
    /// phone-led run the watch mirrors its session; with the phone down, a fake phone at its socket
    /// acknowledges the watch's session up to item 1,000,000. Before the rule the watch capped it at its
    /// last item and completed, unlogged, items the phone never received; now it names items never sent,
    /// the link closes with a logged protocol violation, and the pair drains clean with the real phone back.
    @Test func aForgedMirrorAckIsAViolation() throws {
        try withRunningPair(tag: "fk-mack") { pair in
            #expect(try forgeMirrorAck(pair), "the watch kept the link after a mirrorAck past its last item")
            #expect(
                logText(pair.watchLog).split(separator: "\n").contains { $0.contains("event=link.protocol-violation") && $0.contains("mirrorAck") },
                "no protocol violation logged")
            try pair.startPhone()
            try pair.expectDrainedAndClean()
        }
    }

    /// The same forged `mirrorAck` to a watch with the rules before issue 51 (`--unsafe-trust-counterpart`):
    /// taken (capped at the last item sent), the link kept, nothing logged.
    @Test func theRuleBeforeTakesAForgedMirrorAckUnlogged() throws {
        try withRunningPair(tag: "fk-mack-old", watch: ["--unsafe-trust-counterpart"]) { pair in
            #expect(try !forgeMirrorAck(pair), "the watch closed the link under the old rule")
            #expect(!logText(pair.watchLog).contains("event=link.protocol-violation"))
            try pair.startPhone()
            try pair.expectDrainedAndClean()
        }
    }

    /// Starts a phone-led heart-rate run (the watch mirrors its session to the phone), stops the phone;
    /// a fake phone at its socket takes the watch's `mirrorStart` (sent again at each new link) and
    /// acknowledges its session far past it. Returns whether the watch closed the fake's link.
    func forgeMirrorAck(_ pair: SimulatedPair) throws -> Bool {
        try pair.waitUntil("the watch is linked") { try pair.status("phone")["linked"] == .bool(true) }
        try pair.waitUntil("the phone knows the watch app") { try pair.status("phone")["watchAppInstalled"] == .bool(true) }
        _ = try pair.phoneRun(["start", "--mode", "heart-rate"])
        try pair.waitUntil("the phone sees the watch's confirmation", timeout: 30) { try pair.mirroringState() == "confirmed" }
        pair.killPhone(SIGTERM)
        _ = pair.phone!.waitForExit(timeout: 30)
        let listener = try RawListener(path: pair.phoneHome + "/link.sock")
        defer { listener.close() }
        let fake = try FakePeer.phone(pair, listener: listener)
        defer { fake.client.close() }
        func mirrorFrame(_ frame: Frame) -> UserInfo? {
            guard frame.type == .workout, let event = try? PropertyListCodec.decodeDictionary(frame.payload) else { return nil }
            return event["kind"] == .string(MirrorFrame.start) ? event : nil
        }
        let start = try #require(try fake.waitForFrame { mirrorFrame($0) != nil }.flatMap(mirrorFrame), "no mirrorStart reached the fake phone")
        let session = try #require(start["session"]?.stringValue)
        fake.send(Frame(.workout, PropertyListCodec.encode(MirrorFrame.acknowledgement(session: session, upTo: 1_000_000))).encoded)
        return try fake.waitUntilClosed(timeout: 5)
    }

    func setContext(_ pair: SimulatedPair, _ context: UserInfo) throws {
        let file = pair.root + "/context.json"
        try JSONValue.object(context.mapValues(\.json)).text.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runTool(["phone", "context", "set", "--home", pair.phoneHome, "--json-file", file])
        #expect(result.status == 0, "\(result.stderr)")
    }

    func receivedContext(_ pair: SimulatedPair) throws -> JSONValue? {
        let result = try runTool(["watch", "context", "get", "--home", pair.watchHome, "--json"])
        guard result.status == 0 else { return nil }
        return try JSONValue(parsing: result.stdout)["receivedApplicationContext"]
    }
}
