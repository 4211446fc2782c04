import Foundation
import Glibc
import JSONText
import PairTesting
import Posix
import RunWayApp
import Testing

/// UI clients come and go at any moment; saving never depends on them, and what they are shown is
/// complete and never doubled.
@Suite(.serialized) struct UIClientTests {
    /// A backlog drains while `runway phone ui` processes start and are killed (SIGINT or SIGKILL) at
    /// random, and attach connections open and close at random. Nothing is lost or doubled, and every
    /// UI saw the flights saved while it was there with no gap and no repeat.
    @Test(arguments: ["immediate", "ui-drain"])
    func uiClientsComingAndGoingAtRandomLoseAndDoubleNothing(savePath: String) throws {
        try withRunningPair(tag: "uirand", watch: ["--link-rate", "400"], phone: nil) { pair in
            pair.phoneArguments = ["--save-path", savePath]
            try pair.record(600)
            try pair.startPhone()

            // Seeded, so that a failure names the schedule of actions that caused it; `RUNWAY_TEST_SEED=S`
            // runs that schedule again (the timing of the drain around it still varies).
            let seed =
                ProcessInfo.processInfo.environment["RUNWAY_TEST_SEED"].flatMap { UInt64($0) }
                ?? UInt64.random(in: 0...UInt64.max)
            var generator = SeededGenerator(seed: seed)
            var processes: [UIProcess] = [], running: [UIProcess] = []
            var collectors: [EventCollector] = [], open: [EventCollector] = []
            var rounds = 0
            // Go on until the backlog is saved, and until at least three of each kind of UI client came and
            // went — the random choice alone can leave too few to mean anything.
            func enoughCameAndWent() -> Bool {
                processes.count - running.count >= 3 && collectors.count - open.count >= 3
            }
            while try pair.outstandingTransfers() > 0 || rounds < 20 || !enoughCameAndWent() {
                rounds += 1
                switch Int.random(in: 0..<4, using: &generator) {
                case 0:
                    let ui = try UIProcess(phoneHome: pair.phoneHome, scratch: pair.root, index: processes.count)
                    processes.append(ui)
                    running.append(ui)
                case 1 where !running.isEmpty:
                    let ui = running.remove(at: Int.random(in: 0..<running.count, using: &generator))
                    ui.signal(Bool.random(using: &generator) ? SIGINT : SIGKILL)
                case 2:
                    let collector = try EventCollector(phoneHome: pair.phoneHome)
                    collectors.append(collector)
                    open.append(collector)
                case 3 where !open.isEmpty:
                    open.remove(at: Int.random(in: 0..<open.count, using: &generator)).detach()
                default:
                    break
                }
                usleep(UInt32.random(in: 0...40_000, using: &generator))
            }
            for ui in running { ui.signal(SIGKILL) }
            for collector in open { collector.detach() }

            if savePath == "ui-drain" {
                // The home screen appears once more: whatever arrived while no UI was there is written now.
                let last = try EventCollector(phoneHome: pair.phoneHome)
                last.detach()
            }
            try pair.waitUntil("no UI client is attached") { try pair.status("phone")["uiClients"] == .integer(0) }
            #expect(pair.phone!.isRunning)
            try pair.expectClean(stored: 600, "seed \(seed)")

            let stored = Set(try pair.logbookIDs())
            for (index, collector) in collectors.enumerated() {
                #expect(collector.gapsOrRepeats().isEmpty, "seed \(seed), collector \(index): \(collector.gapsOrRepeats().prefix(3))")
                #expect(collector.events.allSatisfy { stored.contains($0.id) })
            }
            for (index, ui) in processes.enumerated() {
                let shown = ui.listedIDs + ui.savedIDs
                #expect(Set(shown).count == shown.count, "seed \(seed): runway phone ui #\(index) showed a flight twice")
                #expect(shown.allSatisfy { stored.contains($0) })
            }
        }
    }

    /// `runway phone ui` shows the logbook, then each flight saved afterwards, once; Ctrl-C ends it and
    /// the phone sees it go.
    @Test func aUIShowsTheLogbookThenEachNewFlight() throws {
        try withRunningPair(tag: "uishow") { pair in
            let before = try pair.record(3)
            try pair.waitUntilDrained()

            let ui = try UIProcess(phoneHome: pair.phoneHome, scratch: pair.root, index: 0)
            try pair.waitUntil("the UI is attached") { ui.isAttached }
            #expect(try pair.status("phone")["uiClients"] == .integer(1))
            #expect(before.allSatisfy { ui.output.contains($0) })
            #expect(ui.output.hasPrefix("Logbook: 3 flights"))

            let after = try pair.record(4)
            try pair.waitUntil("the UI shows the four new flights") { ui.savedIDs.count >= 4 }
            #expect(ui.savedIDs == after)

            ui.signal(SIGINT)
            #expect(ui.process.terminationSignal == SIGINT)
            try pair.waitUntil("the phone sees the UI go") { try pair.status("phone")["uiClients"] == .integer(0) }
            #expect(try pair.storedCount() == 7)
        }
    }

    /// In the old path a visible home screen writes flights as they arrive (RunWay's `.onChange`); with
    /// none, they only pile up in memory — acknowledged all the same.
    @Test func inUIDrainOnlyAVisibleHomeScreenSaves() throws {
        try withRunningPair(tag: "uidrain", phone: ["--save-path", "ui-drain"]) { pair in
            let home = try EventCollector(phoneHome: pair.phoneHome)
            let seen = try pair.record(5)
            try pair.waitUntil("the visible home screen saved them") { try pair.storedCount() == 5 }
            try pair.waitUntil("the home screen was told") { home.events.count == 5 }
            #expect(home.events.map(\.id) == seen)
            home.detach()

            try pair.waitUntil("the home screen is gone") { try pair.status("phone")["uiClients"] == .integer(0) }
            try pair.record(3)
            try pair.waitUntilDrained()
            var status = try pair.status("phone")
            #expect(status["flights"] == .integer(5))
            #expect(status["pendingWatchDataQueue"] == .integer(3))

            let again = try EventCollector(phoneHome: pair.phoneHome)
            #expect(again.drained == 3)
            #expect(again.listed.count == 8)
            again.detach()
            status = try pair.status("phone")
            #expect(status["pendingWatchDataQueue"] == .integer(0))
            try pair.expectClean()
        }
    }
}
