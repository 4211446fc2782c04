import Control
import OSServices
import PairTesting
import Storage
import Testing

/// The device's Health store on a real store: each workout kept once per uuid, bad workouts refused.
@Suite struct HealthStoreTests {
    static let t0 = 1_790_838_000.0

    static func workout(_ uuid: String, start: Double = t0) -> HealthWorkoutItem {
        HealthWorkoutItem(
            uuid: uuid, activityType: "running", startDate: start, endDate: start + 1800, duration: 1700, metadata: ["HKExternalUUID": uuid])
    }

    @Test func aWorkoutSavedAgainAfterACrashIsOneRow() throws {
        let (_, database) = try makeTemporaryStore("hks", file: "os.sqlite", SystemServices.migrations)
        let store = HealthStore(database: database)
        let id = "0190F3A2-1111-7000-8000-000000000001"
        #expect(try store.save(Self.workout(id), at: Self.t0 + 1800))
        // The app saved, was killed before it knew, and saves the same workout again.
        #expect(try !store.save(Self.workout(id), at: Self.t0 + 1900))
        #expect(try store.save(Self.workout("0190F3A2-1111-7000-8000-000000000002"), at: Self.t0 + 2000))
        #expect(try store.count() == 2)
        let first = try #require(try store.workouts().first)
        #expect(first.uuid == id && first.savedAt == Self.t0 + 1800 && first.metadata["HKExternalUUID"] == id)
        database.close()
    }

    @Test func malformedWorkoutsAreRefused() throws {
        let (_, database) = try makeTemporaryStore("hkb", file: "os.sqlite", SystemServices.migrations)
        let store = HealthStore(database: database)
        var bad = Self.workout("0190f3a2-1111-7000-8000-000000000001")
        #expect(throws: HealthStore.InvalidWorkout.self) { try store.save(bad, at: Self.t0) }
        bad = Self.workout("0190F3A2-1111-7000-8000-000000000001")
        bad.activityType = "quidditch"  // no HKWorkoutActivityType (swimming is one)
        #expect(throws: HealthStore.InvalidWorkout.self) { try store.save(bad, at: Self.t0) }
        bad = Self.workout("0190F3A2-1111-7000-8000-000000000001")
        bad.duration = 5000
        #expect(throws: HealthStore.InvalidWorkout.self) { try store.save(bad, at: Self.t0) }
        #expect(try store.count() == 0)
        database.close()
    }

    /// The running session is kept for recoverActiveWorkoutSession: one at a time, gone once it ended.
    @Test func theRunningSessionIsKeptUntilItEnds() throws {
        let (_, database) = try makeTemporaryStore("hka", file: "os.sqlite", SystemServices.migrations)
        let store = HealthStore(database: database)
        #expect(try store.activeSession() == nil)
        try store.setActiveSession(HealthSessionItem(activityType: "running", locationType: 3, startDate: Self.t0))
        try store.setActiveSession(HealthSessionItem(activityType: "cycling", locationType: 2, startDate: Self.t0 + 60))
        // Kept running (2) unless said otherwise; paused (4) is kept as such (issue 51: recovered in its state).
        #expect(try store.activeSession() == HealthSessionItem(activityType: "cycling", locationType: 2, startDate: Self.t0 + 60, state: 2))
        try store.setActiveSession(HealthSessionItem(activityType: "cycling", locationType: 2, startDate: Self.t0 + 60, state: 4))
        #expect(try store.activeSession()?.state == 4)
        #expect(throws: HealthStore.InvalidWorkout.self) {
            try store.setActiveSession(HealthSessionItem(activityType: "quidditch", locationType: 2, startDate: Self.t0))
        }
        // Not started (1) or ended (3) is no running session.
        for state: Int64 in [1, 3] {
            #expect(throws: HealthStore.InvalidWorkout.self) {
                try store.setActiveSession(HealthSessionItem(activityType: "cycling", locationType: 2, startDate: Self.t0, state: state))
            }
        }
        try store.setActiveSession(nil)
        #expect(try store.activeSession() == nil)
        database.close()
    }
}
