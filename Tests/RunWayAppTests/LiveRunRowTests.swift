import PairTesting
import Storage
import Testing
@testable import RunWayApp
@testable import RunWayDomain

/// The live run's header is declared once (`LiveRunStore.Header`): its row in `live_run` has its coding
/// keys for columns, written and read by name, and a run stored before keeps its run in progress.
@Suite struct LiveRunRowTests {
    static let run = LiveRun(
        id: "01938B2C-7A00-7000-8000-000000000000", startedAt: 1_790_000_000.25,
        target: GPWSTarget(mode: .heartRate, paceSecondsPerKm: 360, toleranceSecondsPerKm: 15, low: 140, high: 160), behaviour: .legacy,
        startOrigin: .remote)

    static func expectSame(_ loaded: LiveRun?, _ run: LiveRun, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(loaded?.id == run.id && loaded?.startedAt == run.startedAt && loaded?.target == run.target, sourceLocation: sourceLocation)
        #expect(loaded?.engine.behaviour == run.engine.behaviour && loaded?.startOrigin == run.startOrigin, sourceLocation: sourceLocation)
    }

    @Test func theRowIsTheHeadersKeysInOrder() throws {
        let (_, database) = try makeTemporaryStore("live-run-row", FlightStore.migrations)
        let store = LiveRunStore(database: database)
        try store.begin(Self.run)
        let row = try database.statement("SELECT * FROM live_run")
        defer { row.reset() }
        #expect(try row.step())
        let columns = (0..<row.columnCount).map { row.columnName(at: $0) }
        #expect(
            columns == ["slot", "run_id", "started_at", "mode", "target_pace", "tolerance", "zone_low", "zone_high", "behaviour", "start_origin"])
        let values = (0..<row.columnCount).map { row.string(at: $0) }
        #expect(values == ["1", Self.run.id, "1790000000.25", "heartRate", "360.0", "15.0", "140.0", "160.0", "legacy", "remote"])
        Self.expectSame(try store.load(), Self.run)
    }

    /// A row written by name, as the code before the header's declaration wrote it (its nine columns by
    /// position, in `live-run.1`'s names), is read back whole.
    @Test func aRunWrittenBeforeTheDeclarationIsFoundAgain() throws {
        let (_, database) = try makeTemporaryStore("live-run-row", FlightStore.migrations)
        try database.execute(
            """
            INSERT INTO live_run (slot, run_id, started_at, mode, target_pace, tolerance, zone_low, zone_high, behaviour, start_origin)
            VALUES (1, '\(Self.run.id)', 1790000000.25, 'heartRate', 360, 15, 140, 160, 'legacy', 'remote')
            """)
        Self.expectSame(try LiveRunStore(database: database).load(), Self.run)
    }
}
