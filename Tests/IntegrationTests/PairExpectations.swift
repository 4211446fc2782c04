import Connectivity
import Control
import Foundation
import PairTesting
import Testing

/// The closing lines of every integration test that moves flights, in one place: the invariant checker
/// (no loss, no duplicate, order kept, outboxes empty, stores intact) and, when given, the number of
/// flights the phone must hold. The expectations are recorded at the caller's line (`sourceLocation`).
extension SimulatedPair {
    /// Starts only `server` — the phone's or the watch's daemon, with the test commands, or phone-os or
    /// watch-os, no app launched — and returns its device's home.
    func startAlone(_ server: ControlServerKind) throws -> DeviceHome {
        switch server {
        case .watch:
            watchArguments = ["--enable-test-commands"]
            try startWatch()
        case .phone:
            phoneArguments = ["--enable-test-commands"]
            try startPhone()
        case .phoneOS: try startPhoneOS()
        case .watchOS: try startWatchOS()
        }
        let role: DeviceRole = server == .watch || server == .watchOS ? .watch : .phone
        return DeviceHome(path: role == .watch ? watchHome : phoneHome, role: role)
    }

    /// `text` in a new file under the pair's root, for a command's `--json-file`: its path.
    func jsonFile(_ text: String) throws -> String {
        let path = root + "/payload-\(UInt32.random(in: 0...UInt32.max)).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
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
