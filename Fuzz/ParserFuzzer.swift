import Glibc

// The libFuzzer target of every parser of outside text (issue 22: every parser total): ISO 8601,
// durations, versions, typed JSON, control requests, live-run samples, timeline files, the pair
// registry and the command line. One binary; RUNWAY_FUZZ_TARGET names the parser (`ParserTarget`, set
// by `scripts/fuzz --target NAME`). The properties live in Tests/ParserTests/ParserProperties.swift,
// shared with `ParserPropertyTests`; a broken property is a crash here, and libFuzzer saves the input.
//
// Built and run by scripts/fuzz (SwiftPM does not build -sanitize=fuzzer targets); this directory is
// outside Sources/, so `swift build` never sees it.

nonisolated(unsafe) var fuzzTarget = ParserTarget.iso8601

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var tally = ParserProperties.Tally()
    do throws(ParserProperties.Violation) {
        try ParserProperties.check(fuzzTarget, Array(UnsafeBufferPointer(start: data, count: size)), tally: &tally)
    } catch {
        fatalError("\(fuzzTarget.rawValue) property broken: \(error)")
    }
    return 0
}

/// Reads RUNWAY_FUZZ_TARGET; with RUNWAY_FUZZ_WRITE_SEEDS=DIR, writes every target's seeds
/// (`ParserSeeds`) to DIR/TARGET/seed-NAME and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    if let name = getenv("RUNWAY_FUZZ_TARGET").map({ String(cString: $0) }) {
        guard let target = ParserTarget(rawValue: name) else {
            fputs("RUNWAY_FUZZ_TARGET=\(name) is not one of \(ParserTarget.allCases.map(\.rawValue).joined(separator: ", "))\n", stderr)
            exit(2)
        }
        fuzzTarget = target
    }
    guard let directory = getenv("RUNWAY_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else { return 0 }
    var written = 0
    for target in ParserTarget.allCases {
        let folder = directory + "/" + target.rawValue
        mkdir(folder, 0o755)
        for (name, bytes) in ParserSeeds.all(target) {
            let path = folder + "/seed-" + name
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0, bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
                fatalError("cannot write \(path)")
            }
            close(fd)
            written += 1
        }
    }
    print("wrote \(written) parser seeds to \(directory)")
    exit(0)
}
