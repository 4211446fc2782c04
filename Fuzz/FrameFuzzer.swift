import Connectivity
import Glibc

// The libFuzzer target of the link's decoders: the frame decoder (both limits), the handshake, the
// property-list codec, error frames, sequenced payloads and the control socket's JSON. The properties
// live in Tests/ConnectivityTests/DecoderProperties.swift, shared with the replay test that `swift test`
// runs; a broken property is a crash here, and libFuzzer saves the input that broke it.
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
    return 0
}

/// With RUNWAY_FUZZ_WRITE_SEEDS=DIR, writes the seed corpus (`DecoderSeeds`) to DIR and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    guard let directory = getenv("RUNWAY_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else { return 0 }
    for (name, bytes) in DecoderSeeds.all {
        let path = directory + "/seed-" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0, bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            fatalError("cannot write \(path)")
        }
        close(fd)
    }
    print("wrote \(DecoderSeeds.all.count) seeds to \(directory)")
    exit(0)
}
