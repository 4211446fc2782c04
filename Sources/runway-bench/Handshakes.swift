import Connectivity
import Foundation
import PairTesting
import Posix
import Storage

/// The link's handshake, timed (`--only-handshakes N`): one phone-daemon, and a watch that connects N
/// times in a row — a reconnect storm, each connection a new handshake that replaces the last — as the
/// real watch would: its `hello` from its home's store with a fresh nonce, the phone's `welcome` and
/// proof checked, its own answer, then a data message whose reply is the first thing the link carries.
/// Three figures per connection: connect → the phone's `welcome` and proof (the phone's half: the
/// pairing, its handshake from the store, its secret read and its HMAC); the watch's half (its secret
/// read, the phone's proof checked, its answer: timed in-process); connect → the reply. Against a phone
/// from before the secret (`RUNWAY_BIN_DIR` pointing at an older build) the `welcome` carries no nonce:
/// the first figure is connect → `welcome`, and no proof is made — the same storm, before and after.
struct HandshakeStorm {
    let count: Int

    struct Result {
        var toWelcome = Sample()
        var watchSide = Sample()
        var toReply = Sample()
        var proved = false
    }

    func run() throws -> Result {
        let pair = try SimulatedPair(tag: "hs")
        defer { pair.cleanUp() }
        let phone = try ChildProcess(
            "phone-daemon", ["--home", pair.phoneHome], stdout: .pipe, stderr: .file(pair.phoneLog, append: true),
            environment: DaemonProcess.environment(SimulatedPair.neutralLanguageEnvironment), removing: ["RUNWAY_CRASH_AT"])
        defer { phone.kill() }
        try phone.waitForLine("ready", timeout: 120)
        let store = try Database(path: pair.watchHome + "/store.sqlite", readOnly: true)
        guard let (said, pairing) = SessionStoreReader(database: store).handshake(role: .watch) else { throw HarnessError("the watch's home holds no pairing") }
        store.close()
        var result = Result()
        progress("handshakes: \(count) connections in a row to one phone-daemon")
        for index in 0..<count {
            var hello = said
            hello.nonce = LinkProof.freshNonce()
            let helloPayload = hello.encoded
            let started = now()
            let socket = try BenchSocket(path: pair.phoneHome + "/link.sock")
            socket.send(Frame(.hello, helloPayload).encoded)
            guard let welcome = try socket.next(), welcome.type == .welcome, let welcomed = try? Handshake(decoding: welcome.payload) else {
                throw HarnessError("connection \(index): no welcome (the phone's log: \(pair.phoneLog))")
            }
            if !welcomed.nonce.isEmpty {
                guard let proof = try socket.next(), proof.type == .proof else { throw HarnessError("connection \(index): no proof after the welcome") }
                result.toWelcome.add((now() - started) * 1000)
                let watchStarted = now()
                let secret = try PairingSecrets(home: pair.watchHome).read(pairingID: pairing.pairingID)
                guard LinkProof.verify(proof.payload, by: .phone, secret: secret, hello: helloPayload, welcome: welcome.payload) else {
                    throw HarnessError("connection \(index): the phone's proof does not check")
                }
                let answer = LinkProof.proof(by: .watch, secret: secret, hello: helloPayload, welcome: welcome.payload)
                result.watchSide.add((now() - watchStarted) * 1000)
                socket.send(Frame(.proof, answer).encoded)
                result.proved = true
            } else {
                result.toWelcome.add((now() - started) * 1000)
            }
            socket.send(SequencedFrame.frame(.messageData, number: 1, body: [1, 2, 3, 4]))
            while let frame = try socket.next() {
                if frame.type == .messageDataReply || frame.type == .messageError { break }
                if frame.type == .error { throw HarnessError("connection \(index): refused: \((try? ErrorFrame.decode(frame.payload))?.message ?? "?")") }
            }
            result.toReply.add((now() - started) * 1000)
            socket.close()
        }
        return result
    }
}

/// A blocking Unix-socket client that cuts link frames as they come (the storm's watch).
final class BenchSocket {
    private let descriptor: FileDescriptor
    private var buffer: [UInt8] = []

    init(path: String) throws {
        let address = try UnixSocketAddress(path: path)
        descriptor = try UnixSocket.connect(to: address, nonBlocking: false)
    }

    func send(_ bytes: [UInt8]) { try? descriptor.writeAll(bytes) }

    /// The next whole frame, waiting up to 10 s for it; nil at end of file.
    func next() throws -> Frame? {
        let decoder = FrameDecoder()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let (frame, used) = try buffer.withUnsafeBytes({ (raw) throws(FrameError) in try decoder.decode(raw) }) {
                buffer.removeFirst(used)
                return frame
            }
            guard try descriptor.waitUntil(.readable, timeoutMilliseconds: 10_000) else { throw HarnessError("no frame within 10 s") }
            let n = try descriptor.readBlocking(into: &chunk)
            if n == 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    func close() { descriptor.close() }
}
