import Connectivity
import Control
import PairTesting
import Testing

/// The closing lines of every integration test that moves flights, in one place: the invariant checker
/// (no loss, no duplicate, order kept, outboxes empty, stores intact) and, when given, the number of
/// flights the phone must hold. The expectations are recorded at the caller's line (`sourceLocation`).
extension SimulatedPair {
    /// Starts only `server`'s daemon (the phone or the watch), with the test commands, and returns its home.
    func startAlone(_ server: ControlServerKind) throws -> DeviceHome {
        if server == .watch {
            watchArguments = ["--enable-test-commands"]
            try startWatch()
            return DeviceHome(path: watchHome, role: .watch)
        }
        phoneArguments = ["--enable-test-commands"]
        try startPhone()
        return DeviceHome(path: phoneHome, role: .phone)
    }

    /// Waits (up to `timeout` s) until the watch's outbox is empty, then `expectClean`.
    @discardableResult
    func expectDrainedAndClean(
        stored: Int? = nil, timeout: Double = 120, _ context: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> InvariantReport {
        try waitUntilDrained(timeout: timeout)
        return try expectClean(stored: stored, context, sourceLocation: sourceLocation)
    }

    /// Runs the invariant checker now and expects a clean report holding `stored` flights (when given).
    /// `context` starts the failure's message (a seed, another report's summary).
    @discardableResult
    func expectClean(
        stored: Int? = nil, _ context: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> InvariantReport {
        let report = try check()
        let violations = report.violations.joined(separator: "\n")
        #expect(
            report.isClean, Comment(rawValue: context.isEmpty ? violations : context + ": " + violations),
            sourceLocation: sourceLocation)
        if let stored { #expect(report.stored == stored, sourceLocation: sourceLocation) }
        return report
    }
}
