import Combine
import Foundation
import Testing

/// The dashboard model's pipelines, on a queue of their own (a deadline, never a duration).
@Suite struct RunDashboardModelTests {
    func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 where !condition() { usleep(10_000) }
        return condition()
    }

    @Test func theCombinedStatusAndTheDebouncedQueryFollowTheInputs() {
        let queue = DispatchQueue(label: "runway.dashboard.test")
        let model = RunDashboardModel(scheduler: queue)
        model.isReachable = true
        model.pendingTransfers = 2
        #expect(eventually { queue.sync { model.status } == "2 to send" })
        model.pendingTransfers = 0
        #expect(eventually { queue.sync { model.status } == "up to date" })
        for text in ["h", "hi", "hil", " hills "] { model.searchText = text }
        #expect(eventually { queue.sync { model.query } == "hills" })
        model.samples.send(.init(heartRate: 150, metres: 10))
        #expect(eventually { queue.sync { model.heartRate } == 150 })
    }

    @Test func aFutureReadsTheJournalOnce() throws {
        let journal = FileManager.default.temporaryDirectory.appendingPathComponent("runway-journal-\(getpid())")
        defer { try? FileManager.default.removeItem(at: journal) }
        try "5000\n10000.5\n".write(to: journal, atomically: true, encoding: .utf8)
        var distance: Double?
        let token = RunDashboardModel.lastRunDistance(from: journal).sink(receiveCompletion: { _ in }, receiveValue: { distance = $0 })
        #expect(distance == 10000.5)
        token.cancel()
    }
}
