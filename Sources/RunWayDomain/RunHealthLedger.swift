import JSONText
import PropertyLists
import Storage

/// Who saves a phone-led run to Health, decided once and kept durably on both devices (issue 51): a
/// finished run is in exactly one Health store, whatever dies or is removed.
///
/// On the phone, one record per phone-led run (`PhoneRunHealth`), written with the run and kept after it:
/// the mirroring state (what the watch answered), who saves (`saver`), whether the phone took the save
/// back and why (once), and what each side did. On the watch, one row per phone-led run it ended
/// (`WatchRunOutcome`: saved or not), written in the transaction that forgets the run, so that it answers
/// the same whenever the phone asks again.
///
/// The rules, pure (the shell, `PhoneRunController`, carries out what they say):
/// - the phone saves its run unless the watch confirmed it runs it (`workoutStarted`) while the phone still
///   ran it and before any take-back: then the watch saves it, at the phone's stop (`stopWorkout` with
///   `save: true`);
/// - the phone takes the save back, once, when the watch can no longer save: the watch said so (it failed
///   the run, or ended it unsaved), or its app was removed and the watch's Health store, read after the
///   removal (nothing on the watch can save the run any more), has no workout for it;
/// - a run the watch saves is settled when the watch says it ended it (`workoutEnded`), or the look-up
///   found it; a run the phone saves, when the phone saved it and the watch no longer runs it.
package struct PhoneRunHealth: Codable, Equatable, Sendable {
    package enum Saver: String, Codable, Sendable { case phone, watch }

    package var runId: String
    package var startedAt: Double
    /// The mirroring as RunWay reports it: whether `startWatchApp` was asked, what RunWay assumed (#44),
    /// and what happened (`notRequested`, `requested`, `confirmed`, `failed`, `unconfirmed`).
    package var requested = false
    package var assumedStarted = false
    package var mirroring = "notRequested"
    package var confirmedAt: Double?
    package var failureReason: String?
    package var saver = Saver.phone
    /// Why the phone took the save back from the watch (set once: the save never goes back).
    package var takenBack: String?
    /// The phone stopped the run (device time), and its active time.
    package var stoppedAt: Double?
    package var durationSeconds: Double?
    /// The phone saved it to its Health store.
    package var phoneSaved = false
    /// The watch no longer runs the run and will not save it again (it said so, it never ran it, its app
    /// was removed), and whether it saved it.
    package var watchDone = false
    package var watchSaved = false
    /// The watch app was removed while the watch was to save it: the watch's Health store decides.
    package var lookupPending = false

    package init(runId: String, startedAt: Double) {
        self.runId = runId
        self.startedAt = startedAt
    }

    /// The Health save is done, and no side will make another: the phone saved it (its to save), or the
    /// watch said it ended it (the watch's). A watch that may still run a run the phone saved needs nothing
    /// more from the phone: told of it, the phone says end it unsaved (`verdict`, `workoutRunning`).
    package var isSettled: Bool {
        guard stoppedAt != nil, !lookupPending else { return false }
        return saver == .phone ? phoneSaved : watchDone
    }

    /// The phone must save it now (stopped, its save, not done).
    package var needsPhoneSave: Bool { stoppedAt != nil && saver == .phone && !phoneSaved }

    /// What the phone tells the watch to do with the run once the phone stopped it (nil: nothing to tell):
    /// save it (the watch's save) or end it unsaved.
    package var verdict: Bool? {
        guard stoppedAt != nil, !watchDone, !lookupPending else { return nil }
        return saver == .watch
    }

    // MARK: - What happens

    /// The watch says it runs the run. While the phone runs it, and unless the phone took the save back,
    /// the watch's session records it: the watch saves it. Returns whether the saver changed.
    @discardableResult
    package mutating func watchConfirmed(at: Double?) -> Bool {
        if mirroring != "confirmed" {
            mirroring = "confirmed"
            confirmedAt = at
        }
        guard stoppedAt == nil, takenBack == nil, saver == .phone else { return false }
        saver = .watch
        return true
    }

    /// The watch says it does not run the run (busy, refused, failed).
    package mutating func watchFailed(_ reason: String) {
        mirroring = "failed"
        failureReason = reason
        watchDone = true
        takeBack("the watch failed the run: \(reason)")
    }

    /// The watch ended the run, saved or not.
    package mutating func watchEnded(saved: Bool) {
        watchDone = true
        lookupPending = false
        watchSaved = watchSaved || saved
        if !saved { takeBack("the watch ended the run without saving it") }
    }

    /// The watch app was removed: it cannot save the run any more. A run the phone saves needs nothing
    /// more from it; one the watch was to save waits for the look-up of the watch's Health store.
    package mutating func watchAppRemoved() {
        guard !watchDone else { return }
        if saver == .phone {
            watchDone = true
        } else {
            lookupPending = true
        }
    }

    /// The watch app has no memory of the run (reinstalled): as a removal.
    package mutating func watchForgot() { watchAppRemoved() }

    /// What the watch's Health store said after the removal: the run saved there, or not (then it is the
    /// phone's to save).
    package mutating func lookedUp(foundOnWatch: Bool) {
        guard lookupPending else { return }
        lookupPending = false
        watchDone = true
        if foundOnWatch {
            watchSaved = true
        } else {
            takeBack("the watch app was removed before it saved the run")
        }
    }

    /// The phone takes the save back from the watch, once.
    package mutating func takeBack(_ why: String) {
        guard saver == .watch, takenBack == nil, !watchSaved else { return }
        saver = .phone
        takenBack = why
    }
}

/// A phone-led run the watch ended: whether it saved it (the watch's answer to the phone, kept).
package struct WatchRunOutcome: Equatable, Sendable {
    package var runId: String
    package var saved: Bool
    package var endedAt: Double
    package init(runId: String, saved: Bool, endedAt: Double) {
        self.runId = runId
        self.saved = saved
        self.endedAt = endedAt
    }
}

/// The watch's word on a phone-led run it no longer runs (issue 51): it saved it to Health, or ended it
/// unsaved, or (`known` false) it knows nothing of it — an app installed again since. Sent as a userInfo
/// (`transferUserInfo`: durable, delivered at least once, whatever dies), queued once the outcome is
/// durable (the Health save) and before the run is forgotten; the phone takes it once per run (it only
/// ever settles a record).
package struct RunHealthReport: Equatable, Sendable {
    package static let userInfoType = "runHealth"
    package var runId: String
    package var saved: Bool
    package var known = true

    package init(runId: String, saved: Bool, known: Bool = true) {
        self.runId = runId
        self.saved = saved
        self.known = known
    }

    package var userInfo: UserInfo {
        ["type": .string(Self.userInfoType), "runId": .string(runId), "saved": .bool(saved), "known": .bool(known)]
    }

    /// The report `userInfo` is, or nil if it is not one.
    package init?(userInfo: UserInfo) {
        guard userInfo["type"]?.stringValue == Self.userInfoType, let id = userInfo["runId"]?.stringValue, FlightLimits.isFlightID(id),
            let saved = userInfo["saved"]?.boolValue
        else { return nil }
        self.init(runId: id, saved: saved, known: userInfo["known"]?.boolValue ?? true)
    }
}

/// The phone's question to the watch app about the runs it stopped and has not heard of, with its verdict
/// on each (a message, `{type: runHealthQuery, verdicts: {runId: save}}`), and the watch app's answer
/// (`{runs: {runId: running|saved|unsaved|unknown}}`).
package enum RunHealthQuery {
    package static let messageType = "runHealthQuery"

    package enum Answer: String, Sendable {
        /// The watch runs it still (it could not end it now).
        case running
        case saved, unsaved
        /// This watch app never had it (installed again since).
        case unknown
    }

    /// The verdicts a question carries (nil: not a question).
    package static func verdicts(_ message: UserInfo) -> [String: Bool]? {
        guard message["type"]?.stringValue == messageType, let table = message["verdicts"]?.dictionaryValue else { return nil }
        return table.compactMapValues(\.boolValue).filter { FlightLimits.isFlightID($0.key) }
    }

    package static func reply(_ answers: [String: Answer]) -> UserInfo {
        ["runs": .dictionary(answers.mapValues { .string($0.rawValue) })]
    }

    package static func answers(_ reply: UserInfo) -> [(String, Answer)] {
        (reply["runs"]?.dictionaryValue ?? [:]).compactMap { id, value in value.stringValue.flatMap(Answer.init(rawValue:)).map { (id, $0) } }
            .sorted { $0.0 < $1.0 }
    }
}

/// The two devices' tables (one app store schema: each app uses its own).
package final class RunHealthLedger {
    package static let migrations: [Migration] = [
        Migration(
            "run-health.1",
            """
            -- Issue 51: the phone's decision who saves each phone-led run to Health, kept with the run and
            -- after it (PhoneRunHealth, as JSON), and whether it is settled.
            CREATE TABLE phone_run_health (
                run_id TEXT PRIMARY KEY NOT NULL,
                settled INTEGER NOT NULL,
                record TEXT NOT NULL
            ) STRICT;
            CREATE INDEX phone_run_health_unsettled ON phone_run_health (settled) WHERE settled = 0;
            -- Issue 51: the phone-led runs the watch ended, and whether it saved each (its answer, kept).
            CREATE TABLE watch_run_outcomes (
                run_id TEXT PRIMARY KEY NOT NULL,
                saved INTEGER NOT NULL,
                ended_at REAL NOT NULL
            ) STRICT;
            """)
    ]

    let database: Database

    package init(database: Database) {
        self.database = database
    }

    // MARK: - The phone

    package func record(_ runID: String) throws -> PhoneRunHealth? {
        let query = try database.statement("SELECT record FROM phone_run_health WHERE run_id = ?")
        defer { query.reset() }
        try query.bind(runID, at: 1)
        guard try query.step() else { return nil }
        return try Self.decode(query.string(at: 0))
    }

    package func save(_ record: PhoneRunHealth) throws {
        let upsert = try database.statement(
            """
            INSERT INTO phone_run_health (run_id, settled, record) VALUES (?, ?, ?)
            ON CONFLICT (run_id) DO UPDATE SET settled = excluded.settled, record = excluded.record
            """)
        try upsert.bind(record.runId, at: 1)
        try upsert.bind(record.isSettled ? 1 : 0, at: 2)
        try upsert.bind(try JSONValueEncoder().encode(record).text, at: 3)
        try upsert.run()
    }

    /// The records not settled, oldest run first.
    package func unsettled() throws -> [PhoneRunHealth] {
        let query = try database.statement("SELECT record FROM phone_run_health WHERE settled = 0 ORDER BY run_id")
        defer { query.reset() }
        var records: [PhoneRunHealth] = []
        while try query.step() { records.append(try Self.decode(query.string(at: 0))) }
        return records
    }

    package func unsettledCount() throws -> Int64 { try database.scalarInt("SELECT count(*) FROM phone_run_health WHERE settled = 0") }

    static func decode(_ text: String) throws -> PhoneRunHealth {
        try JSONValueDecoder().decode(PhoneRunHealth.self, from: try JSONValue(parsing: Array(text.utf8)))
    }

    // MARK: - The watch

    package func outcome(_ runID: String) throws -> WatchRunOutcome? {
        let query = try database.statement("SELECT saved, ended_at FROM watch_run_outcomes WHERE run_id = ?")
        defer { query.reset() }
        try query.bind(runID, at: 1)
        guard try query.step() else { return nil }
        return WatchRunOutcome(runId: runID, saved: query.int64(at: 0) != 0, endedAt: query.double(at: 1))
    }

    /// Kept in the caller's transaction (the one that forgets the run).
    package func keep(_ outcome: WatchRunOutcome) throws {
        let insert = try database.statement(
            """
            INSERT INTO watch_run_outcomes (run_id, saved, ended_at) VALUES (?, ?, ?)
            ON CONFLICT (run_id) DO UPDATE SET saved = max(saved, excluded.saved)
            """)
        try insert.bind(outcome.runId, at: 1)
        try insert.bind(outcome.saved ? 1 : 0, at: 2)
        try insert.bind(outcome.endedAt, at: 3)
        try insert.run()
    }
}
