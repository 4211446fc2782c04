import Foundation
import Glibc
import Posix
import Storage
import Testing
@testable import RunWayApp
@testable import RunWayDomain
import PairTesting

@Suite struct RunWayStoreTests {
    /// The phone saves every received batch in the app's store on the device's loop: copying the log
    /// into the file must happen on the checkpointer's thread, never inside one of those commits (it did,
    /// in one commit in ~1,000 pages, since the flights moved into the app's store).
    @Test func theAppsStoreIsCheckpointedOffTheLoop() throws {
        let container = makeTemporaryDirectory("app")
        defer { removeDirectory(container) }
        let database = try RunWayStore.open(container: container, logger: .silent) { _, _ in }
        defer { database.close() }
        #expect(try database.scalarInt("PRAGMA wal_autocheckpoint") == 0)  // no checkpoint inside a commit
        let store = FlightStore(database: database)
        var generator = FlightGenerator(seed: 3)
        let path = RunWayStore.path(container: container)
        var info = stat()
        _ = stat(path, &info)
        let before = info.st_size
        for _ in 0..<10 {
            try database.transaction {
                for flight in generator.flights(count: 300, distanceKm: nil, now: 1.8e9) { _ = try store.insert(flight) }
            }
        }
        // 3,000 flights: past the checkpointer's threshold; its thread copies the log into the file.
        var waited = 0
        while waited < 10_000 {
            _ = stat(path, &info)
            if info.st_size > before + 4_000_000 { break }
            usleep(10_000)
            waited += 10
        }
        #expect(info.st_size > before + 4_000_000, "the log was not copied into the store within the deadline")
        #expect(try database.scalarInt("SELECT count(*) FROM flights") == 3000)
    }

    /// A new store has 16 KiB pages; one created before with SQLite's 4 KiB keeps them (and works).
    @Test func aNewStoreHasLargerPagesAnOldOneKeepsItsOwn() throws {
        let container = makeTemporaryDirectory("app")
        defer { removeDirectory(container) }
        do {
            let database = try RunWayStore.open(container: container, logger: .silent) { _, _ in }
            defer { database.close() }
            #expect(try database.scalarInt("PRAGMA page_size") == 16_384)
            #expect(RunWayStore.pageSize == 16_384)
        }
        let older = makeTemporaryDirectory("app")
        defer { removeDirectory(older) }
        let path = RunWayStore.path(container: older)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do {
            let database = try Database(path: path)
            defer { database.close() }
            try database.execute("CREATE TABLE before (x INTEGER)")
        }
        let database = try RunWayStore.open(container: older, logger: .silent) { _, _ in }
        defer { database.close() }
        #expect(try database.scalarInt("PRAGMA page_size") == 4096)
        var generator = FlightGenerator(seed: 5)
        #expect(try FlightStore(database: database).insert(generator.flights(count: 1, distanceKm: nil, now: 1.8e9)[0]) == 1)
    }
}
