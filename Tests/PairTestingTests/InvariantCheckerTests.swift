import Foundation
import PairTesting
import Storage
import Testing

/// The checker must see every kind of violation, or a clean chaos run proves nothing.
@Suite struct InvariantCheckerTests {
    let recorded = ["A", "B", "C", "D"]

    // MARK: - Stored flights against successful recordings

    @Test func aCleanStorePasses() {
        let report = InvariantChecker.check(recorded: recorded, stored: recorded)
        #expect(report.isClean)
        #expect(report.violations.isEmpty)
        #expect(report.summary == "4 recorded, 4 stored, 0 lost, 0 duplicated, order kept")
    }

    @Test func aMissingFlightIsReportedLostByID() {
        let report = InvariantChecker.check(recorded: recorded, stored: ["A", "B", "D"])
        #expect(!report.isClean)
        #expect(report.lost == ["C"])
        #expect(report.summary == "4 recorded, 3 stored, 1 lost, 0 duplicated, order kept")
        #expect(report.violations == ["lost (1): C"])
    }

    @Test func aFlightStoredTwiceIsReportedDuplicatedByID() {
        let report = InvariantChecker.check(recorded: recorded, stored: ["A", "B", "B", "C", "D"])
        #expect(!report.isClean)
        #expect(report.duplicated == ["B"])
        #expect(report.lost.isEmpty)
        #expect(report.orderKept)
        #expect(report.summary == "4 recorded, 5 stored, 0 lost, 1 duplicated, order kept")
    }

    @Test func flightsStoredOutOfRecordingOrderBreakTheOrder() {
        let report = InvariantChecker.check(recorded: recorded, stored: ["A", "C", "B", "D"])
        #expect(!report.isClean)
        #expect(!report.orderKept)
        #expect(report.orderViolation?.earlier == "B")
        #expect(report.orderViolation?.later == "C")
        #expect(report.lost.isEmpty && report.duplicated.isEmpty)
        #expect(report.summary.hasSuffix("ORDER BROKEN"))
    }

    @Test func aFlightNobodyRecordedIsUnexpected() {
        let report = InvariantChecker.check(recorded: recorded, stored: recorded + ["Z"])
        #expect(!report.isClean)
        #expect(report.unexpected == ["Z"])
    }

    @Test func transfersLeftInAnOutboxAreAViolation() {
        let report = InvariantChecker.check(recorded: recorded, stored: recorded, outstandingTransfers: 2)
        #expect(!report.isClean)
        #expect(report.violations == ["outboxes not empty: 2 transfers outstanding"])
    }

    // MARK: - Recordings that got no answer

    @Test func anUnansweredRecordingStoredWholeAndInPlaceCountsAsRecorded() {
        let history: [Recording] = [.succeeded(["A", "B"]), .indeterminate(count: 2), .succeeded(["C"])]
        let report = InvariantChecker.check(history: history, stored: ["A", "B", "x1", "x2", "C"])
        #expect(report.isClean, "\(report.violations)")
        #expect(report.indeterminateCalls == 1)
        #expect(report.indeterminateCommitted == 1)
        #expect(report.indeterminateFlights == 2)
        #expect(report.summary == "5 recorded, 5 stored, 0 lost, 0 duplicated, order kept")
    }

    @Test func anUnansweredRecordingThatNeverCommittedIsClean() {
        let history: [Recording] = [.succeeded(["A"]), .indeterminate(count: 3), .succeeded(["B"])]
        let report = InvariantChecker.check(history: history, stored: ["A", "B"])
        #expect(report.isClean)
        #expect(report.indeterminateCommitted == 0)
        #expect(report.recorded == 2)
    }

    @Test func twoAdjacentUnansweredRecordingsMayBothHaveCommitted() {
        let history: [Recording] = [.indeterminate(count: 1), .indeterminate(count: 2), .succeeded(["A"])]
        let report = InvariantChecker.check(history: history, stored: ["x", "y1", "y2", "A"])
        #expect(report.isClean)
        #expect(report.indeterminateCommitted == 2)
    }

    @Test func partOfAnUnansweredRecordingIsUnexpected() {
        // A recording is one transaction: two of its three flights cannot exist without the third.
        let history: [Recording] = [.succeeded(["A"]), .indeterminate(count: 3), .succeeded(["B"])]
        let report = InvariantChecker.check(history: history, stored: ["A", "x1", "x2", "B"])
        #expect(!report.isClean)
        #expect(report.unexpected == ["x1", "x2"])
    }

    @Test func anUnansweredRecordingStoredOutOfPlaceIsUnexpected() {
        // Made before B, so its flights cannot arrive after B's.
        let history: [Recording] = [.succeeded(["A"]), .indeterminate(count: 1), .succeeded(["B"])]
        let report = InvariantChecker.check(history: history, stored: ["A", "B", "x"])
        #expect(!report.isClean)
        #expect(report.unexpected == ["x"])
    }

    @Test func nothingUnknownFitsInsideOneRecording() {
        let history: [Recording] = [.indeterminate(count: 1), .succeeded(["A", "B"])]
        let report = InvariantChecker.check(history: history, stored: ["x", "A", "y", "B"])
        #expect(report.unexpected == ["y"])
    }

    // MARK: - Stores

    @Test func aDamagedStoreFailsTheIntegrityCheck() throws {
        let directory = NSTemporaryDirectory() + "rw-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX t_body ON t (body)")
        try database.transaction {
            for index in 0..<2000 { try database.execute("INSERT INTO t (body) VALUES ('row \(index) \(String(repeating: "x", count: 40))')") }
        }
        database.close()
        #expect(InvariantChecker.check(recorded: [], stored: [], storePaths: [path]).isClean)

        // Scribble over the middle of the file, as a torn or misdirected write would.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = handle.seekToEndOfFile()
        handle.seek(toFileOffset: size / 2)
        handle.write(Data(repeating: 0xA5, count: 8192))
        handle.closeFile()

        let report = InvariantChecker.check(recorded: [], stored: [], storePaths: [path])
        #expect(!report.isClean)
        #expect(report.integrityProblems.count == 1)
        #expect(report.summary.hasSuffix("store damaged"))
    }

    // MARK: - The chaos schedule

    @Test func aSeedNamesOneSchedule() {
        let first = ChaosSchedule.make(seed: 42, iterations: 200)
        #expect(first == ChaosSchedule.make(seed: 42, iterations: 200))
        #expect(first != ChaosSchedule.make(seed: 43, iterations: 200))
        #expect(first.count == 200)
        let actions = first.flatMap { $0 }
        #expect(actions.contains(.killPhone) && actions.contains(.killWatch))
        #expect(actions.contains(.linkDown) && actions.contains(.linkUp))
    }

    /// Under watch-os the watch's disruptions are watch-os's kills and its app's jetsams and closes; without
    /// it a seed names the schedule it always did.
    @Test func underWatchOSTheAppIsJetsammedAndClosedToo() {
        let plain = ChaosSchedule.make(seed: 42, iterations: 200)
        #expect(plain == ChaosSchedule.make(seed: 42, iterations: 200, watchOS: false))
        #expect(!plain.flatMap { $0 }.contains(.jetsamWatchApp))
        let underOS = ChaosSchedule.make(seed: 42, iterations: 200, watchOS: true)
        #expect(underOS == ChaosSchedule.make(seed: 42, iterations: 200, watchOS: true))
        let actions = underOS.flatMap { $0 }
        #expect(actions.contains(.jetsamWatchApp) && actions.contains(.closeWatchApp) && actions.contains(.killWatch))
        for iteration in underOS { #expect(iteration.contains(.killWatch) == iteration.contains(.relaunchWatch)) }
    }

    @Test func everyKillIsFollowedByARelaunchWithinItsIteration() {
        for iteration in ChaosSchedule.make(seed: 7, iterations: 500) {
            #expect(iteration.contains(.killPhone) == iteration.contains(.relaunchPhone))
            #expect(iteration.contains(.killWatch) == iteration.contains(.relaunchWatch))
        }
    }
}

/// Several watches (issue 25): each watch's flights stored once, in its own order, interleaved freely.
@Suite struct SeveralWatchesCheckerTests {
    @Test func eachWatchsOrderIsItsOwnAndNoneMayBeLostOrMixedIn() {
        let first: [Recording] = [.succeeded(["a1", "a2"])]
        let clean = InvariantChecker.check(history: first, stored: ["b1", "a1", "b2", "a2"], otherWatches: [["b1", "b2"]])
        #expect(clean.isClean, "\(clean.violations)")
        #expect(clean.recorded == 4)
        let reordered = InvariantChecker.check(history: first, stored: ["a1", "b2", "b1", "a2"], otherWatches: [["b1", "b2"]])
        #expect(!reordered.orderKept && reordered.orderViolation?.earlier == "b1")
        let lost = InvariantChecker.check(history: first, stored: ["a1", "a2", "b1"], otherWatches: [["b1", "b2"]])
        #expect(lost.lost == ["b2"])
        let twice = InvariantChecker.check(history: first, stored: ["a1", "b1", "a2", "b1"], otherWatches: [["b1"]])
        #expect(twice.duplicated == ["b1"])
        let unknown = InvariantChecker.check(history: first, stored: ["a1", "a2", "b1"])
        #expect(unknown.unexpected == ["b1"], "another watch's flight the checker was not told of")
    }
}

/// The Health check (issue 51): each finished run counted across both devices' `health_workouts`, read
/// with the checker's own SQL — in exactly one store, once; a run in none or in two is named with where
/// it was saved.
@Suite struct HealthReportTests {
    static func store(_ path: String, _ rows: [(uuid: String, external: String?)]) throws {
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("CREATE TABLE health_workouts (uuid TEXT PRIMARY KEY NOT NULL, metadata TEXT NOT NULL) STRICT")
        for row in rows {
            let metadata = row.external.map { #"{"HKExternalUUID":"\#($0)"}"# } ?? "{}"
            try database.execute("INSERT INTO health_workouts (uuid, metadata) VALUES ('\(row.uuid)', '\(metadata)')")
        }
    }

    @Test func eachRunIsCountedOnBothDevices() throws {
        let directory = NSTemporaryDirectory() + "hr-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (a, b, c, d) = (
            "0000000A-0000-7000-8000-000000000000", "0000000B-0000-7000-8000-000000000000", "0000000C-0000-7000-8000-000000000000",
            "0000000D-0000-7000-8000-000000000000"
        )
        // a on the watch only; b on both (the double save); c nowhere (lost); d on the phone, named by its
        // metadata under another uuid; e on the watch, a run that did not finish.
        try Self.store(directory + "/phone.sqlite", [(b, nil), ("0000000F-0000-7000-8000-000000000000", d)])
        try Self.store(directory + "/watch.sqlite", [(a, a), (b, b), ("0000000E-0000-7000-8000-000000000000", nil)])
        let report = HealthReport.check(runs: [a, b, c, d], phoneStore: directory + "/phone.sqlite", watchStore: directory + "/watch.sqlite")
        #expect(!report.isClean)
        #expect(report.saves[a] == HealthSaves(phone: 0, watch: 1))
        #expect(report.saves[b] == HealthSaves(phone: 1, watch: 1))
        #expect(report.saves[c] == nil && report.saves[d] == HealthSaves(phone: 1, watch: 0))
        #expect(report.missing == [c] && report.duplicated == [b])
        #expect(report.unexplained == ["0000000E-0000-7000-8000-000000000000"])
        #expect(report.violations.contains { $0.contains("\(b) (phone 1 + watch 1)") }, "\(report.violations)")
        // A store not there holds none.
        let empty = HealthReport.check(runs: [a], phoneStore: directory + "/none.sqlite", watchStore: directory + "/watch.sqlite")
        #expect(empty.isClean == false && empty.duplicated.isEmpty && empty.missing.isEmpty && empty.unexplained.count == 2)
    }
}
