import Connectivity
import Foundation
import Posix
import Testing
@testable import RunWayApp
@testable import RunWayDomain

/// The fuzzer's flight properties (`FlightProperties`) in every `swift test`: over the committed corpus,
/// and over thousands of seeded mutations of flights that put extreme bit patterns into their numbers.
@Suite struct FlightFuzzReplayTests {
    static let corpusDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus").path

    func check(_ bytes: [UInt8], _ name: String, tally: inout FlightProperties.Tally) {
        var violation: FlightProperties.Violation?
        bytes.withUnsafeBytes { raw in
            do throws(FlightProperties.Violation) { try FlightProperties.check(raw, tally: &tally) } catch { violation = error }
        }
        if let violation { Issue.record("\(name): \(violation)") }
    }

    @Test func theCorpusHoldsTheFlightSeeds() throws {
        for seed in FlightProperties.seeds {
            let path = Self.corpusDirectory + "/seed-" + seed.name
            let current = FileManager.default.contents(atPath: path).map(Array.init) == seed.bytes
            #expect(current, "Fuzz/corpus/seed-\(seed.name) is missing or stale (scripts/fuzz --write-seeds)")
        }
    }

    @Test func everyCorpusInputKeepsTheFlightProperties() throws {
        var tally = FlightProperties.Tally()
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.corpusDirectory).sorted() {
            check(Array(try Data(contentsOf: URL(fileURLWithPath: Self.corpusDirectory + "/" + name))), name, tally: &tally)
        }
        #expect(tally.flights > 0 && tally.refused > 0)
    }

    /// Each mutation overwrites one 8-byte number (found by its tag) with an extreme bit pattern, or
    /// flips bits anywhere.
    @Test func thousandsOfExtremeFlightsKeepTheProperties() {
        var random = SeededGenerator(seed: 0xF11_6475)
        let bases = FlightProperties.seeds.map(\.bytes)
        let patterns: [UInt64] = [
            Double.nan.bitPattern, Double.infinity.bitPattern, (-Double.infinity).bitPattern, (1e300).bitPattern,
            (-1e300).bitPattern, Double.greatestFiniteMagnitude.bitPattern, (9.3e18).bitPattern, 0, 0x8000_0000_0000_0000,
            (FlightLimits.latestTime).bitPattern, (FlightLimits.earliestTime - 1).bitPattern, UInt64.max,
        ]
        var tally = FlightProperties.Tally()
        for index in 0..<4000 {
            var bytes = bases[Int(random.next() % UInt64(bases.count))]
            if index % 3 == 0 {
                for _ in 0...(random.next() % 4) { bytes[Int(random.next() % UInt64(bytes.count))] ^= 1 << UInt8(random.next() % 8) }
            } else {
                // Real (5) and date (8) tags are followed by 8 bytes of number.
                let numbers = bytes.indices.filter { [5, 8].contains(bytes[$0]) && $0 + 8 < bytes.count }
                let at = numbers[Int(random.next() % UInt64(numbers.count))] + 1
                var value = patterns[Int(random.next() % UInt64(patterns.count))]
                if index % 3 == 2 { value = random.next() }
                for i in 0..<8 { bytes[at + i] = UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(i))) }
            }
            check(bytes, "mutation \(index)", tally: &tally)
        }
        #expect(tally.flights > 50)
        #expect(tally.refused > 1000)
    }
}
