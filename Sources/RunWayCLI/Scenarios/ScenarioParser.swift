import OSServices
import JSONText
import Posix

/// Reads a scenario file (`docs/scenarios.md`). Total: any bytes give a `Scenario` or a
/// `ScenarioError` — one line, `step 3 (record): count must be …` — and never trap. Every number has its
/// range (`Scenario.Limits`), every key is known (a typo is refused, not ignored), and what needs
/// RunWay's own apps (recording flights, reading what they stored) is refused when the header names an
/// app of your own.
extension Scenario {
    static let headerKeys = [
        "name", "description", "phoneApp", "phoneArgs", "phoneBundleId", "phoneStore", "backgroundBudgetMs", "launchTimeoutMs", "watchApp",
        "watchArgs", "steps",
    ]

    static func parse(_ bytes: [UInt8]) throws(ScenarioError) -> Scenario {
        guard bytes.count <= Limits.fileBytes else { throw ScenarioError("the file is over \(Limits.fileBytes) bytes") }
        let json: JSONValue
        do throws(JSONParseError) {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw ScenarioError("not JSON: \(error.description)")
        }
        guard let header = json.objectValue else { throw ScenarioError("the file must hold one JSON object, with \"steps\"") }
        try known(header, Self.headerKeys, "the scenario")
        var scenario = Scenario()
        scenario.name = try text(header["name"], "\"name\"")
        scenario.description = try text(header["description"], "\"description\"")
        scenario.phoneApp = try path(header["phoneApp"], "\"phoneApp\"")
        scenario.watchApp = try path(header["watchApp"], "\"watchApp\"")
        scenario.phoneArgs = try arguments(header["phoneArgs"], "\"phoneArgs\"")
        scenario.phoneBundleId = try bundleID(header["phoneBundleId"], app: scenario.phoneApp)
        scenario.phoneStore = try store(header["phoneStore"], app: scenario.phoneApp)
        scenario.watchArgs = try arguments(header["watchArgs"], "\"watchArgs\"")
        scenario.backgroundBudgetMs = try header["backgroundBudgetMs"].map { value throws(ScenarioError) in
            try integer(value, 1...86_400_000, "\"backgroundBudgetMs\"")
        }
        scenario.launchTimeoutMs = try header["launchTimeoutMs"].map { value throws(ScenarioError) in
            try integer(value, 1...86_400_000, "\"launchTimeoutMs\"")
        }
        guard let steps = header["steps"]?.arrayValue else { throw ScenarioError("\"steps\" must be an array of steps (docs/scenarios.md)") }
        guard !steps.isEmpty else { throw ScenarioError("\"steps\" is empty: a scenario needs at least one step") }
        guard steps.count <= Limits.steps else { throw ScenarioError("\"steps\" holds \(steps.count) steps, more than \(Limits.steps)") }
        for (index, value) in steps.enumerated() {
            scenario.steps.append(try step(value, number: index + 1, scenario))
        }
        return scenario
    }

    // MARK: - Steps

    /// `{"record": 20}`, `{"kill": {"target": "phone-app", "after": [0, 500]}}`, or a bare `"jetsam"`.
    static func step(_ value: JSONValue, number: Int, _ scenario: Scenario) throws(ScenarioError) -> ScenarioStep {
        let kind: String, body: JSONValue?
        if let name = value.stringValue {
            (kind, body) = (name, nil)
        } else if let object = value.objectValue, object.count == 1, let (name, inner) = object.first {
            (kind, body) = (name, inner)
        } else {
            throw ScenarioError("step \(number): must be an object with one key, the step's kind (\(ScenarioStep.kinds.joined(separator: ", ")))")
        }
        guard ScenarioStep.kinds.contains(kind) else {
            let near = Suggestions.closest(to: kind, among: ScenarioStep.kinds)
            throw ScenarioError("step \(number): unknown kind \(OneLine.quote(kind))" + Suggestions.phrase(near, quoted: true))
        }
        do throws(ScenarioError) {
            return try parseStep(kind, body, scenario)
        } catch {
            throw ScenarioError("step \(number) (\(kind)): \(error.description)")
        }
    }

    private static func parseStep(_ kind: String, _ body: JSONValue?, _ scenario: Scenario) throws(ScenarioError) -> ScenarioStep {
        switch kind {
        case "record":
            guard scenario.watchApp == nil else { throw ScenarioError("records runs with RunWay's watch app, and the scenario names a watchApp of its own") }
            let fields = try fieldsOrCount(body, ["count", "distanceKm"])
            let distance = try fields["distanceKm"].map { value throws(ScenarioError) in try number(value, 0.1...1000, "distanceKm") }
            return .record(count: try count(fields["count"], Limits.record, "count"), distanceKm: distance)
        case "send":
            let fields = try fieldsOrCount(body, ["count", "from"])
            let from = try choice(fields["from"] ?? .string("watch"), ScenarioStep.Device.allCases.map(\.rawValue), "from")
            return .send(from: ScenarioStep.Device(rawValue: from) ?? .watch, count: try count(fields["count"], Limits.send, "count"))
        case "kill":
            let fields = try fieldsOr(body, ["target", "after"], bare: "target")
            let target = try choice(fields["target"], ScenarioStep.Target.allCases.map(\.rawValue), "target")
            if target == ScenarioStep.Target.watchApp.rawValue, scenario.watchApp == nil {
                throw ScenarioError(
                    "\"watch-app\" is the app watch-os launched, for a watchApp of your own; RunWay's watch app is watch-agent itself: kill \"watch\"")
            }
            let after = try fields["after"].map { value throws(ScenarioError) in try count(value, Limits.milliseconds, "after (milliseconds)") }
            return .kill(ScenarioStep.Target(rawValue: target) ?? .watch, afterMs: after)
        case "relaunch":
            let target = try choice(try fieldsOr(body, ["target"], bare: "target")["target"], ["phone-os", "watch"], "target")
            return .relaunch(ScenarioStep.Target(rawValue: target) ?? .watch)
        case "link":
            return .link(up: try choice(try fieldsOr(body, ["state"], bare: "state")["state"], ["down", "up"], "state") == "up")
        case "clock-advance":
            let value = try fieldsOr(body, ["by"], bare: "by")["by"]
            guard let text = value?.stringValue else { throw ScenarioError("by must be a duration, [Nd][Nh][Nm][Ns] (90m, 1d12h)") }
            guard let seconds = TimeText.parseDuration(text), seconds > 0, seconds <= DeviceClock.maximumAdvance else {
                throw ScenarioError("\(OneLine.quote(text)) is not a duration of 1s to 3650d ([Nd][Nh][Nm][Ns]: 90m, 1d12h)")
            }
            return .clockAdvance(seconds: seconds, text: text)
        case "app":
            let fields = try fieldsOr(body, ["action", "device"], bare: "action")
            let device = try device(fields["device"])
            let actions = device == .watch && scenario.watchApp == nil ? ScenarioStep.watchAgentAppActions : ScenarioStep.appActions
            let action = try choice(fields["action"], ScenarioStep.appActions, "action")
            guard actions.contains(action) else {
                throw ScenarioError(
                    "RunWay's watch app (watch-agent, always running) can only be opened or closed: \(action) needs a watchApp, which watch-os runs")
            }
            return .app(device, action)
        case "jetsam":
            let fields = try fieldsOr(body, ["device"], bare: "device")
            return .jetsam(try osDevice(fields["device"], scenario, "jetsam"))
        case "sleep":
            return .sleep(try count(try fieldsOr(body, ["ms"], bare: "ms")["ms"], Limits.milliseconds, "ms"))
        case "wait":
            let fields = try fieldsOr(body, ["app", "device", "timeout"], bare: "app")
            let state = try choice(fields["app"], ScenarioStep.appStates, "app (the app's state)")
            return .waitApp(try osDevice(fields["device"], scenario, "wait"), state: state, timeout: try timeout(fields["timeout"]))
        case "drain":
            let fields = try fieldsOr(body, ["timeout"], bare: "timeout")
            return .drain(timeout: try timeout(fields["timeout"]))
        default:
            return .expect(try expectation(body, scenario))
        }
    }

    static func expectation(_ body: JSONValue?, _ scenario: Scenario) throws(ScenarioError) -> ScenarioExpectation {
        guard let fields = body?.objectValue, !fields.isEmpty else {
            throw ScenarioError("needs at least one of \(ScenarioExpectation.fields.joined(separator: ", ")) ({\"lost\": 0})")
        }
        try known(fields, ScenarioExpectation.fields, "expect")
        var expectation = ScenarioExpectation()
        func bound(_ name: String, all: Bool) throws(ScenarioError) -> ScenarioBound? {
            guard let value = fields[name] else { return nil }
            if all, value.stringValue == "all" { return .all }
            let range = try count(value, Limits.expected, name, orAll: all)
            return .range(range.low...range.high)
        }
        expectation.stored = try bound("stored", all: true)
        expectation.received = try bound("received", all: true)
        expectation.lost = try bound("lost", all: false)
        expectation.duplicated = try bound("duplicated", all: false)
        expectation.outstanding = try bound("outstanding", all: false)
        expectation.transfers = try bound("transfers", all: false)
        if let value = fields["clean"] {
            guard let flag = value.boolValue else { throw ScenarioError("clean must be true or false") }
            expectation.clean = flag
        }
        // What the apps stored is read from RunWay's own stores, or from the phoneStore your phone app names.
        let readsStores = expectation.stored != nil || expectation.lost != nil || expectation.duplicated != nil || expectation.clean != nil
        if expectation.received != nil, let own = scenario.phoneApp != nil ? "phoneApp" : scenario.watchApp != nil ? "watchApp" : nil {
            throw ScenarioError("received reads the userInfo RunWay's apps kept, and the scenario names a \(own) of its own")
        }
        if readsStores, scenario.watchApp != nil {
            throw ScenarioError("stored, lost, duplicated and clean hold the phone to the runs RunWay's watch recorded, and the scenario names a watchApp")
        }
        if readsStores, scenario.phoneApp != nil, scenario.phoneStore == nil {
            throw ScenarioError(
                "stored, lost, duplicated and clean read what the phone app stored: name your app's store in the header's phoneStore, or expect outstanding only"
            )
        }
        return expectation
    }
}
