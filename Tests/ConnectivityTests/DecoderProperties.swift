import Control
import Connectivity
import JSONText
import Posix
import PropertyLists

/// What every decoder of bytes from the other end of a socket must do with any input at all: return a
/// value or throw its own typed error — never trap, never allocate from a length it has not checked —
/// and agree with its encoder about whatever it accepts.
///
/// One definition for two runners: the libFuzzer target (`Fuzz/FrameFuzzer.swift`, built by
/// `scripts/fuzz`) and the replay test (`DecoderFuzzReplayTests`). No `Testing` here, so the fuzzer can
/// compile this file as it is.
enum DecoderProperties {
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    /// What the inputs came to: evidence that a run reached both the accepting and the refusing paths.
    struct Tally {
        var frames = 0
        var frameErrors = 0
        var accepted = 0
        var refused = 0
    }

    /// Runs `bytes` through the frame decoder (whole, and split in two), then every payload decoder over
    /// the input itself and over each frame's payload.
    static func check(_ bytes: UnsafeRawBufferPointer, tally: inout Tally) throws(Violation) {
        let frames = try checkFrames(bytes, decoder: FrameDecoder(), tally: &tally)
        for frame in frames {
            try checkPayload(frame.payload, tally: &tally)
        }
        try checkHandshake(frames, tally: &tally)
        let whole = Array(bytes)
        try checkPayload(whole, tally: &tally)
        try checkPeekedHello(bytes, tally: &tally)
        // The control socket's decoder: a larger limit, JSON inside.
        for frame in try checkFrames(bytes, decoder: ControlFrameDecoder(maximumLength: 1 << 20), tally: &tally) {
            try checkJSON(frame.payload, tally: &tally)
        }
    }

    // MARK: - Frames

    /// Decodes frame after frame from the start of `bytes`; then again through a `ByteBuffer` fed in two
    /// pieces (split where the input's first byte says). Both must agree, and every frame must re-encode
    /// to exactly the bytes it came from.
    static func checkFrames<Kind>(_ bytes: UnsafeRawBufferPointer, decoder: WireFrameDecoder<Kind>, tally: inout Tally) throws(Violation) -> [WireFrame<Kind>] {
        var frames: [WireFrame<Kind>] = []
        var failure: FrameError?
        var offset = 0
        while true {
            let next: (frame: WireFrame<Kind>, consumed: Int)?
            do throws(FrameError) {
                next = try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            } catch {
                failure = error
                break
            }
            guard let (frame, consumed) = next else { break }
            guard consumed == 6 + frame.payload.count, consumed <= bytes.count - offset,
                frame.encoded.elementsEqual(bytes[offset..<offset + consumed])
            else {
                throw Violation(description: "frame at \(offset) does not re-encode to its \(consumed) bytes")
            }
            frames.append(frame)
            offset += consumed
        }
        if failure == nil {
            // Nothing more came out: what is left must be the start of a frame worth waiting for.
            let rest = bytes.count - offset
            if rest >= 4 {
                let declared = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                guard declared >= 2, declared <= decoder.maximumLength else {
                    throw Violation(description: "a length of \(declared) was waited for instead of refused")
                }
                guard 4 + declared > rest else { throw Violation(description: "a whole frame of \(declared) bytes was left undecoded") }
            }
            tally.frames += frames.count
        } else {
            tally.frameErrors += 1
        }

        let buffer = ByteBuffer(capacity: 64)
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
        buffer.append(UnsafeRawBufferPointer(rebasing: bytes[..<split]))
        var (streamed, streamFailure) = decoder.decodeAll(from: buffer)
        if streamFailure == nil {
            buffer.append(UnsafeRawBufferPointer(rebasing: bytes[split...]))
            let second = decoder.decodeAll(from: buffer)
            streamed += second.frames
            streamFailure = second.error
        }
        guard streamed == frames, streamFailure == failure else {
            throw Violation(
                description:
                    "split at \(split): \(streamed.count) frames and \(String(describing: streamFailure)), whole: \(frames.count) frames and \(String(describing: failure))"
            )
        }
        return frames
    }

    /// phone-os's peek at a watch's first bytes agrees with the link's decoder under the peek's limit:
    /// a `hello` it reads is that decoder's first frame, whole; what it waits for, the decoder waits for;
    /// what it refuses is a bad header, another frame type or a payload that is not a handshake.
    static func checkPeekedHello(_ bytes: UnsafeRawBufferPointer, tally: inout Tally) throws(Violation) {
        let decoder = FrameDecoder(maximumLength: PeekedHello.maximumLength)
        let first = Result { () throws(FrameError) in try decoder.decode(bytes) }
        switch PeekedHello(bytes) {
        case let .hello(hello, frameLength):
            guard case let .success((frame, consumed)?) = first, frame.type == .hello, consumed == frameLength,
                (try? Handshake(decoding: frame.payload)) == hello
            else { throw Violation(description: "the peeked hello is not the decoder's first frame") }
            tally.accepted += 1
        case .incomplete:
            guard case .success(nil) = first else { throw Violation(description: "the peek waits for a frame the decoder has or refuses") }
        case .refused:
            if case let .success((frame, _)?) = first, frame.type == .hello, (try? Handshake(decoding: frame.payload)) != nil {
                throw Violation(description: "the peek refused a whole, readable hello")
            }
            tally.refused += 1
        }
    }

    // MARK: - The handshake

    /// A side of the link that takes any pairing and holds a secret the input cannot know.
    final class Party: LinkHandshakeParty {
        let handshake: Handshake
        init(_ role: DeviceRole) {
            handshake = Handshake(role: role, deviceID: "D", pairingID: "P", appVersion: "1.4", resumeSeq: 0)
        }
        func makeHandshake() throws -> Handshake { handshake }
        func validate(_ handshake: Handshake) -> WCError? { nil }
        func pairingSecret() throws(WCError) -> PairingSecret { PairingSecret(bytes: Array(repeating: 0xC3, count: PairingSecret.length))! }
    }

    /// The input's frames, fed to a fresh acceptor and a fresh initiator (fixed nonces: the run is
    /// repeatable): whatever they are, no link comes up — only the pair's secret can prove it — and the
    /// handshake ends at its first refusal (nothing after it is the handshake's).
    static func checkHandshake(_ frames: [Frame], tally: inout Tally) throws(Violation) {
        for side in [LinkHandshake.Side.acceptor, .initiator] {
            var handshake = LinkHandshake(side: side, nonce: Array(repeating: side == .acceptor ? 1 : 2, count: LinkProof.nonceLength))
            let party = Party(side == .acceptor ? .phone : .watch)
            _ = handshake.opening(party)
            for frame in frames {
                guard handshake.phase != .done else { break }
                for step in handshake.receive(frame, party) {
                    if case .establish = step { throw Violation(description: "a link came up on bytes that cannot hold the pair's proof") }
                }
            }
            tally.refused += 1
        }
    }

    // MARK: - Payloads

    /// Every payload decoder of the link over `payload`; whatever one accepts must survive its encoder.
    /// (Each decoder throws only its own `DecodeError`: typed throws make that a compile-time fact.)
    static func checkPayload(_ payload: [UInt8], tally: inout Tally) throws(Violation) {
        if let dictionary = try? PropertyListCodec.decodeDictionary(payload) {
            // Encoding is deterministic (sorted keys): encode ∘ decode must reach a fixed point. Bytes,
            // not values, are compared: a NaN real is not equal to itself.
            let encoded = PropertyListCodec.encode(dictionary)
            guard let again = try? PropertyListCodec.decodeDictionary(encoded) else {
                throw Violation(description: "an accepted dictionary re-encodes to bytes its decoder refuses")
            }
            guard PropertyListCodec.encode(again) == encoded else { throw Violation(description: "dictionary encoding is not stable") }
            tally.accepted += 1
        } else {
            tally.refused += 1
        }

        // The in-place reader is stricter than the decoder, never looser: what it reads, the decoder
        // decodes, to the same entries.
        var inPlace: [(key: String, value: EncodedDictionary.Value)] = []
        let readInPlace = payload.withUnsafeBytes { raw in
            (try? EncodedDictionary.forEachEntry(raw) { key, value in
                inPlace.append((String(decoding: key, as: UTF8.self), value))
            }) != nil
        }
        if readInPlace {
            guard let dictionary = try? PropertyListCodec.decodeDictionary(payload), dictionary.count == inPlace.count else {
                throw Violation(description: "the in-place reader accepted a dictionary the decoder refuses")
            }
            for (key, value) in inPlace where !agrees(value, dictionary[key]) {
                throw Violation(description: "the in-place reader and the decoder disagree on \(key)")
            }
            tally.accepted += 1
        } else {
            tally.refused += 1
        }

        if let handshake = try? Handshake(decoding: payload) {
            guard (try? Handshake(decoding: handshake.encoded)) == handshake else {
                throw Violation(description: "an accepted handshake does not survive its encoder")
            }
            tally.accepted += 1
        } else {
            tally.refused += 1
        }

        // A file's description (`fileBegin`): what is accepted has a size within the limit, a 32-byte
        // checksum and a name that is one harmless path component, and survives its encoder.
        if let description = try? FileDescription(decoding: payload) {
            guard description.size >= 0, description.size <= FileTransferLimits.maximumFileBytes, description.sha256.count == 32,
                !description.name.isEmpty, !description.name.contains("/"), description.name != ".", description.name != "..",
                description.name.utf8.count <= FileTransferLimits.maximumNameBytes
            else { throw Violation(description: "an accepted file description breaks its own limits") }
            guard (try? FileDescription(decoding: description.encoded)) == description else {
                throw Violation(description: "an accepted file description does not survive its encoder")
            }
            tally.accepted += 1
        } else {
            tally.refused += 1
        }

        if let error = try? ErrorFrame.decode(payload) {
            guard (try? ErrorFrame.decode(ErrorFrame.encode(error))) == error else {
                throw Violation(description: "an accepted error frame does not survive its encoder")
            }
            tally.accepted += 1
        } else {
            tally.refused += 1
        }

        // A pairing secret's file (`HOME/pairing-secrets`): 64 hex digits, at most one newline, or refused.
        if let secret = try? PairingSecret(parsing: payload) {
            guard secret.bytes.count == PairingSecret.length, (try? PairingSecret(parsing: secret.fileText)) == secret else {
                throw Violation(description: "an accepted pairing secret does not survive its writer")
            }
            tally.accepted += 1
        } else {
            tally.refused += 1
        }

        if let (number, body) = try? SequencedFrame.split(payload) {
            let frame = SequencedFrame.frame(.userInfo, number: number, body: Array(body))
            guard frame.dropFirst(6).elementsEqual(payload) else {
                throw Violation(description: "a sequenced payload does not survive its encoder")
            }
            tally.accepted += 1
        } else {
            tally.refused += 1
        }
    }

    static func agrees(_ value: EncodedDictionary.Value, _ decoded: PropertyListValue?) -> Bool {
        switch (value, decoded) {
        case let (.string(raw), .string(text)?): return Array(raw) == Array(text.utf8)
        case let (.integer(a), .integer(b)?): return a == b
        case let (.real(a), .real(b)?), let (.date(a), .date(b)?): return a.bitPattern == b.bitPattern
        case let (.bool(a), .bool(b)?): return a == b
        case let (.data(raw), .data(bytes)?): return Array(raw) == bytes
        case let (.container, b?):
            // The same value, compared by its deterministic encoding (NaN is not equal to itself).
            switch b {
            case .array, .dictionary: break;
            default: return false
            }
            guard let a = value.decodedContainer else { return false }
            var left = ByteWriter(capacity: 64), right = ByteWriter(capacity: 64)
            PropertyListCodec.encode(a, into: &left)
            PropertyListCodec.encode(b, into: &right)
            return left.bytes == right.bytes
        default: return false
        }
    }

    /// The control socket's JSON: parsed or refused; what is accepted must be written back as JSON that
    /// parses again (every reply of the CLI depends on it).
    static func checkJSON(_ payload: [UInt8], tally: inout Tally) throws(Violation) {
        guard let value = try? JSONValue(parsing: payload) else {
            tally.refused += 1
            return
        }
        var writer = JSONWriter()
        writer.write(value)
        guard (try? JSONValue(parsing: writer.bytes)) != nil else {
            throw Violation(description: "JSON written from an accepted value does not parse")
        }
        tally.accepted += 1
    }
}
