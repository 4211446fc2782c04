import Foundation
import JSONText
import PairTesting
import Posix
import Testing

/// The Pre-flight check, the versions and the update notice through the real CLI.
extension SimulatedPair {
    /// `runway ARGS --json`, which must succeed.
    @discardableResult
    func runwayJSON(_ arguments: [String]) throws -> JSONValue {
        let result = try runTool(arguments + ["--json"])
        guard result.status == 0 else { throw HarnessError("runway \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    func preflight(legacy: Bool = false) throws -> JSONValue {
        try runwayJSON(["phone", "preflight", "--home", phoneHome] + (legacy ? ["--legacy"] : []))
    }

    /// The row's label, and whether heart-rate mode follows it (the one rule): checked on every read.
    func row(legacy: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let shown = try preflight(legacy: legacy)
        if !legacy {
            #expect(shown["heartRateMode"]?["available"] == shown["appleWatch"]?["ok"], "\(shown.text)", sourceLocation: sourceLocation)
        }
        return shown["appleWatch"]?["label"]?.stringValue ?? "?"
    }

    func updateCheck() throws -> JSONValue { try runwayJSON(["phone", "update", "check", "--home", phoneHome]) }
    func updateStatus() throws -> JSONValue { try runwayJSON(["phone", "update", "status", "--home", phoneHome]) }
    @discardableResult
    func appstore(_ arguments: [String]) throws -> JSONValue { try runwayJSON(["appstore"] + arguments + ["--home", phoneHome]) }
    var lookups: Int { (try? appstore(["show"])["lookups"]?.intValue) ?? -1 }

    /// `runway phone ui`, attached (its logbook listed), as a running process.
    func attachUI() throws -> RunningTool {
        let ui = try RunningTool(["phone", "ui", "--home", phoneHome])
        try waitUntil("runway phone ui is attached", timeout: 30) {
            guard ui.isRunning else { throw HarnessError("runway phone ui exited: \(ui.wait().stderr)") }
            return ui.stdoutSoFar.contains("-- attached")
        }
        return ui
    }

    /// Waits until no update lookup is on its way.
    func waitUntilNoLookup() throws {
        try waitUntil("no update lookup is on its way", timeout: 30) { try updateStatus()["checking"] == .bool(false) }
    }

    func logLines(_ path: String, containing text: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }
}

extension RunningTool {
    func close() {
        signal(SIGKILL)
        _ = wait()
    }
}
