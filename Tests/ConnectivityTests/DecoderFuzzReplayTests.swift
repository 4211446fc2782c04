import Posix
import Connectivity
import Foundation
import RunWayApp
import Testing

/// The fuzzer's properties (`DecoderProperties`) in every `swift test`: the committed corpus
/// (`Fuzz/corpus/`: the seeds and what fuzzing found worth keeping) and a few thousand seeded mutations
/// of the seeds — bit flips, truncations, lying lengths and counts, splices, random bytes.
@Suite struct DecoderFuzzReplayTests {
    static let corpusDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus").path

    static func corpus() throws -> [(name: String, bytes: [UInt8])] {
        try FileManager.default.contentsOfDirectory(atPath: corpusDirectory).sorted().map { name in
            (name, Array(try Data(contentsOf: URL(fileURLWithPath: corpusDirectory + "/" + name))))
        }
    }

    func check(_ bytes: [UInt8], _ name: String, tally: inout DecoderProperties.Tally) {
        var violation: DecoderProperties.Violation?
        bytes.withUnsafeBytes { raw in
            do throws(DecoderProperties.Violation) { try DecoderProperties.check(raw, tally: &tally) } catch { violation = error }
        }
        if let violation {
            Issue.record("\(name): \(violation) — input starts \(bytes.prefix(64).map { String($0, radix: 16) })")
        }
    }

    /// The committed seeds are the ones the code makes today (`scripts/fuzz --write-seeds` renews them).
    @Test func theCorpusHoldsTheCurrentSeeds() throws {
        let files = Dictionary(try Self.corpus().map { ($0.name, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        for seed in DecoderSeeds.all {
            #expect(files["seed-" + seed.name] == seed.bytes, "Fuzz/corpus/seed-\(seed.name) is missing or stale")
        }
    }

    @Test func everyCorpusInputKeepsTheProperties() throws {
        let corpus = try Self.corpus()
        #expect(corpus.count >= DecoderSeeds.all.count)
        var tally = DecoderProperties.Tally()
        for (name, bytes) in corpus { check(bytes, name, tally: &tally) }
        #expect(tally.frames > 0 && tally.accepted > 0)
    }

    @Test func thousandsOfMalformedInputsKeepTheProperties() throws {
        let bases = DecoderSeeds.all.map(\.bytes) + (try Self.corpus().map(\.bytes))
        var random = SeededGenerator(seed: 0x5EED_F00D)
        var tally = DecoderProperties.Tally()
        for index in 0..<5000 {
            let base = bases[Int(random.next() % UInt64(bases.count))]
            let input = Mutation.allCases[index % Mutation.allCases.count].apply(to: base, random: &random)
            check(input, "mutation \(index)", tally: &tally)
        }
        // Both paths were reached, many times: the mutations are neither all fatal nor all harmless.
        #expect(tally.frames > 500)
        #expect(tally.frameErrors > 500)
        #expect(tally.accepted > 1000)
        #expect(tally.refused > 1000)
    }

    /// A lying length prefix is refused from its four bytes, whatever follows.
    @Test(arguments: [0, 1, UInt32(Frame.maximumLength) + 1, 0x7FFF_FFFF, 0xFFFF_FFFF])
    func aLyingLengthIsRefusedAtOnce(length: UInt32) {
        var bytes = Frame(.hello, DecoderSeeds.handshake.encoded).encoded
        bytes.replaceSubrange(0..<4, with: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        #expect(throws: FrameError.self) { try bytes.prefix(4).withUnsafeBytes { try FrameDecoder().decode($0) } }
    }
}

// MARK: - Mutations

enum Mutation: CaseIterable {
    case flipBits, truncate, lieAboutALength, lieAboutACount, splice, insertBytes, deleteBytes, randomBytes

    func apply(to base: [UInt8], random: inout SeededGenerator) -> [UInt8] {
        var bytes = base
        func position(_ count: Int) -> Int { count == 0 ? 0 : Int(random.next() % UInt64(count)) }
        switch self {
        case .flipBits:
            for _ in 0...(random.next() % 8) where !bytes.isEmpty {
                bytes[position(bytes.count)] ^= 1 << UInt8(random.next() % 8)
            }
        case .truncate:
            bytes = Array(bytes.prefix(position(bytes.count + 1)))
        case .lieAboutALength:
            // The frame's own length, or any 32-bit field: zero, tiny, just over the limit, huge, or off by a little.
            let lies: [UInt32] = [
                0, 1, 2, 5, UInt32(Frame.maximumLength), UInt32(Frame.maximumLength + 1), 0x7FFF_FFFF, 0xFFFF_FFFF,
                UInt32(max(0, bytes.count - 4 + Int(random.next() % 7) - 3)),
            ]
            let lie = lies[Int(random.next() % UInt64(lies.count))]
            let at = random.next() % 2 == 0 ? 0 : position(max(0, bytes.count - 3))
            writeUInt32(lie, at: at, in: &bytes)
        case .lieAboutACount:
            // Property-list counts follow a dictionary (1), array (2), string (3) or data (9) tag.
            let tags = bytes.indices.filter { [1, 2, 3, 9].contains(bytes[$0]) && $0 + 4 < bytes.count }
            guard !tags.isEmpty else { return bytes }
            let lies: [UInt32] = [0, 1, 0xFFFF, 0x00FF_FFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32(random.next() % 4096)]
            writeUInt32(lies[Int(random.next() % UInt64(lies.count))], at: tags[position(tags.count)] + 1, in: &bytes)
        case .splice:
            let other = DecoderSeeds.all[position(DecoderSeeds.all.count)].bytes
            bytes = Array(bytes.prefix(position(bytes.count + 1))) + Array(other.suffix(position(other.count + 1)))
        case .insertBytes:
            let noise = (0..<(1 + random.next() % 32)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes.insert(contentsOf: noise, at: position(bytes.count + 1))
        case .deleteBytes:
            guard !bytes.isEmpty else { return bytes }
            let start = position(bytes.count)
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + Int(random.next() % 16)))
        case .randomBytes:
            bytes = (0..<(random.next() % 512)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        }
        return bytes
    }

    private func writeUInt32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for i in 0..<4 where offset + i < bytes.count {
            bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i))
        }
    }
}
