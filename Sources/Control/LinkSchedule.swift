import Connectivity
import JSONText
import Posix

/// A timeline of link conditions (`runway link schedule FILE`, docs/link-conditions.md): steps at times
/// from the schedule's start, each a change to the conditions (`LinkConditionsChange`), and a seed for the
/// draws of jitter and loss, so that a schedule plays again with the same draws.
///
///     {"seed": 7, "steps": [
///       {"at": 0, "latencyMs": 50, "jitterMs": 20, "loss": 0.2},
///       {"at": 2000, "range": "wifi"},
///       {"at": 4000, "range": "out"},
///       {"at": 6000, "range": "near", "reset": true}]}
///
/// The parser is total (`ParserProperties`' `link-schedule` target): any bytes give a schedule or one
/// line saying what is wrong, and nothing is applied unless all of it is right.
package struct LinkSchedule: Equatable, Sendable {
    package struct Step: Equatable, Sendable {
        /// Milliseconds after the schedule starts.
        package var at: Int
        package var change: LinkConditionsChange

        package init(at: Int, change: LinkConditionsChange) {
            self.at = at
            self.change = change
        }
    }

    package var steps: [Step]
    package var seed: UInt64?

    package init(steps: [Step], seed: UInt64? = nil) {
        self.steps = steps
        self.seed = seed
    }

    package static let maximumSteps = 1000
    /// A day: the last step's latest time.
    package static let maximumAt = 86_400_000
    package static let maximumFileBytes = 1 << 20
    static let stepKeys: Set<String> = ["at", "latencyMs", "jitterMs", "loss", "bandwidthKbps", "range", "reset"]

    /// A schedule file: `{"seed"?: S, "steps": [...]}`.
    package static func parse(file bytes: [UInt8]) throws(ControlError) -> LinkSchedule {
        guard bytes.count <= maximumFileBytes else { throw .invalid("the schedule is \(bytes.count) bytes; at most \(maximumFileBytes)") }
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes) } catch { throw .invalid("the schedule is not JSON: \(OneLine.escape("\(error)"))") }
        guard let fields = json.objectValue else { throw .invalid("the schedule must be a JSON object with \"steps\"") }
        if let unknown = fields.keys.sorted().first(where: { $0 != "seed" && $0 != "steps" }) {
            throw .invalid("the schedule has an unknown key \(OneLine.quote(unknown)) (it takes seed and steps)")
        }
        var seed: UInt64?
        if let raw = fields["seed"] {
            guard let value = raw.intValue, value >= 0 else { throw .invalid("the schedule's seed must be a whole number from 0 to \(Int.max)") }
            seed = UInt64(value)
        }
        guard let steps = fields["steps"] else { throw .invalid("the schedule has no \"steps\"") }
        return LinkSchedule(steps: try parse(steps: steps), seed: seed)
    }

    /// The steps, as the file holds them and as `link-schedule` carries them.
    package static func parse(steps json: JSONValue) throws(ControlError) -> [Step] {
        guard let items = json.arrayValue else { throw .invalid("the schedule's steps must be an array") }
        guard !items.isEmpty else { throw .invalid("the schedule has no steps") }
        guard items.count <= maximumSteps else { throw .invalid("the schedule has \(items.count) steps; at most \(maximumSteps)") }
        var steps: [Step] = []
        steps.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let step = try parse(step: item, number: index + 1)
            if let previous = steps.last, step.at < previous.at {
                throw .invalid("step \(index + 1) is at \(step.at) ms, before step \(index) (\(previous.at) ms): steps go in time order")
            }
            steps.append(step)
        }
        return steps
    }

    static func parse(step item: JSONValue, number: Int) throws(ControlError) -> Step {
        guard let fields = item.objectValue else { throw .invalid("step \(number) must be a JSON object") }
        if let unknown = fields.keys.sorted().first(where: { !stepKeys.contains($0) }) {
            throw .invalid("step \(number) has an unknown key \(OneLine.quote(unknown)) (it takes \(stepKeys.sorted().joined(separator: ", ")))")
        }
        guard let at = fields["at"]?.intValue, (0...maximumAt).contains(at) else {
            throw .invalid("step \(number) needs \"at\", a whole number of milliseconds from 0 to \(maximumAt)")
        }
        func whole(_ key: String, _ range: ClosedRange<Int>) throws(ControlError) -> Int? {
            guard let raw = fields[key] else { return nil }
            guard let value = raw.intValue, range.contains(value) else {
                throw .invalid("step \(number): \(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        var change = LinkConditionsChange()
        change.latencyMilliseconds = try whole("latencyMs", LinkConditions.latencyRange)
        change.jitterMilliseconds = try whole("jitterMs", LinkConditions.jitterRange)
        change.bandwidthKbps = try whole("bandwidthKbps", LinkConditions.bandwidthRange)
        if let raw = fields["loss"] {
            guard let loss = raw.doubleValue, loss.isFinite, LinkConditions.lossRange.contains(loss) else {
                throw .invalid("step \(number): loss must be a number from 0 to 1")
            }
            change.loss = loss
        }
        if let raw = fields["range"] {
            guard let name = raw.stringValue, let range = LinkRange(rawValue: name) else {
                throw .invalid("step \(number): range must be near, wifi or out")
            }
            change.range = range
        }
        if let raw = fields["reset"] {
            guard let reset = raw.boolValue else { throw .invalid("step \(number): reset must be true or false") }
            change.reset = reset
        }
        guard !change.isEmpty else { throw .invalid("step \(number) changes nothing (give latencyMs, jitterMs, loss, bandwidthKbps, range or reset)") }
        return Step(at: at, change: change)
    }

    /// The steps as `link-schedule` carries them (and as the file holds them).
    package var stepsJSON: JSONValue {
        .array(
            steps.map { step in
                var fields: [String: JSONValue] = ["at": .integer(Int64(step.at))]
                let change = step.change
                if let value = change.latencyMilliseconds { fields["latencyMs"] = .integer(Int64(value)) }
                if let value = change.jitterMilliseconds { fields["jitterMs"] = .integer(Int64(value)) }
                if let value = change.loss { fields["loss"] = .number(value) }
                if let value = change.bandwidthKbps { fields["bandwidthKbps"] = .integer(Int64(value)) }
                if let value = change.range { fields["range"] = .string(value.rawValue) }
                if change.reset { fields["reset"] = .bool(true) }
                return .object(fields)
            })
    }
}

// MARK: - The conditions saved in the watch's home

extension LinkSchedule {
    /// Conditions as `HOME/link-conditions.json` keeps them (the keys of a step, without `at`).
    package static func json(_ conditions: LinkConditions) -> JSONValue {
        .object([
            "latencyMs": .integer(Int64(conditions.latencyMilliseconds)), "jitterMs": .integer(Int64(conditions.jitterMilliseconds)),
            "loss": .number(conditions.loss), "bandwidthKbps": .integer(Int64(conditions.bandwidthKbps)), "range": .string(conditions.range.rawValue),
        ])
    }

    /// Reads what `json(_:)` wrote, as strictly as a step: a file edited by hand is checked the same way.
    package static func conditions(from json: JSONValue) throws(ControlError) -> LinkConditions {
        guard var fields = json.objectValue, fields["at"] == nil, fields["reset"] == nil else {
            throw .invalid("the saved link conditions are not an object of latencyMs, jitterMs, loss, bandwidthKbps and range")
        }
        fields["at"] = .integer(0)
        fields["reset"] = .bool(true)
        return try parse(step: .object(fields), number: 1).change.applied(to: LinkConditions())
    }
}

// MARK: - The schedule playing, saved in the watch's home

/// A schedule as `HOME/link-schedule.json` keeps it while it plays, so that whoever holds the watch's
/// link next — the watch app launched by `watch-os`, `watch-os` once the app is gone, a restarted
/// `watch-agent` — plays the rest of it: its steps, its seed, when it started (`CLOCK_MONOTONIC`, which
/// every process on the machine shares) and how many steps were applied.
package struct SavedLinkSchedule: Equatable, Sendable {
    package var steps: [LinkSchedule.Step]
    package var seed: UInt64
    /// The monotonic clock when it started, nanoseconds.
    package var startedAt: UInt64
    package var applied: Int

    package init(steps: [LinkSchedule.Step], seed: UInt64, startedAt: UInt64, applied: Int) {
        self.steps = steps
        self.seed = seed
        self.startedAt = startedAt
        self.applied = applied
    }

    package var json: JSONValue {
        .object([
            "steps": LinkSchedule(steps: steps).stepsJSON, "seed": .integer(Int64(truncatingIfNeeded: seed)),
            "startedAtNs": .integer(Int64(truncatingIfNeeded: startedAt)), "applied": .integer(Int64(applied)),
        ])
    }

    /// Reads what `json` wrote, as strictly as a schedule file (total: `ParserProperties`' `link-schedule`
    /// target draws these too).
    package static func parse(_ bytes: [UInt8]) throws(ControlError) -> SavedLinkSchedule {
        guard bytes.count <= LinkSchedule.maximumFileBytes else {
            throw .invalid("the saved schedule is \(bytes.count) bytes; at most \(LinkSchedule.maximumFileBytes)")
        }
        let json: JSONValue
        do { json = try JSONValue(parsing: bytes) } catch { throw .invalid("the saved schedule is not JSON: \(OneLine.escape("\(error)"))") }
        guard let fields = json.objectValue, Set(fields.keys) == ["steps", "seed", "startedAtNs", "applied"] else {
            throw .invalid("the saved schedule is not an object of steps, seed, startedAtNs and applied")
        }
        let steps = try LinkSchedule.parse(steps: fields["steps"] ?? .null)
        guard let seed = fields["seed"]?.intValue, seed >= 0 else { throw .invalid("the saved schedule's seed must be a whole number from 0 to \(Int.max)") }
        guard let startedAt = fields["startedAtNs"]?.intValue, startedAt >= 0 else {
            throw .invalid("the saved schedule's startedAtNs must be a whole number from 0 to \(Int.max)")
        }
        guard let applied = fields["applied"]?.intValue, (0...steps.count).contains(applied) else {
            throw .invalid("the saved schedule's applied must be a whole number from 0 to its \(steps.count) steps")
        }
        return SavedLinkSchedule(steps: steps, seed: UInt64(seed), startedAt: UInt64(startedAt), applied: applied)
    }
}
