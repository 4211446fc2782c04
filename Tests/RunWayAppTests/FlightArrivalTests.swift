import Storage
import Testing
@testable import RunWayApp
@testable import RunWayDomain
import PairTesting

/// A flight's arrival number is never given twice, although the table no longer has AUTOINCREMENT
/// (issue 26: it read and rewrote sqlite_sequence at every insert): the floor a deletion leaves keeps
/// the promise.
@Suite struct FlightArrivalTests {
    private func withStore(_ body: (Database, FlightStore, inout FlightGenerator) throws -> Void) throws {
        let container = makeTemporaryDirectory("arr")
        defer { removeDirectory(container) }
        let database = try RunWayStore.open(container: container, logger: .silent) { _, _ in }
        defer { database.close() }
        var generator = FlightGenerator(seed: 26)
        try body(database, FlightStore(database: database), &generator)
    }

    private func insert(_ store: FlightStore, _ generator: inout FlightGenerator) throws -> Int64? {
        try store.insert(generator.flights(count: 1, distanceKm: nil, now: 1.8e9)[0])
    }

    @Test func theNewestFlightDeletedLeavesItsNumberUnused() throws {
        try withStore { database, store, generator in
            let flights = generator.flights(count: 3, distanceKm: nil, now: 1.8e9)
            let numbers = try flights.map { try store.insert($0) }
            #expect(numbers == [1, 2, 3])
            let deleted = try store.delete(id: flights[2].id) && store.delete(id: flights[1].id)
            #expect(deleted)
            // SQLite's own choice would be 2 (one above the highest stored).
            let next = try (insert(store, &generator), insert(store, &generator))
            #expect(next == (4, 5))
            // Nothing of the per-insert sequence is written any more.
            #expect(try database.scalarInt("SELECT count(*) FROM sqlite_sequence WHERE name = 'flights'") == 0)
        }
    }

    /// In one transaction the floor is read once; a transaction rolled back after taking the number
    /// above it must not leave the next one believing the floor passed.
    @Test func aRolledBackInsertDoesNotLowerTheFloor() throws {
        try withStore { database, store, generator in
            let flights = generator.flights(count: 2, distanceKm: nil, now: 1.8e9)
            for flight in flights { _ = try store.insert(flight) }
            #expect(try store.delete(id: flights[1].id))
            try database.begin()
            #expect(try insert(store, &generator) == 3)
            #expect(try insert(store, &generator) == 4)
            database.rollback()
            let again = try database.transaction { try (insert(store, &generator), insert(store, &generator)) }
            #expect(again == (3, 4))
        }
    }

    /// Another connection (another process) deleting the newest flight: the trigger keeps its floor,
    /// and this store's next transaction reads it.
    @Test func aDeletionOnAnotherConnectionIsSeen() throws {
        try withStore { database, store, generator in
            let flights = generator.flights(count: 2, distanceKm: nil, now: 1.8e9)
            try database.transaction { for flight in flights { _ = try store.insert(flight) } }
            let other = try Database(path: database.path)
            defer { other.close() }
            try other.execute("DELETE FROM flights WHERE arrival = 2")
            let next = try database.transaction { try insert(store, &generator) }
            #expect(next == 3)
        }
    }

    /// A store written before the change (AUTOINCREMENT, the newest flight deleted) keeps every flight,
    /// its samples and its alerts through the table's rebuild, and numbers the next flight above the
    /// old sequence.
    @Test func anOlderStoreIsRebuiltWithEverythingKept() throws {
        let container = makeTemporaryDirectory("arr")
        defer { removeDirectory(container) }
        let path = container + "/old.sqlite"
        let older = FlightStore.migrations.filter { $0.id != "flights-arrival.1" }
        #expect(older.count == FlightStore.migrations.count - 1)
        do {
            let database = try Database(path: path)
            defer { database.close() }
            try Migrator.migrate(database, older)
            try database.transaction {
                for n in 1...3 {
                    try database.execute(
                        """
                        INSERT INTO flights (id, started_at, ended_at, distance_km, duration_s, avg_pace, avg_hr, mode, saved_at)
                        VALUES ('id-\(n)', \(n), \(n + 1), 5, 1800, 360, 150, 'run', 0);
                        INSERT INTO flight_samples (arrival, samples) VALUES (\(n), x'0102');
                        INSERT INTO alerts (arrival, id, at, type, mode, value, target) VALUES (\(n), 'a-\(n)', 1, 'pace', 'run', 1, 'x');
                        """)
                }
            }
            try database.execute("DELETE FROM flights WHERE arrival = 3")
        }
        let database = try Database(path: path)
        defer { database.close() }
        try Migrator.migrate(database, FlightStore.migrations)
        #expect(try database.scalarInt("SELECT count(*) FROM flights") == 2)
        #expect(try database.scalarInt("SELECT count(*) FROM flight_samples") == 2)
        #expect(try database.scalarInt("SELECT count(*) FROM alerts") == 2)
        #expect(try database.scalarString("SELECT group_concat(arrival || ':' || id, ' ') FROM flights") == "1:id-1 2:id-2")
        #expect(try database.scalarString("SELECT sql FROM sqlite_master WHERE name = 'flights'").contains("AUTOINCREMENT") == false)
        var generator = FlightGenerator(seed: 1)
        #expect(try FlightStore(database: database).insert(generator.flights(count: 1, distanceKm: nil, now: 1.8e9)[0]) == 4)
        // The cascade still holds after the rebuild.
        try database.execute("DELETE FROM flights WHERE id = 'id-1'")
        #expect(try database.scalarInt("SELECT count(*) FROM flight_samples") == 2)
        #expect(try database.scalarInt("SELECT count(*) FROM alerts") == 1)
    }
}
