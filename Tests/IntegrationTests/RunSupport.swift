import Foundation
import JSONText
import PairTesting
import Posix
import Testing

/// Live runs through the real CLI: `runway watch run ...`, `runway phone alerts`.
extension SimulatedPair {
    /// `runway watch run ARGS --home W --json`, which must succeed.
    @discardableResult
    func watchRun(_ arguments: [String]) throws -> JSONValue { try run(on: "watch", home: watchHome, arguments) }

    /// `runway phone run ARGS --home P --json`, which must succeed.
    @discardableResult
    func phoneRun(_ arguments: [String]) throws -> JSONValue { try run(on: "phone", home: phoneHome, arguments) }

    /// `runway DEVICE run ARGS --home HOME --json`, which must succeed: its reply.
    private func run(on device: String, home: String, _ arguments: [String]) throws -> JSONValue {
        let result = try runTool([device, "run"] + arguments + ["--home", home, "--json"])
        guard result.status == 0 else {
            throw HarnessError("runway \(device) run \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return try JSONValue(parsing: result.stdout)
    }

    /// Feeds `samples` (`[t, distanceM, paceSecPerKm, hr]` each) as one batch through `--json-file`.
    @discardableResult
    func feed(_ samples: [[Double]]) throws -> JSONValue {
        let path = root + "/batch.json"
        try JSONValue.array(samples.map { .array($0.map(JSONValue.number)) }).text.write(toFile: path, atomically: true, encoding: .utf8)
        return try watchRun(["sample", "--json-file", path])
    }

    /// `runway watch run stop`: the flight id, noted in the checker's history (the run is ≥ 0.1 km).
    @discardableResult
    func stopWatchRun() throws -> JSONValue {
        let stopped = try watchRun(["stop"])
        if let id = stopped["id"]?.stringValue, (stopped["distanceKm"]?.doubleValue ?? 0) >= 0.1 { noteRecorded([id]) }
        return stopped
    }

    /// `runway phone alerts --json`.
    func alertsJSON() throws -> [JSONValue] {
        let result = try runTool(["phone", "alerts", "--home", phoneHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway phone alerts failed (\(result.status)): \(result.stderr)") }
        return try JSONValue(parsing: result.stdout).arrayValue ?? []
    }
}

/// Section D's scripted heart-rate run: ten minutes moving at 150 bpm (a sample every 30 s), three
/// stationary samples falling 150 → 120 → 100, then moving at 150 again.
enum ScriptedRun {
    static func restInTheMiddle(pace: Double = 300) -> [[Double]] {
        var samples: [[Double]] = []
        var meters = 0.0
        for i in 1...20 {
            meters += 100
            samples.append([Double(i * 30), meters, pace, 150])
        }
        for (i, hr) in [150.0, 120, 100].enumerated() { samples.append([Double(600 + (i + 1) * 30), meters, 0, hr]) }
        for i in 1...5 {
            meters += 100
            samples.append([Double(690 + i * 30), meters, pace, 150])
        }
        return samples
    }

    /// A run that raises `count` alerts: alternately under the zone (SINK RATE) and back in it.
    static func withAlerts(_ count: Int) -> [[Double]] {
        var samples: [[Double]] = []
        var meters = 0.0
        for i in 0..<(count * 2 + 2) {
            meters += 100
            samples.append([Double((i + 1) * 30), meters, 300, i % 2 == 0 && i / 2 < count ? 120 : 150])
        }
        return samples
    }
}

extension JSONValue {
    var trace: [JSONValue] { self["trace"]?.arrayValue ?? [] }
}
