import Control
import Connectivity
import PropertyLists

/// Valid inputs for the decoders, the starting points of fuzzing: a frame of every type with a
/// realistic payload, a stream of several frames, and bare payloads (property lists, a handshake, an
/// error). `scripts/fuzz --write-seeds` writes them to `Fuzz/corpus/`; the replay test also mutates them.
/// No `Testing` here, so the fuzzer can compile this file as it is.
enum DecoderSeeds {
    static let handshake = Handshake(
        role: .watch, deviceID: "5C1A6E2B-0D4F-4E8A-9B7C-2F3E4D5A6B7C",
        pairingID: "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D", appVersion: "1.3",
        resumeSeq: 41, appInstalled: true, appActive: false)

    /// A flight as the watch app sends it, with every kind of property-list value.
    static let flight: UserInfo = [
        "id": .string("7F3C2A10-9B8E-4D6F-A1B2-C3D4E5F60718"),
        "distanceKm": .real(5.02),
        "durationSeconds": .integer(1712),
        "startedAt": .date(1_764_400_000.5),
        "finished": .bool(true),
        "paused": .bool(false),
        "samples": .data((0..<96).map { UInt8(truncatingIfNeeded: $0 &* 37) }),
        "splits": .array([.real(301.5), .real(298.25), .integer(305)]),
        "device": .dictionary(["model": .string("Watch7,3"), "os": .string("watchOS 11"), "laps": .array([])]),
    ]

    static let error = WCError(.deviceNotPaired, "watch 5C1A (pairing A1B2) is not paired with this phone")

    static let fileDescription = FileDescription(
        name: "route.gpx", size: 4096, sha256: Array(repeating: 0xAB, count: 32), metadata: ["kind": .string("gpx")])

    static func json(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Every seed, named for its file in the corpus.
    static var all: [(name: String, bytes: [UInt8])] {
        let userInfo = PropertyListCodec.encode(flight)
        var seeds: [(String, [UInt8])] = [
            ("frame-hello", Frame(.hello, handshake.encoded).encoded),
            ("frame-welcome", Frame(.welcome, handshake.encoded).encoded),
            ("frame-error", Frame(.error, ErrorFrame.encode(error)).encoded),
            ("frame-userinfo", SequencedFrame.frame(.userInfo, number: 42, body: userInfo)),
            ("frame-ack", SequencedFrame.frame(.ack, number: 42)),
            ("frame-appstate", Frame(.appState, PropertyListCodec.encode(["appInstalled": .bool(true), "appActive": .bool(true)])).encoded),
            ("frame-context", SequencedFrame.frame(.applicationContext, number: 3, body: PropertyListCodec.encode(["goalKm": .real(10)]))),
            ("frame-contextack", SequencedFrame.frame(.contextAck, number: 3)),
            ("frame-message", SequencedFrame.frame(.message, number: 7, body: PropertyListCodec.encode(["ping": .integer(1)]))),
            ("frame-messagereply", SequencedFrame.frame(.messageReply, number: 7, body: PropertyListCodec.encode(["pong": .integer(1)]))),
            ("frame-messageerror", SequencedFrame.frame(.messageError, number: 7, body: ErrorFrame.encode(WCError(.messageReplyTimedOut, "no reply")))),
            ("frame-request", ControlFrame(.request, json(#"{"command":"record","count":3,"distanceKm":5.5,"seed":7}"#)).encoded),
            ("frame-response", ControlFrame(.response, json(#"{"ok":false,"error":{"message":"no such flight","exitStatus":2}}"#)).encoded),
            ("frame-chunk", ControlFrame(.chunk, json(#"[{"id":"A","distanceKm":5.02,"startedAt":"2025-11-29T07:06:40Z"}]"#)).encoded),
            ("frame-end", ControlFrame(.end).encoded),
            ("frame-event", ControlFrame(.event, json(#"{"event":"watchState","reachable":true,"watchAppInstalled":true}"#)).encoded),
            ("plist-flight", userInfo),
            ("plist-nested", PropertyListCodec.encode(["a": .array([.dictionary(["b": .array([.dictionary(["c": .string("deep")])])])])])),
            ("plist-empty", PropertyListCodec.encode([:])),
            ("payload-handshake", handshake.encoded),
            ("payload-error", ErrorFrame.encode(error)),
            ("frame-messagedata", SequencedFrame.frame(.messageData, number: 8, body: [0, 1, 2, 0xFF])),
            ("frame-complication", SequencedFrame.frame(.complicationUserInfo, number: 2, body: PropertyListCodec.encode(["next": .string("7 km")]))),
            ("frame-filebegin", SequencedFrame.frame(.fileBegin, number: 1, body: fileDescription.encoded)),
            ("frame-filechunk", SequencedFrame.frame(.fileChunk, number: 1, body: [0, 0, 0, 0, 0, 0, 0, 0] + Array(repeating: 0x61, count: 64))),
            ("frame-fileprogress", SequencedFrame.frame(.fileProgress, number: 1, body: [0, 0, 0, 0, 0, 0, 0, 64])),
            ("payload-file", fileDescription.encoded),
        ]
        // The handshake with its nonces and a proof (not a valid one: the property is that none is forged).
        var challenged = handshake
        challenged.nonce = Array(repeating: 0x5A, count: LinkProof.nonceLength)
        challenged.contextVersion = 4
        challenged.contextHeld = 2
        seeds.append(("frame-hello-nonce", Frame(.hello, challenged.encoded).encoded))
        seeds.append(("stream-welcome-proof", Frame(.welcome, challenged.encoded).encoded + Frame(.proof, Array(repeating: 0x11, count: 32)).encoded))
        seeds.append(
            (
                "stream-hello-proof-userinfo",
                Frame(.hello, challenged.encoded).encoded + Frame(.proof, Array(repeating: 0x22, count: 32)).encoded
                    + SequencedFrame.frame(.userInfo, number: 1, body: userInfo)
            ))
        seeds.append(("frame-filecancel", SequencedFrame.frame(.fileCancel, number: 2)))
        seeds.append(("frame-fileack", SequencedFrame.frame(.fileAck, number: 1)))
        // A session's opening: hello, three transfers and an acknowledgement in one read.
        var stream = Frame(.hello, handshake.encoded).encoded
        for seq in 1...3 { stream += SequencedFrame.frame(.userInfo, number: Int64(seq), body: userInfo) }
        stream += SequencedFrame.frame(.ack, number: 9)
        seeds.append(("stream-session", stream))
        return seeds
    }
}
