import Foundation
import PairTesting
import Testing

/// An idle daemon gives its memory back (`WhenIdle` in `DaemonRuntime`): once the phone has heard
/// nothing for two seconds after a drain, its stores' cached pages are released — once per idle spell —
/// and every flight is still there, once, in order.
@Suite(.serialized) struct IdleMemoryTests {
    /// The phone's `memory.idle-release` lines (debug level), each with the bytes of cached pages it gave back.
    func releases(_ pair: SimulatedPair) -> [Int] {
        let log = (try? String(contentsOfFile: pair.phoneLog, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.contains("event=memory.idle-release") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("cachedPageBytes=") }.flatMap { Int($0.dropFirst("cachedPageBytes=".count)) }
        }
    }

    @Test func afterADrainTheIdlePhoneGivesItsCachedPagesBackOnce() throws {
        try withPair(tag: "idle") { pair in
            pair.phoneArguments = ["--log-level", "debug"]
            try pair.startWatch()
            try pair.record(1000)
            try pair.startPhone()
            try pair.waitUntilDrained()
            let report = try pair.expectDrainedAndClean(stored: 1000)
            #expect(report.summary == "1000 recorded, 1000 stored, 0 lost, 0 duplicated, order kept")
            // The drain filled the app's store's cache (1,000 flights, ~1.8 kB each): an idle spell after
            // it releases a good part of it.
            try pair.waitUntil("the idle phone released the pages the drain cached", timeout: 30) {
                releases(pair).contains { $0 > 100_000 }
            }
            // Quiet since: no second release without activity in between.
            let count = releases(pair).count
            usleep(4_500_000)
            #expect(releases(pair).count == count, "\(releases(pair))")
        }
    }
}
