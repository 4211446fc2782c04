import Foundation
import Glibc
import PairTesting
import Testing

/// Every named crash point, hit on purpose through the real binaries: the armed daemon SIGKILLs itself
/// in that window, is relaunched without it, the backlog drains, and the phone must hold exactly the
/// recorded flights, none twice, in recording order. The windows are listed in docs/guarantees.md.
@Suite(.serialized) struct CrashPointTests {
    static let flights = 300

    /// Waits for `daemon` to die at `point`, by its own SIGKILL.
    func expectCrash(_ daemon: DaemonProcess?, at point: String) throws {
        let daemon = try #require(daemon)
        try #require(daemon.waitForExit(timeout: 60), "\(point) was never reached; log: \(daemon.logTail())")
        #expect(daemon.terminationSignal == SIGKILL)
        let log = try String(contentsOfFile: daemon.logPath, encoding: .utf8)
        #expect(log.contains("crash point \(point) reached"))
    }

    func expectExactlyTheRecordedFlights(
        _ pair: SimulatedPair, count: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let report = try pair.expectClean(stored: count, sourceLocation: sourceLocation)
        #expect(report.recorded == count, sourceLocation: sourceLocation)
    }

    // MARK: - Receive path (the phone)

    /// The flights recorded, the phone started to crash at `point` and crashed there, what it stored
    /// (read offline) given to `storedAtTheCrash`; then the phone relaunched drains the watch, and every
    /// recorded flight is stored exactly once.
    func crashThenRelaunch(at point: String, storedAtTheCrash: (Int) -> Void) throws {
        try withRunningPair(tag: "cp", phone: nil) { pair in
            try pair.record(Self.flights)
            try pair.startPhone(environment: ["RUNWAY_CRASH_AT": point])
            try expectCrash(pair.phone, at: point)
            storedAtTheCrash(try pair.storedCountOffline())
            try pair.startPhone()
            try pair.waitUntilDrained()
            try expectExactlyTheRecordedFlights(pair, count: Self.flights)
        }
    }

    /// Before anything is committed: the crashed phone stored nothing, and the watch resends it all.
    @Test(arguments: ["receive.frame-read", "receive.mid-batch", "receive.before-commit"])
    func aCrashBeforeTheReceiveCommitLosesNothing(point: String) throws {
        try crashThenRelaunch(at: point) { stored in
            #expect(stored == 0, "the first receive transaction must not have committed")
        }
    }

    /// Committed (and perhaps acknowledged) before the crash: what was stored stays, what the watch
    /// resends because it never saw the acknowledgement is acknowledged again, not stored twice. At
    /// `receive.after-app-commit` the app's store has the batch and the session's cursor does not: the
    /// whole batch is delivered again, and the app's dedup by flight id stores none of it twice.
    @Test(arguments: ["receive.after-app-commit", "receive.after-commit", "receive.after-ack"])
    func aCrashAfterTheReceiveCommitStoresNothingTwice(point: String) throws {
        try crashThenRelaunch(at: point) { stored in
            #expect(stored > 0, "the first receive transaction must have committed")
        }
    }

    /// The same windows with RunWay 1.3's phone, which holds a received flight only in memory until a
    /// home screen appears: the acknowledged flights die with it, and the checker names them. This is
    /// what shows that the test above can fail.
    @Test(arguments: ["receive.after-commit", "receive.after-ack"])
    func theLegacyPhoneLosesWhatItHeldInMemory(point: String) throws {
        try withRunningPair(tag: "cp", phone: nil) { pair in
            pair.phoneArguments = ["--save-path", "ui-drain"]
            try pair.record(Self.flights)
            try pair.startPhone(environment: ["RUNWAY_CRASH_AT": point])
            try expectCrash(pair.phone, at: point)
            try pair.startPhone()
            try pair.waitUntilDrained()
            try pair.openHomeScreen()
            let report = try pair.check()
            #expect(!report.isClean)
            #expect(!report.lost.isEmpty)
            #expect(report.stored + report.lost.count == Self.flights)
            #expect(report.duplicated.isEmpty && report.unexpected.isEmpty && report.orderKept)
            // The lost ones are the first to arrive: everything after them was saved by the home screen.
            #expect(Array(pair.recorded.prefix(report.lost.count)) == report.lost)
        }
    }

    // MARK: - Send path (the watch)

    /// After the outbox commit, before the recording call is answered: the call fails, yet its flights
    /// are queued and must arrive — whole, and between the calls made before and after it.
    @Test func aCrashAfterTheOutboxCommitDeliversTheUnansweredRecording() throws {
        let point = "send.after-enqueue"
        try withRunningPair(tag: "cp", watch: nil) { pair in
            try pair.startWatch(environment: ["RUNWAY_CRASH_AT": point + ":2"])
            try pair.record(100)
            let unanswered = try pair.finish(try pair.startRecording(100))
            guard case .indeterminate = unanswered else {
                Issue.record("the second recording should have gone unanswered, not \(unanswered)")
                return
            }
            try expectCrash(pair.watch, at: point)
            try pair.startWatch()
            try pair.record(100)
            let report = try pair.expectDrainedAndClean(stored: 300)
            #expect(report.indeterminateCommitted == 1 && report.indeterminateFlights == 100)
        }
    }

    /// After the recording was answered, before any frame left: nothing reached the phone, and the
    /// relaunched watch sends it all from its outbox.
    @Test func aCrashBeforeSendingLosesNothing() throws {
        try watchCrashThenRelaunch(at: "send.before-send") { stored in #expect(stored == 0) }
    }

    /// After the phone's acknowledgement arrived, before the outbox delete: the relaunched watch learns
    /// the phone's resume point in the handshake, drops what is stored, and sends only the rest.
    @Test func aCrashBeforeTheOutboxDeleteStoresNothingTwice() throws {
        try watchCrashThenRelaunch(at: "send.after-ack-received") { stored in #expect(stored > 0) }
    }

    /// The watch started to crash at `point`, the flights recorded, the watch crashed there, what the
    /// phone stored by then given to `storedAtTheCrash`; then the watch relaunched sends what is left,
    /// and every recorded flight is stored exactly once.
    func watchCrashThenRelaunch(at point: String, storedAtTheCrash: (Int) -> Void) throws {
        try withRunningPair(tag: "cp", watch: nil) { pair in
            try pair.startWatch(environment: ["RUNWAY_CRASH_AT": point])
            try pair.record(Self.flights)
            try expectCrash(pair.watch, at: point)
            storedAtTheCrash(try pair.storedCount())
            try pair.startWatch()
            try pair.waitUntilDrained()
            try expectExactlyTheRecordedFlights(pair, count: Self.flights)
        }
    }
}
