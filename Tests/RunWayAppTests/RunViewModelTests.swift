import WatchConnectivity
import Posix
import Storage
import Testing
@testable import RunWayApp
@testable import RunWayDomain
import PairTesting

final class CountingReminders: InactivityReminderScheduling {
    var calls: [String] = []
    func reschedule(afterSaving flight: Flight, latest: Flight) { calls.append(flight.id) }
}

@Suite struct RunViewModelTests {
    struct Fixture {
        let directory = makeTemporaryDirectory("vm")
        let database: Database
        let store: FlightStore
        var generator = FlightGenerator(seed: 11)

        init() throws {
            database = try Database(path: directory + "/s.sqlite")
            try Migrator.migrate(database, RunWayStore.migrations)
            store = FlightStore(database: database)
        }

        mutating func flight(_ km: Double = 5) -> Flight { generator.flight(distanceKm: km, endingAt: 1e9) }

        /// A view model that saves by `savePath` (telling `reminders` of each flight saved), attached to
        /// the store.
        func attachedModel(_ savePath: SavePath, reminders: CountingReminders? = nil) -> RunViewModel {
            let model = RunViewModel(savePath: savePath, logger: .silent)
            if let reminders { model.reminders = reminders }
            model.attach(store: store)
            return model
        }
    }

    @Test func savesOnReceiptDedupsAndIgnoresShortRuns() throws {
        var fixture = try Fixture()
        defer { removeDirectory(fixture.directory) }
        let reminders = CountingReminders()
        let model = fixture.attachedModel(.immediate, reminders: reminders)
        let run = fixture.flight(), short = fixture.flight(0.05)
        let results = try fixture.database.transaction {
            [
                try model.saveIncomingWatchFlight(run, origin: .init()),
                try model.saveIncomingWatchFlight(run, origin: .init()),
                try model.saveIncomingWatchFlight(short, origin: .init()),
            ]
        }
        #expect(results == [.saved, .duplicate, .tooShort])
        #expect(reminders.calls.isEmpty)  // not before the commit
        model.didCommit()
        #expect(reminders.calls == [run.id])  // once per saved flight: not for the duplicate, not for the short run
        #expect(try fixture.store.count() == 1)
    }

    @Test func withoutAStoreFlightsWaitAndAreNotAcknowledged() throws {
        var fixture = try Fixture()
        defer { removeDirectory(fixture.directory) }
        let model = RunViewModel(savePath: .immediate, logger: .silent)
        let early = fixture.flight()
        #expect(model.receiveFromWatch(early, origin: .init()) == .notNow)
        #expect(model.pendingWatchDataQueue.count == 1)
        model.attach(store: fixture.store)  // drained as soon as the store is there
        #expect(model.pendingWatchDataQueue.isEmpty)
        #expect(try fixture.store.contains(id: early.id))
    }

    @Test func theUIDrainPathLosesFlightsUntilAUIAppears() throws {
        var fixture = try Fixture()
        defer { removeDirectory(fixture.directory) }
        let model = fixture.attachedModel(.uiDrain)
        let run = fixture.flight()
        // Accepted (so the session acknowledges it), but only held in memory.
        #expect(model.receiveFromWatch(run, origin: .init()) == .accepted)
        #expect(try fixture.store.count() == 0)
        #expect(model.pendingWatchDataQueue.count == 1)
        #expect(model.drainPendingQueue(reason: "UI attached") == 1)
        #expect(try fixture.store.contains(id: run.id))
    }

    @Test func aRollbackForgetsUncommittedSaves() throws {
        var fixture = try Fixture()
        defer { removeDirectory(fixture.directory) }
        let reminders = CountingReminders()
        let model = fixture.attachedModel(.immediate, reminders: reminders)
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try fixture.database.transaction {
                _ = model.receiveFromWatch(fixture.flight(), origin: .init())
                throw Boom()
            }
        }
        model.didRollBack()
        model.didCommit()
        #expect(reminders.calls.isEmpty)
        #expect(try fixture.store.count() == 0)
    }

    /// A failed write rolls the receive transaction back and holds nothing: the watch keeps the transfer
    /// and resends it, through the receive cursor. (A copy held here and saved later would jump ahead of
    /// the flights rolled back with it, and could bring back a flight the user deleted meanwhile.)
    @Test func aFailingStoreRollsBackAndHoldsNothing() throws {
        var fixture = try Fixture()
        defer { removeDirectory(fixture.directory) }
        let model = fixture.attachedModel(.immediate)
        var held = 0
        model.onFlightHeld = { held += 1 }
        try fixture.database.execute("ALTER TABLE flight_samples RENAME TO hidden")  // every insert now fails
        let run = fixture.flight()
        // As the session calls it: inside its receive transaction, which it rolls back on `.failed`.
        struct RolledBack: Error {}
        var outcome: WCReceiveOutcome?
        #expect(throws: RolledBack.self) {
            try fixture.database.transaction {
                outcome = model.receiveFromWatch(run, origin: .init())
                if outcome == .failed { throw RolledBack() }
            }
        }
        #expect(outcome == .failed)
        #expect(try fixture.store.count() == 0)  // no half-written flight (a summary without its samples)
        #expect(model.pendingWatchDataQueue.isEmpty)
        #expect(held == 0)
        #expect(model.drainPendingQueue(reason: "retry") == 0)
        // The store can take it again: the resend saves it, once, through the same path.
        try fixture.database.execute("ALTER TABLE hidden RENAME TO flight_samples")
        try fixture.database.transaction {
            #expect(model.receiveFromWatch(run, origin: .init()) == .accepted)
            #expect(model.receiveFromWatch(run, origin: .init()) == .accepted)
        }
        #expect(try fixture.store.count() == 1)
    }

    @Test func savedFlightsAreAnnouncedWithTheirArrivalAfterTheCommit() throws {
        var fixture = try Fixture()
        defer { removeDirectory(fixture.directory) }
        let model = fixture.attachedModel(.immediate)
        var announced: [StoredFlight] = []
        model.onFlightsSaved = { announced += $0 }
        let runs = [fixture.flight(), fixture.flight()]
        try fixture.database.transaction {
            for run in runs { _ = model.receiveFromWatch(run, origin: .init()) }
            _ = model.receiveFromWatch(runs[0], origin: .init())  // a resend: not announced again
        }
        #expect(announced.isEmpty)
        model.didCommit()
        #expect(announced.map(\.flight.id) == runs.map(\.id))
        #expect(announced.map(\.arrival) == [1, 2])
    }
}

@Suite struct FlightStoreTests {
    @Test func storesListsAndDeletes() throws {
        let (directory, database) = try makeTemporaryStore("store", RunWayStore.migrations)
        defer { removeDirectory(directory) }
        let store = FlightStore(database: database)
        var generator = FlightGenerator(seed: 2)
        let flights = generator.flights(count: 5, distanceKm: nil, now: 1e9)
        for (index, flight) in flights.enumerated() { #expect(try store.insert(flight) == Int64(index + 1)) }
        #expect(try store.insert(flights[0]) == nil)
        var listed: [StoredFlight] = []
        try store.forEachSummary { listed.append($0) }
        #expect(listed.map(\.flight.id) == flights.map(\.id))
        #expect(listed.map(\.arrival) == [1, 2, 3, 4, 5])
        var page: [Int64] = []
        #expect(try store.forEachSummary(afterArrival: 2, limit: 2) { page.append($0.arrival) } == 2)
        #expect(page == [3, 4])
        #expect(try store.flight(id: flights[2].id)?.flight == flights[2])
        #expect(try store.latest()?.flight.id == flights[4].id)
        #expect(try store.delete(id: flights[2].id))
        #expect(try !store.delete(id: flights[2].id))
        #expect(try store.count() == 4)
        #expect(try database.scalarInt("SELECT count(*) FROM flight_samples") == 4)
    }
}
