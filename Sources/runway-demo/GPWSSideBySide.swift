import Foundation
import JSONText
import PairTesting

/// RunWay 1.3's false SINK RATE and its fix, side by side: the same scripted heart-rate run (zone 140-160;
/// ten minutes at 150 bpm, a rest of three samples falling 150 → 120 → 100, then 150 again) on a watch with
/// `--gpws legacy` and on the fixed one; the phone's Alerts view at the end.
enum GPWSSideBySide {
    static func run() throws {
        say("")
        say("RunWay 1.3's GPWS bug (an 18 km heart-rate run: resting let the heart rate fall and raised SINK RATE),")
        say("the same live run on the watch before and after the fix:")
        let pair = try SimulatedPair(tag: "demo-gpws")
        defer { pair.cleanUp() }
        try pair.startPhone()
        var samples: [JSONValue] = []
        var meters = 0.0
        for i in 1...20 { meters += 100; samples.append(row(Double(i * 30), meters, 300, 150)) }
        for (i, hr) in [150.0, 120, 100].enumerated() { samples.append(row(Double(630 + i * 30), meters, 0, hr)) }
        for i in 1...5 { meters += 100; samples.append(row(Double(690 + i * 30), meters, 300, 150)) }
        let path = pair.root + "/run.json"
        try JSONValue.array(samples).text.write(toFile: path, atomically: true, encoding: .utf8)
        for (behaviour, label) in [("legacy", "legacy (RunWay 1.3 before the fix)"), ("fixed", "fixed (no decision while stationary)")] {
            pair.watchArguments = ["--gpws", behaviour]
            try pair.startWatch()
            _ = try tool(["watch", "run", "start", "--mode", "heart-rate", "--target-hr", "140-160", "--home", pair.watchHome])
            let fed = try JSONValue(parsing: try tool(["watch", "run", "sample", "--json-file", path, "--home", pair.watchHome, "--json"]))
            let rest = (fed["trace"]?.arrayValue ?? []).filter { $0["stationary"] == .bool(true) }
                .map { "\($0["hr"]?.intValue ?? 0) bpm \($0["gpws"]?.stringValue ?? "?")" }
            let stopped = try JSONValue(parsing: try tool(["watch", "run", "stop", "--home", pair.watchHome, "--json"]))
            if let id = stopped["id"]?.stringValue { pair.noteRecorded([id]) }
            let padded = label.padding(toLength: 38, withPad: " ", startingAt: 0)
            say("  \(padded) rest: \(rest.joined(separator: ", ")); alerts: \(stopped["alerts"]?.intValue ?? -1)")
            _ = pair.watch?.stop()
        }
        try pair.startWatch()
        try pair.waitUntilDrained()
        command("runway phone alerts --home \(pair.phoneHome)")
        say(try tool(["phone", "alerts", "--home", pair.phoneHome]).trimmingCharacters(in: .newlines))
        let report = try pair.check()
        say(report.summary.replacingOccurrences(of: ", order kept", with: ""))
        pair.stopAll()
        guard report.isClean else { throw HarnessError(report.violations.joined(separator: "\n")) }
    }

    static func row(_ t: Double, _ meters: Double, _ pace: Double, _ hr: Double) -> JSONValue {
        .array([.number(t), .number(meters), .number(pace), .number(hr)])
    }

    static func tool(_ arguments: [String]) throws -> String {
        let result = try runTool(arguments)
        guard result.status == 0 else { throw HarnessError("runway \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
        return result.stdout
    }
}
