import Foundation
import PairTesting
import Testing

/// `scripts/chaos`, short: random SIGKILLs of both daemons and link cuts while flights are recorded,
/// through the real `runway-chaos` runner and the real binaries.
@Suite(.serialized) struct ChaosTests {
    /// `36 iterations, 20 kills, 632 recorded, 632 stored, 0 lost, 0 duplicated, order kept`
    static var verdict: Regex<(Substring, Substring, Substring, Substring, Substring, Substring, Substring, Substring)> {
        #/^(\d+) iterations, (\d+) kills, (\d+) recorded, (\d+) stored, (\d+) lost, (\d+) duplicated, (order kept|ORDER BROKEN)/#
    }

    @Test func aShortChaosRunLosesNothing() throws {
        let result = try runTool(["--iterations", "36", "--seed", "7"], binary: "runway-chaos")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.stdout.suffix(3000))\n\(result.stderr)")
        #expect(lines.first?.hasPrefix("seed 7 ") == true)
        let last = try #require(lines.last)
        let match = try #require(last.wholeMatch(of: Self.verdict), "last line: \(last)")
        #expect(match.1 == "36")
        #expect(Int(match.2)! >= 15, "seed 7's schedule has 20 kills")
        #expect(Int(match.3)! > 0 && match.3 == match.4)
        #expect(match.5 == "0" && match.6 == "0" && match.7 == "order kept")
    }

    /// The proof that the chaos run can see a loss: RunWay 1.3's phone, killed while it holds received
    /// flights in memory, loses them, and the run fails naming each one.
    @Test func theLegacyPhoneFailsTheChaosRunNamingTheLostIDs() throws {
        let result = try runTool(["--iterations", "36", "--seed", "7", "--legacy"], binary: "runway-chaos")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(result.status == 1)
        let last = try #require(lines.last)
        let match = try #require(last.wholeMatch(of: Self.verdict), "last line: \(last)")
        let lostCount = try #require(Int(match.5))
        #expect(lostCount > 0)
        #expect(match.6 == "0")
        let named = try #require(lines.first { $0.hasPrefix("lost (\(lostCount)): ") })
        let ids = named.split(separator: ":", maxSplits: 1)[1].split(separator: " ")
        #expect(ids.count == lostCount)
        #expect(ids.allSatisfy { UUID(uuidString: String($0)) != nil })
    }

    /// With random link conditions too (latency, jitter, loss, bandwidth, range drawn from the seed):
    /// still nothing lost, duplicated or out of order.
    @Test func aChaosRunWithLinkConditionsLosesNothing() throws {
        let result = try runTool(["--iterations", "24", "--seed", "11", "--link-conditions"], binary: "runway-chaos")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.stdout.suffix(3000))\n\(result.stderr)")
        #expect(lines.first?.contains("--link-conditions") == true)
        #expect(lines.contains { $0.contains("link set --latency") }, "seed 11 draws conditions")
        let last = try #require(lines.last)
        let match = try #require(last.wholeMatch(of: Self.verdict), "last line: \(last)")
        #expect(Int(match.3)! > 0 && match.3 == match.4)
        #expect(match.5 == "0" && match.6 == "0" && match.7 == "order kept")
    }

    /// Under watch-os (SIGKILLs of watch-os, its app jetsammed or closed, the range out and back, which
    /// watch-os answers while the app is down), with link conditions: still nothing lost, duplicated or
    /// out of order.
    @Test func aChaosRunUnderWatchOSLosesNothing() throws {
        let result = try runTool(["--iterations", "24", "--seed", "11", "--link-conditions", "--watch-os"], binary: "runway-chaos")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.stdout.suffix(3000))\n\(result.stderr)")
        #expect(lines.first?.contains("--watch-os") == true)
        #expect(lines.contains { $0.contains("under watch-os") })
        #expect(lines.contains { $0.contains("jetsam watch app") } && lines.contains { $0.contains("SIGKILL watch") }, "seed 11 draws both")
        let last = try #require(lines.last)
        let match = try #require(last.wholeMatch(of: Self.verdict), "last line: \(last)")
        #expect(Int(match.3)! > 0 && match.3 == match.4)
        #expect(match.5 == "0" && match.6 == "0" && match.7 == "order kept")
    }

    @Test func badArgumentsAreUsageErrors() throws {
        let result = try runTool(["--iterations", "zero"], binary: "runway-chaos")
        #expect(result.status == 2)
        #expect(result.stderr.contains("--iterations needs a whole number"))
        #expect(result.stderr.contains("usage: scripts/chaos"))
        let burst = try runTool(["--largest-burst", "0"], binary: "runway-chaos")
        #expect(burst.status == 2)
        #expect(burst.stderr.contains("--largest-burst needs a whole number from 1 to 100000"))
    }

    /// Bursts of up to 12,000: backlogs past the 8,192 delivered rows the watch empties at once, and
    /// recordings of two chunks, the watch killed between them (`SimulatedPair.failedRecording`).
    @Test func aChaosRunWithLargeBurstsLosesNothing() throws {
        let result = try runTool(["--iterations", "30", "--seed", "20808459", "--largest-burst", "12000", "--link-rate", "5000"], binary: "runway-chaos")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(result.status == 0, "\(result.stdout.suffix(3000))\n\(result.stderr)")
        #expect(lines.first?.contains("--largest-burst 12000") == true)
        let last = try #require(lines.last)
        let match = try #require(last.wholeMatch(of: Self.verdict), "last line: \(last)")
        #expect(Int(match.3)! > 50_000 && match.3 == match.4)
        #expect(match.5 == "0" && match.6 == "0" && match.7 == "order kept")
    }
}
