import JSONText
@testable import RunWayCLI

/// A scenario written back as a file, in its canonical form (every step an object with all its fields),
/// and the ranges an accepted step must be within: the scenario parser's properties. No `Testing`
/// here, so the fuzzer can compile this file as it is.
enum ScenarioText {
    static func json(_ scenario: Scenario) -> JSONValue {
        var header: [String: JSONValue] = ["steps": .array(scenario.steps.map(json))]
        if let name = scenario.name { header["name"] = .string(name) }
        if let description = scenario.description { header["description"] = .string(description) }
        if let app = scenario.phoneApp { header["phoneApp"] = .string(app) }
        if let app = scenario.watchApp { header["watchApp"] = .string(app) }
        if let id = scenario.phoneBundleId { header["phoneBundleId"] = .string(id) }
        if let store = scenario.phoneStore {
            header["phoneStore"] = .object(["path": .string(store.path)].merging(store.ids.map { ["ids": .string($0)] } ?? [:]) { $1 })
        }
        if !scenario.phoneArgs.isEmpty { header["phoneArgs"] = .array(scenario.phoneArgs.map(JSONValue.string)) }
        if !scenario.watchArgs.isEmpty { header["watchArgs"] = .array(scenario.watchArgs.map(JSONValue.string)) }
        if let budget = scenario.backgroundBudgetMs { header["backgroundBudgetMs"] = .integer(Int64(budget)) }
        if let timeout = scenario.launchTimeoutMs { header["launchTimeoutMs"] = .integer(Int64(timeout)) }
        if scenario.system != .immediate { header["system"] = .string(scenario.system.text) }
        return .object(header)
    }

    static func json(_ number: ScenarioNumber) -> JSONValue {
        number.low == number.high ? .integer(Int64(number.low)) : .array([.integer(Int64(number.low)), .integer(Int64(number.high))])
    }

    static func json(_ bound: ScenarioBound) -> JSONValue {
        switch bound {
        case .all: .string("all")
        case let .range(range): json(ScenarioNumber(range.lowerBound, range.upperBound))
        }
    }

    /// Durations as whole seconds (`90s`): what the parser reads back to the same number.
    static func duration(_ seconds: Double) -> JSONValue { .string("\(Int(seconds))s") }

    static func json(_ step: ScenarioStep) -> JSONValue {
        let body: JSONValue
        switch step {
        case let .record(count, distance):
            var fields = ["count": json(count)]
            if let distance { fields["distanceKm"] = .number(distance) }
            body = .object(fields)
        case let .send(from, count): body = .object(["from": .string(from.rawValue), "count": json(count)])
        case let .kill(target, after):
            var fields: [String: JSONValue] = ["target": .string(target.rawValue)]
            if let after { fields["after"] = json(after) }
            body = .object(fields)
        case let .relaunch(target): body = .object(["target": .string(target.rawValue)])
        case let .link(up): body = .object(["state": .string(up ? "up" : "down")])
        case let .clockAdvance(_, text): body = .object(["by": .string(text)])
        case let .app(device, action): body = .object(["action": .string(action), "device": .string(device.rawValue)])
        case let .jetsam(device): body = .object(["device": .string(device.rawValue)])
        case let .sleep(ms): body = .object(["ms": json(ms)])
        case let .waitApp(device, state, timeout): body = .object(["app": .string(state), "device": .string(device.rawValue), "timeout": duration(timeout)])
        case let .drain(timeout): body = .object(["timeout": duration(timeout)])
        case let .expect(expectation):
            var fields: [String: JSONValue] = [:]
            for (name, bound) in [
                ("stored", expectation.stored), ("received", expectation.received), ("lost", expectation.lost),
                ("duplicated", expectation.duplicated), ("outstanding", expectation.outstanding), ("transfers", expectation.transfers),
            ] {
                if let bound { fields[name] = json(bound) }
            }
            if let clean = expectation.clean { fields["clean"] = .bool(clean) }
            body = .object(fields)
        }
        return .object([step.kind: body])
    }

    static func requireInRange(_ step: ScenarioStep) throws(ParserProperties.Violation) {
        func within(_ number: ScenarioNumber, _ range: ClosedRange<Int>) -> Bool {
            number.low <= number.high && range.contains(number.low) && range.contains(number.high)
        }
        let ok: Bool
        switch step {
        case let .record(count, distance): ok = within(count, Scenario.Limits.record) && (distance.map { (0.1...1000).contains($0) } ?? true)
        case let .send(_, count): ok = within(count, Scenario.Limits.send)
        case let .kill(_, after): ok = after.map { within($0, Scenario.Limits.milliseconds) } ?? true
        case let .relaunch(target): ok = target != .phoneApp
        case .link, .jetsam: ok = true
        case let .clockAdvance(seconds, _): ok = seconds > 0 && seconds <= 3650 * 86_400
        case let .app(_, action): ok = ScenarioStep.appActions.contains(action)
        case let .sleep(ms): ok = within(ms, Scenario.Limits.milliseconds)
        case let .waitApp(_, state, timeout): ok = ScenarioStep.appStates.contains(state) && Scenario.Limits.timeoutSeconds.contains(timeout)
        case let .drain(timeout): ok = Scenario.Limits.timeoutSeconds.contains(timeout)
        case let .expect(expectation):
            let bounds = [
                expectation.stored, expectation.received, expectation.lost, expectation.duplicated, expectation.outstanding, expectation.transfers,
            ]
            ok = bounds.contains { $0 != nil } || expectation.clean != nil
        }
        if !ok { throw ParserProperties.Violation("an accepted step is out of its ranges: \(step)") }
    }
}
