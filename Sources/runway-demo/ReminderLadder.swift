import Foundation
import PairTesting

/// RunWay 1.3.2's inactivity reminders, a month of a user's life in a few seconds: one run, the four
/// pending reminders, the phone's clock advanced 30 days, the four delivered.
enum ReminderLadder {
    static func run() throws {
        say("")
        say("RunWay 1.3.2's inactivity reminders: a month without running, on the devices' clocks.")
        let pair = try SimulatedPair(tag: "demo-ladder")
        defer { pair.cleanUp() }
        try pair.startWatch()
        try pair.startPhone()
        try show(["clock", "set", "2026-10-01T07:00:00Z", "--phone", pair.phoneHome, "--watch", pair.watchHome, "--frozen"])
        command("runway watch record --home \(pair.watchHome) --distance 5      # one run, ending at the watch's now")
        say(try pair.record(1, distanceKm: 5).joined(separator: "\n"))
        try pair.waitUntilDrained()
        try show(["phone", "reminders", "--home", pair.phoneHome])
        try show(["clock", "advance", "30d", "--home", pair.phoneHome], label: "runway clock advance 30d --home \(pair.phoneHome)      # no run for a month")
        let report = try pair.check()
        say(report.summary.replacingOccurrences(of: ", order kept", with: ""))
        pair.stopAll()
        guard report.isClean else { throw HarnessError(report.violations.joined(separator: "\n")) }
    }

    private static func show(_ arguments: [String], label: String? = nil) throws {
        command(label ?? "runway " + arguments.joined(separator: " "))
        let result = try runTool(arguments)
        guard result.status == 0 else { throw HarnessError("runway \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
        say(result.stdout.trimmingCharacters(in: .newlines))
    }
}
