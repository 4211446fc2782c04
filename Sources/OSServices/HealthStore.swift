import Control
import JSONText
import Storage

/// A device's Health store, kept by its OS in `HOME/os.sqlite`: the workouts apps saved through
/// HealthKit (`HKHealthStore.save`, `HKLiveWorkoutBuilder.finishWorkout`) and what the user allowed each
/// to share and read. A workout is kept once per `uuid`: a save repeated after a crash (the app saved,
/// was killed before it knew, and saves again) is one row.
package final class HealthStore {
    package static let migrations: [Migration] = [
        Migration(
            "health.1",
            """
            -- HealthKit's workouts, one row per HKWorkout uuid (upper case).
            CREATE TABLE health_workouts (
                uuid TEXT PRIMARY KEY NOT NULL,
                activity_type TEXT NOT NULL,
                start_date REAL NOT NULL,
                end_date REAL NOT NULL,
                duration REAL NOT NULL,
                metadata TEXT NOT NULL,
                saved_at REAL NOT NULL
            ) STRICT;
            -- The types the user allowed: one row per (type, access).
            CREATE TABLE health_authorization (
                type TEXT NOT NULL,
                access TEXT NOT NULL CHECK (access IN ('share', 'read')),
                granted_at REAL NOT NULL,
                PRIMARY KEY (type, access)
            ) STRICT;
            """),
        Migration(
            "health.2",
            """
            -- The workout session running on the device (at most one), so that an app killed during it
            -- recovers it at its next launch (HKHealthStore.recoverActiveWorkoutSession).
            CREATE TABLE health_active_session (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                activity_type TEXT NOT NULL,
                location_type INTEGER NOT NULL,
                start_date REAL NOT NULL
            ) STRICT;
            """),
        Migration(
            "health.3",
            """
            -- Issue 51: the running session's state (HKWorkoutSessionState's raw value: running 2, paused 4,
            -- stopped 6), which recoverActiveWorkoutSession hands back.
            ALTER TABLE health_active_session ADD COLUMN state INTEGER NOT NULL DEFAULT 2;
            """),
    ]

    /// The states a running session may be kept in (running, paused, stopped).
    package static let keptSessionStates: Set<Int64> = [2, 4, 6]

    /// Why a workout cannot be kept (the app's HealthKit reports `errorInvalidArgument`).
    package struct InvalidWorkout: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    package static let activityTypes = Set(HealthWorkoutItem.activityTypes)

    private let database: Database

    package init(database: Database) {
        self.database = database
    }

    /// The problem with `workout`, or nil: an upper-case UUID, a known activity type, dates in the
    /// device clock's range, the end not before the start, a duration within them.
    package static func problem(with workout: HealthWorkoutItem) -> String? {
        guard isUUID(workout.uuid) else { return "the workout's uuid is not an upper-case UUID" }
        guard activityTypes.contains(workout.activityType) else { return "unknown activity type \(workout.activityType.prefix(40))" }
        guard DeviceClock.range.contains(workout.startDate), DeviceClock.range.contains(workout.endDate), workout.endDate >= workout.startDate
        else { return "the workout's dates are out of range or end before they start" }
        guard workout.duration >= 0, workout.duration <= workout.endDate - workout.startDate + 0.001 else {
            return "the workout's duration is negative or longer than its dates"
        }
        guard workout.metadata.count <= 64, workout.metadata.allSatisfy({ $0.key.utf8.count <= 200 && $0.value.utf8.count <= 1000 }) else {
            return "the workout's metadata is too large (at most 64 keys, 200-byte keys, 1000-byte values)"
        }
        return nil
    }

    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) else { return false }
            }
        }
        return true
    }

    /// Keeps `workout` unless one with its uuid is kept already; says whether it was stored now.
    @discardableResult
    package func save(_ workout: HealthWorkoutItem, at now: Double) throws -> Bool {
        if let problem = Self.problem(with: workout) { throw InvalidWorkout(description: problem) }
        let insert = try database.statement(
            literal: """
                INSERT INTO health_workouts (uuid, activity_type, start_date, end_date, duration, metadata, saved_at)
                VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uuid) DO NOTHING
                """)
        try insert.bind(workout.uuid, at: 1)
        try insert.bind(workout.activityType, at: 2)
        try insert.bind(workout.startDate, at: 3)
        try insert.bind(workout.endDate, at: 4)
        try insert.bind(workout.duration, at: 5)
        try insert.bind(JSONValue.object(workout.metadata.mapValues(JSONValue.string)).text, at: 6)
        try insert.bind(now, at: 7)
        try insert.run()
        return database.changes > 0
    }

    /// Every kept workout, oldest saved first.
    package func workouts() throws -> [HealthWorkoutItem] {
        let query = try database.statement(
            literal: """
                SELECT uuid, activity_type, start_date, end_date, duration, metadata, saved_at FROM health_workouts ORDER BY saved_at, uuid
                """)
        defer { query.reset() }
        var result: [HealthWorkoutItem] = []
        while try query.step() {
            let metadata = (try? JSONValue(parsing: Array(query.string(at: 5).utf8)))?.objectValue?.compactMapValues(\.stringValue) ?? [:]
            result.append(
                HealthWorkoutItem(
                    uuid: query.string(at: 0), activityType: query.string(at: 1), startDate: query.double(at: 2), endDate: query.double(at: 3),
                    duration: query.double(at: 4), metadata: metadata, savedAt: query.double(at: 6)))
        }
        return result
    }

    package func count() throws -> Int64 {
        try database.scalarInt("SELECT count(*) FROM health_workouts")
    }

    /// The running workout session, or nil.
    package func activeSession() throws -> HealthSessionItem? {
        let query = try database.statement(
            literal: "SELECT activity_type, location_type, start_date, state FROM health_active_session WHERE id = 1")
        defer { query.reset() }
        guard try query.step() else { return nil }
        return HealthSessionItem(
            activityType: query.string(at: 0), locationType: query.int64(at: 1), startDate: query.double(at: 2), state: query.int64(at: 3))
    }

    /// Records the running session (nil: none runs any more).
    package func setActiveSession(_ session: HealthSessionItem?) throws {
        guard let session else {
            try database.execute("DELETE FROM health_active_session")
            return
        }
        guard Self.activityTypes.contains(session.activityType), DeviceClock.range.contains(session.startDate),
            Self.keptSessionStates.contains(session.state ?? 2)
        else {
            throw InvalidWorkout(description: "the workout session's activity type, start or state is out of range")
        }
        let upsert = try database.statement(
            literal: """
                INSERT INTO health_active_session (id, activity_type, location_type, start_date, state) VALUES (1, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET activity_type = excluded.activity_type, location_type = excluded.location_type,
                start_date = excluded.start_date, state = excluded.state
                """)
        try upsert.bind(session.activityType, at: 1)
        try upsert.bind(session.locationType, at: 2)
        try upsert.bind(session.startDate, at: 3)
        try upsert.bind(session.state ?? 2, at: 4)
        try upsert.run()
    }

    /// Records that the user allowed `share` and `read` (the simulated user allows every request).
    package func authorize(share: [String], read: [String], at now: Double) throws {
        try database.transaction {
            let upsert = try database.statement(
                literal: """
                    INSERT INTO health_authorization (type, access, granted_at) VALUES (?, ?, ?)
                    ON CONFLICT (type, access) DO NOTHING
                    """)
            for (types, access) in [(share, "share"), (read, "read")] {
                for type in types {
                    try upsert.bind(String(type.prefix(200)), at: 1)
                    try upsert.bind(access, at: 2)
                    try upsert.bind(now, at: 3)
                    try upsert.run()
                }
            }
        }
    }
}
