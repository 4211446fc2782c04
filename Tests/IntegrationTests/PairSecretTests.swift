import Connectivity
import Foundation
import Glibc
import JSONText
import PairTesting
import Posix
import Storage
import Testing

/// Issue 51, Build 3: only the pair speaks on the link. `runway pair` writes a shared secret into both
/// homes; each connection proves it (`LinkHandshake`, `LinkProof`); a process without it, or a replay
/// of a real watch's handshake, is refused with one logged line; `runway unpair` and a new pair change
/// it; a home without one (an earlier RunWay's) is refused with a line saying to pair again. Through the
/// real binaries, with the invariant checker after each.
@Suite(.serialized) struct PairSecretTests {
    /// The secret's file in `home`, for the pairing recorded there.
    static func secretPath(_ home: String) throws -> String {
        let database = try Database(path: home + "/store.sqlite", readOnly: true)
        defer { database.close() }
        let pairing = try #require(try SessionStore.pairing(database))
        return try #require(PairingSecrets(home: home).path(for: pairing.pairingID))
    }

    /// Two flights delivered, then the phone stopped (SIGTERM): its link socket is free for a fake phone.
    static func deliverTwoThenStopThePhone(_ pair: SimulatedPair) throws {
        try pair.record(2)
        try pair.waitUntilDrained()
        pair.killPhone(SIGTERM)
        _ = pair.phone!.waitForExit(timeout: 30)
    }

    static func refusals(_ log: String, _ fragment: String) -> [Substring] {
        logText(log).split(separator: "\n").filter { $0.contains("event=link.refused") && $0.contains(fragment) }
    }

    @Test func pairWritesOneSecretIntoBothHomesAndAnotherPairChangesIt() throws {
        try withPair(tag: "sec-pair") { pair in
            let phoneFile = try Self.secretPath(pair.phoneHome), watchFile = try Self.secretPath(pair.watchHome)
            let first = try Filesystem.readFile(phoneFile)
            let watchFirst = try Filesystem.readFile(watchFile)
            #expect(first == watchFirst, "the two homes hold one secret")
            #expect(first.count == 65 && (try? PairingSecret(parsing: first)) != nil)
            for file in [phoneFile, watchFile] {
                #expect(Filesystem.mode(of: file) == 0o600, "\(file)")
                #expect(Filesystem.mode(of: String(file[..<file.lastIndex(of: "/")!])) == 0o700)
            }
            // Paired again (the pairing kept, as the command says): a new secret, in both.
            let again = try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome])
            #expect(again.status == 0 && again.stdout.hasPrefix("already paired"), "\(again.stderr)")
            let second = try Filesystem.readFile(phoneFile)
            let watchSecond = try Filesystem.readFile(watchFile)
            #expect(second != first && second == watchSecond)
            // And the pair still speaks.
            try pair.startPhone()
            try pair.startWatch()
            try pair.record(5)
            try pair.expectDrainedAndClean(stored: 5)
        }
    }

    /// A process that knows everything the stores say but not the secret: its answer to the phone's
    /// proof is wrong, it is refused with one line, and nothing it sent is stored.
    @Test func aWatchWithoutTheSecretIsRefusedWithOneLine() throws {
        try withRunningPair(tag: "sec-none") { pair in
            try pair.record(3)
            try pair.waitUntilDrained()
            var hello = try FakePeer.handshake(of: pair.watchHome, role: .watch)
            hello.nonce = LinkProof.freshNonce()
            let impostor = FakePeer(try RawClient(path: pair.phoneHome + "/link.sock"))
            impostor.send(Frame(.hello, hello.encoded).encoded)
            let welcome = try #require(try impostor.waitForFrame { $0.type == .welcome })
            #expect(try impostor.waitForFrame { $0.type == .proof } != nil, "the phone proved nothing")
            let guess = PairingSecret.generate()
            impostor.send(Frame(.proof, LinkProof.proof(by: .watch, secret: guess, hello: hello.encoded, welcome: welcome.payload)).encoded)
            #expect(try impostor.waitUntilClosed(), "the phone kept the impostor")
            let error = try #require(impostor.frames.last { $0.type == .error }.map { try ErrorFrame.decode($0.payload) })
            #expect(error.code == .deviceNotPaired)
            try pair.waitUntil("the refusal is logged") { !Self.refusals(pair.phoneLog, "proof does not match").isEmpty }
            #expect(Self.refusals(pair.phoneLog, "proof").count == 1, "one line")
            try pair.record(3)
            try pair.expectDrainedAndClean(stored: 6)
        }
    }

    /// A fake phone without the secret, bound at the phone's socket while the phone is down, welcomes
    /// the real watch with resume points past all it has queued — taken, they would make the watch let
    /// go of its outbox as delivered. The watch checks the phone's proof before it takes anything of the
    /// welcome: refused with one line, nothing let go, and the real phone gets every flight. On
    /// dbfabb38 (no proof) the watch took the welcome and dropped the three flights: the checker lost them.
    @Test func aPhoneWithoutTheSecretIsRefusedAndTheWatchLetsGoOfNothing() throws {
        try withRunningPair(tag: "sec-phone", phoneFirst: true) { pair in
            try Self.deliverTwoThenStopThePhone(pair)
            try pair.record(3)
            let listener = try RawListener(path: pair.phoneHome + "/link.sock")
            let client = try #require(listener.accept(waitingUpTo: 30), "the watch never connected to the fake phone")
            let impostor = FakePeer(client)
            let hello = try #require(try impostor.waitForFrame { $0.type == .hello }, "the watch said no hello")
            var welcome = try FakePeer.handshake(of: pair.phoneHome, role: .phone)
            welcome.resumeSeq += 1_000  // "I have everything you queued, and more"
            welcome.nonce = LinkProof.freshNonce()
            let guess = PairingSecret.generate()
            impostor.send(
                Frame(.welcome, welcome.encoded).encoded
                    + Frame(.proof, LinkProof.proof(by: .phone, secret: guess, hello: hello.payload, welcome: welcome.encoded)).encoded)
            #expect(try impostor.waitUntilClosed(), "the watch kept the impostor")
            impostor.client.close()
            listener.close()
            try pair.startPhone()
            try pair.expectDrainedAndClean(stored: 5)
            // Logged when the watch refused, long before the drain.
            #expect(Self.refusals(pair.watchLog, "the phone's proof does not match").count == 1, "one line")
        }
    }

    /// The real watch's whole handshake — its hello and its answer, captured by a fake phone holding
    /// the secret — replayed to the real phone: the phone's welcome has a new nonce, the old answer is
    /// not its answer, and the replay is refused.
    @Test func aCapturedHandshakeReplayedIsRefused() throws {
        try withRunningPair(tag: "sec-replay", phoneFirst: true) { pair in
            try Self.deliverTwoThenStopThePhone(pair)
            let listener = try RawListener(path: pair.phoneHome + "/link.sock")
            let capture = try FakePeer.phone(pair, listener: listener)
            let hello = try #require(capture.frames.first { $0.type == .hello })
            let answer = try #require(capture.frames.first { $0.type == .proof })
            capture.client.close()
            listener.close()
            try pair.startPhone()
            let replay = FakePeer(try RawClient(path: pair.phoneHome + "/link.sock"))
            replay.send(hello.encoded)
            #expect(try replay.waitForFrame { $0.type == .proof } != nil)
            replay.send(answer.encoded)
            #expect(try replay.waitUntilClosed(), "the phone took a replayed answer")
            try pair.waitUntil("the refusal is logged") { !Self.refusals(pair.phoneLog, "proof does not match").isEmpty }
            try pair.record(2)
            try pair.expectDrainedAndClean(stored: 4)
        }
    }

    /// A pair made by an earlier RunWay has no secret: each side says, in one line, to pair again — and
    /// pairing again (the pairing kept) gives them one, and everything waiting goes.
    @Test func homesWithoutASecretAreToldToPairAgainAndPairingAgainUpgradesThem() throws {
        try withPair(tag: "sec-old") { pair in
            // The homes as an earlier version left them: paired, no secrets.
            for home in [pair.phoneHome, pair.watchHome] { try FileManager.default.removeItem(atPath: home + "/pairing-secrets") }
            try pair.startPhone()
            try pair.startWatch()
            let ids = try pair.record(3)
            try pair.waitUntil("the watch says why it cannot connect") {
                logText(pair.watchLog).split(separator: "\n").contains {
                    $0.contains("event=link.cannot-say-hello") && $0.contains("is missing") && $0.contains("pair the homes again")
                }
            }
            #expect(try pair.logbookIDs().isEmpty)
            // The phone, asked by a watch that has a secret when it has none, says the same.
            let watchFile = try Self.secretPath(pair.watchHome)
            try PairingSecrets(home: pair.watchHome).write(PairingSecret.generate(), pairingID: String(watchFile.split(separator: "/").last!))
            try pair.waitUntil("the phone says why it refuses") { !Self.refusals(pair.phoneLog, "pair the homes again").isEmpty }
            let again = try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome])
            #expect(again.status == 0 && again.stdout.hasPrefix("already paired"), "\(again.stderr)")
            try pair.waitUntil("the three runs arrive") { Set(try pair.logbookIDs()) == Set(ids) }
            try pair.expectDrainedAndClean(stored: 3)
        }
    }

    /// `runway unpair` removes the pair's secret from both homes: the two no longer connect (each says
    /// why); paired again, they have a new one and speak.
    @Test func unpairRemovesTheSecretAndPairingAgainMakesANewOne() throws {
        try withPair(tag: "sec-unpair") { pair in
            let state = pair.root + "/state"
            let registered = try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome], environment: ["RUNWAY_STATE_DIR": state])
            #expect(registered.status == 0, "\(registered.stderr)")
            let phoneFile = try Self.secretPath(pair.phoneHome)
            let before = try Filesystem.readFile(phoneFile)
            let unpaired = try runTool(["unpair", "default"], environment: ["RUNWAY_STATE_DIR": state])
            #expect(unpaired.status == 0, "\(unpaired.stderr)")
            let watchFile = try Self.secretPath(pair.watchHome)
            #expect(Filesystem.kind(of: phoneFile) == .missing && Filesystem.kind(of: watchFile) == .missing)
            try pair.startPhone()
            try pair.startWatch()
            let ids = try pair.record(2)
            try pair.waitUntil("the watch says why it cannot connect") {
                logText(pair.watchLog).contains("event=link.cannot-say-hello")
            }
            #expect(try pair.logbookIDs().isEmpty)
            let again = try runTool(["pair", "--phone", pair.phoneHome, "--watch", pair.watchHome], environment: ["RUNWAY_STATE_DIR": state])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try Filesystem.readFile(phoneFile) != before, "a new secret")
            try pair.waitUntil("the runs arrive") { Set(try pair.logbookIDs()) == Set(ids) }
            try pair.expectDrainedAndClean(stored: 2)
        }
    }
}
