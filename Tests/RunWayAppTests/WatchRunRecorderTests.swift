import Connectivity
import PairTesting
import Posix
import Storage
import Testing
@testable import RunWayApp

/// The watch app never reports a recording it holds only in memory: without an activated session a
/// recording fails (7004) and leaves nothing behind (the seeds' app kept it in `pendingFlightQueue`,
/// which a killed process loses).
@Suite struct WatchRunRecorderTests {
    @Test func aRecordingWithoutAnActivatedSessionFailsAndHoldsNothing() throws {
        let directory = makeTemporaryDirectory("rec")
        defer { removeDirectory(directory) }
        let database = try Database(path: directory + "/s.sqlite")
        try Migrator.migrate(database, SessionStore.migrations + FlightStore.migrations)
        let session = Session(role: .watch, database: database, loop: EventLoop(), transport: nil, logger: .silent)
        let recorder = WatchRunRecorder(session: session, logger: .silent)
        var generator = FlightGenerator(seed: 1)
        let flights = generator.flights(count: 2, distanceKm: nil, now: 1.8e9)
        for attempt in 0..<2 {
            do {
                if attempt == 0 {
                    _ = try recorder.record(count: 3, distanceKm: nil, now: 1.8e9, using: &generator)
                } else {
                    try recorder.finish(flights)
                }
                Issue.record("a recording without an activated session reported success")
            } catch let error as WCError {
                #expect(error.code == .sessionNotActivated)
            }
        }
        #expect(try session.outstandingUserInfoTransferCount() == 0)
    }
}
