import Foundation
import JSONText
import PairTesting
import Posix
import Testing

/// Device time through the real CLI: `runway clock`, `runway phone notifications|reminders`.
extension SimulatedPair {
    /// 2026-10-01T07:00:00Z: where the tests freeze both clocks.
    static let t0 = 1_790_838_000.0
    static let day = 86_400.0

    /// `runway clock ARGS --json`, which must succeed.
    @discardableResult
    func clock(_ arguments: [String]) throws -> JSONValue {
        let result = try runTool(["clock"] + arguments + ["--json"])
        guard result.status == 0 else { throw HarnessError("runway clock \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    /// Freezes both clocks at `at` (phone first).
    func freezeBoth(at: Double = SimulatedPair.t0) throws {
        try clock(["set", Timestamp.iso8601(at), "--phone", phoneHome, "--watch", watchHome, "--frozen"])
    }

    func freezeWatch(at: Double) throws { try clock(["set", Timestamp.iso8601(at), "--home", watchHome, "--frozen"]) }
    func freezePhone(at: Double) throws { try clock(["set", Timestamp.iso8601(at), "--home", phoneHome, "--frozen"]) }
    func advancePhone(_ duration: String) throws { try clock(["advance", duration, "--home", phoneHome]) }

    func phoneJSON(_ arguments: [String]) throws -> JSONValue {
        let result = try runTool(["phone"] + arguments + ["--home", phoneHome, "--json"])
        guard result.status == 0 else { throw HarnessError("runway phone \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)") }
        return try JSONValue(parsing: result.stdout)
    }

    func reminders() throws -> ReminderState { ReminderState(try phoneJSON(["reminders"])) }
    func rescheduleReminders() throws -> ReminderState { ReminderState(try phoneJSON(["reminders", "reschedule"])) }
    func notifications() throws -> ReminderState { ReminderState(try phoneJSON(["notifications"])) }

    /// Records one run on the watch (whose clock says when it ends), waits until the phone has it, and
    /// returns its `startedAt` as the phone stored it: the reminders' basis S.
    func recordRun(distanceKm: Double? = 5) throws -> Double {
        let id = try record(1, distanceKm: distanceKm)[0]
        try waitUntilDrained()
        let flight = try JSONValue(parsing: try runTool(["phone", "flight", id, "--home", phoneHome, "--json"]).stdout)
        return try #require(flight["startedAt"]?.stringValue.flatMap(Timestamp.parseISO8601))
    }
}

/// What `runway phone reminders|notifications --json` said.
struct ReminderState {
    struct Item: Equatable, CustomStringConvertible {
        var id: String
        var fireAt: Double
        var deliveredAt: Double?
        var body: String
        var description: String { "\(id)@\(Timestamp.iso8601(fireAt))" }
    }

    let json: JSONValue
    let pending: [Item]
    let delivered: [Item]

    init(_ json: JSONValue) {
        self.json = json
        func items(_ key: String) -> [Item] {
            (json[key]?.arrayValue ?? []).map {
                Item(
                    id: $0["id"]?.stringValue ?? "", fireAt: $0["fireAt"]?.stringValue.flatMap(Timestamp.parseISO8601) ?? .nan,
                    deliveredAt: $0["deliveredAt"]?.stringValue.flatMap(Timestamp.parseISO8601), body: $0["body"]?.stringValue ?? "")
            }
        }
        pending = items("pending")
        delivered = items("delivered")
    }

    var pendingIDs: [String] { pending.map(\.id) }
    var deliveredIDs: [String] { delivered.map(\.id) }
}

enum Stage {
    static func id(_ days: Int) -> String { "runway.reminder.\(days)d" }
    static let all = [7, 14, 21, 28].map(id)
    static let legacy = "runway.reminder.inactivity"
}
