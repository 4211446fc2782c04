import Connectivity
import RunWayApp
import Glibc

// The libFuzzer target of the link's decoders: the frame decoder (both limits), the handshake, the
// property-list codec, error frames, sequenced payloads and the control socket's JSON — and of the phone
// app's decoding and formatting of flight-shaped payloads. The properties live in
// Tests/ConnectivityTests/DecoderProperties.swift and Tests/RunWayAppTests/FlightProperties.swift, shared
// with the replay tests that `swift test` runs; a broken property is a crash here, and libFuzzer saves
// the input that broke it.
//
// Built and run by scripts/fuzz (SwiftPM does not build -sanitize=fuzzer targets); this directory is
// outside Sources/, so `swift build` never sees it.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var tally = DecoderProperties.Tally()
    do throws(DecoderProperties.Violation) {
        try DecoderProperties.check(UnsafeRawBufferPointer(start: data, count: size), tally: &tally)
    } catch {
        fatalError("decoder property broken: \(error)")
    }
    // The input as a userInfo body, and (below) each userInfo frame's body: flight decoding and formatting.
    var flights = FlightProperties.Tally()
    do throws(FlightProperties.Violation) {
        try FlightProperties.check(UnsafeRawBufferPointer(start: data, count: size), tally: &flights)
        let input = UnsafeRawBufferPointer(start: data, count: size)
        var offset = 0
        while offset < size, let (frame, consumed) = try? FrameDecoder().decode(UnsafeRawBufferPointer(rebasing: input[offset...])) {
            offset += consumed
            guard frame.type == .userInfo, let (_, body) = try? SequencedFrame.split(frame.payload) else { continue }
            let bodyBytes = Array(body)
            var violation: FlightProperties.Violation?
            bodyBytes.withUnsafeBytes { raw in
                do throws(FlightProperties.Violation) { try FlightProperties.check(raw, tally: &flights) } catch { violation = error }
            }
            if let violation { throw violation }
        }
    } catch {
        fatalError("flight property broken: \(error)")
    }
    return 0
}

/// With RUNWAY_FUZZ_WRITE_SEEDS=DIR, writes the seed corpus (`DecoderSeeds`) to DIR and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    guard let directory = getenv("RUNWAY_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else { return 0 }
    for (name, bytes) in DecoderSeeds.all + FlightProperties.seeds {
        let path = directory + "/seed-" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0, bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            fatalError("cannot write \(path)")
        }
        close(fd)
    }
    print("wrote \(DecoderSeeds.all.count + FlightProperties.seeds.count) seeds to \(directory)")
    exit(0)
}
