import PairTesting
import Posix
import Testing
import WatchConnectivity
@testable import RunWayApp
@testable import RunWayDomain

/// The watch app never reports a recording it holds only in memory: without an activated session a
/// recording fails (7004) and leaves nothing behind (the seeds' app kept it in `pendingFlightQueue`,
/// which a killed process loses).
@Suite struct WatchRunRecorderTests {
    @Test func aRecordingWithoutAnActivatedSessionFailsAndHoldsNothing() throws {
        // No device in this process: the session is never activated.
        let session = WCSession.default
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
        #expect(session.outstandingUserInfoTransfers.isEmpty)
    }
}
