import Connectivity
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
        "watchArgs", "system", "steps",
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
        if let value = header["system"] {
            guard let text = value.stringValue else { throw ScenarioError("\"system\" must be a string: immediate or realistic:SEED[:low-power]") }
            do {
                scenario.system = try SystemTiming(parsing: text)
            } catch {
                throw ScenarioError("\"system\": \(error.description)")
            }
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

    // MARK: - Values

    /// `"phone"` (the default) or `"watch"`.
    private static func device(_ value: JSONValue?) throws(ScenarioError) -> ScenarioStep.Device {
        ScenarioStep.Device(rawValue: try choice(value ?? .string("phone"), ScenarioStep.Device.allCases.map(\.rawValue), "device")) ?? .phone
    }

    /// A device whose OS is asked (its app's state, a jetsam): the phone's phone-os always; the watch's
    /// watch-os only for a watchApp of your own (RunWay's watch app is watch-agent, with no OS over it).
    private static func osDevice(_ value: JSONValue?, _ scenario: Scenario, _ kind: String) throws(ScenarioError) -> ScenarioStep.Device {
        let device = try device(value)
        if device == .watch, scenario.watchApp == nil {
            throw ScenarioError("\(kind) on the watch asks watch-os, which runs a watchApp of your own; RunWay's watch app is watch-agent, always running")
        }
        return device
    }

    /// The step's fields, where the step may also be written with its count alone (`{"record": 20}`).
    private static func fieldsOrCount(_ body: JSONValue?, _ keys: [String]) throws(ScenarioError) -> [String: JSONValue] {
        if let body, body.objectValue == nil { return ["count": body] }
        return try fieldsOr(body, keys, bare: nil)
    }

    /// The step's fields; a value that is not an object stands for the field `bare` (`{"link": "down"}`).
    private static func fieldsOr(_ body: JSONValue?, _ keys: [String], bare: String?) throws(ScenarioError) -> [String: JSONValue] {
        guard let body else { return [:] }
        if let object = body.objectValue {
            try known(object, keys, "the step")
            return object
        }
        guard let bare else { throw ScenarioError("must be an object with \(keys.joined(separator: ", "))") }
        return [bare: body]
    }

    private static func known(_ object: [String: JSONValue], _ keys: [String], _ what: String) throws(ScenarioError) {
        for key in object.keys.sorted() where !keys.contains(key) {
            let near = Suggestions.closest(to: key, among: keys)
            throw ScenarioError(
                "\(what) has no field \(OneLine.quote(key))" + Suggestions.phrase(near, quoted: true) + " (it takes \(keys.joined(separator: ", ")))")
        }
    }

    private static func integer(_ value: JSONValue, _ range: ClosedRange<Int>, _ name: String) throws(ScenarioError) -> Int {
        guard let number = value.intValue, range.contains(number) else {
            throw ScenarioError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(short(value)))")
        }
        return number
    }

    private static func number(_ value: JSONValue, _ range: ClosedRange<Double>, _ name: String) throws(ScenarioError) -> Double {
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            throw ScenarioError("\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(short(value)))")
        }
        return number
    }

    /// `N`, or `[LOW, HIGH]` with LOW ≤ HIGH, within `range`.
    private static func count(_ value: JSONValue?, _ range: ClosedRange<Int>, _ name: String, orAll: Bool = false) throws(ScenarioError) -> ScenarioNumber {
        let expected =
            "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), or [LOW, HIGH] within that" + (orAll ? ", or \"all\"" : "")
        guard let value else { throw ScenarioError(expected + " (missing)") }
        if let number = value.intValue, range.contains(number) { return ScenarioNumber(number, number) }
        if let pair = value.arrayValue, pair.count == 2, let low = pair[0].intValue, let high = pair[1].intValue, range.contains(low), range.contains(high) {
            guard low <= high else { throw ScenarioError("\(name) [\(low), \(high)]: the low end is above the high end") }
            return ScenarioNumber(low, high)
        }
        throw ScenarioError(expected + ", not " + OneLine.quote(short(value)))
    }

    private static func choice(_ value: JSONValue?, _ choices: [String], _ name: String) throws(ScenarioError) -> String {
        let list = choices.map { "\"\($0)\"" }.joined(separator: ", ")
        guard let text = value?.stringValue else { throw ScenarioError("\(name) must be one of \(list)" + (value == nil ? " (missing)" : "")) }
        guard choices.contains(text) else {
            throw ScenarioError(
                "\(name) must be one of \(list), not \(OneLine.quote(text))" + Suggestions.phrase(Suggestions.closest(to: text, among: choices), quoted: true))
        }
        return text
    }

    /// A duration (`"90s"`, `"2m"`): 1 s to 1 h; 2 min when left out.
    private static func timeout(_ value: JSONValue?) throws(ScenarioError) -> Double {
        guard let value else { return 120 }
        guard let text = value.stringValue, let seconds = TimeText.parseDuration(text), Limits.timeoutSeconds.contains(seconds) else {
            throw ScenarioError("timeout must be a duration of 1s to 1h ([Nh][Nm][Ns]: 90s, 2m), not \(OneLine.quote(short(value)))")
        }
        return seconds
    }

    private static func text(_ value: JSONValue?, _ name: String) throws(ScenarioError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue, text.utf8.count <= Limits.textBytes else {
            throw ScenarioError("\(name) must be a string of at most \(Limits.textBytes) bytes")
        }
        return text
    }

    /// A bundle id (letters, digits, `.`, `-`, `_`; 1 to 155 bytes), for an app of your own.
    private static func bundleID(_ value: JSONValue?, app: String?) throws(ScenarioError) -> String? {
        guard let value else { return nil }
        guard app != nil else { throw ScenarioError("\"phoneBundleId\" names your phone app's bundle id: give \"phoneApp\" too") }
        guard let id = value.stringValue, (1...155).contains(id.utf8.count), id != ".", id != "..",
            id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || [0x2E, 0x2D, 0x5F].contains($0) })
        else { throw ScenarioError("\"phoneBundleId\" must be 1 to 155 letters, digits, '.', '-' or '_' (com.example.App)") }
        return id
    }

    /// `{"path": RELATIVE PATH IN THE CONTAINER, "ids": "SELECT …"}`: one query, read-only; without
    /// `ids`, the file is a text file of ids, one per line.
    private static func store(_ value: JSONValue?, app: String?) throws(ScenarioError) -> AppStoreQuery? {
        guard let value else { return nil }
        guard app != nil else { throw ScenarioError("\"phoneStore\" names your phone app's store: give \"phoneApp\" too") }
        guard let fields = value.objectValue else { throw ScenarioError("\"phoneStore\" must be an object with path and ids") }
        try known(fields, ["path", "ids"], "\"phoneStore\"")
        guard let path = fields["path"]?.stringValue, !path.isEmpty, path.utf8.count <= Limits.argumentBytes, !path.hasPrefix("/"),
            !path.utf8.contains(0), !path.split(separator: "/").contains("..")
        else { throw ScenarioError("\"phoneStore\" path must be a file's path inside the app's container (Library/Application Support/Log.sqlite)") }
        // No ids: a text file of ids, one per line.
        guard let given = fields["ids"] else { return AppStoreQuery(path: path, ids: nil) }
        guard let ids = given.stringValue, ids.utf8.count <= Limits.textBytes, !ids.contains(";"), !ids.utf8.contains(0),
            ids.trimmingWhitespace.lowercased().hasPrefix("select ")
        else { throw ScenarioError("\"phoneStore\" ids must be one SELECT giving the ids in arrival order (SELECT id FROM runs ORDER BY rowid)") }
        return AppStoreQuery(path: path, ids: ids)
    }

    private static func path(_ value: JSONValue?, _ name: String) throws(ScenarioError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= Limits.argumentBytes, !text.utf8.contains(0) else {
            throw ScenarioError("\(name) must be the path of an executable (a non-empty string without NUL)")
        }
        return text
    }

    private static func arguments(_ value: JSONValue?, _ name: String) throws(ScenarioError) -> [String] {
        guard let value else { return [] }
        guard let list = value.arrayValue, list.count <= Limits.arguments else {
            throw ScenarioError("\(name) must be an array of at most \(Limits.arguments) strings")
        }
        var result: [String] = []
        for item in list {
            guard let text = item.stringValue, text.utf8.count <= Limits.argumentBytes, !text.utf8.contains(0) else {
                throw ScenarioError("\(name) must hold strings (at most \(Limits.argumentBytes) bytes, no NUL), not \(OneLine.quote(short(item)))")
            }
            result.append(text)
        }
        return result
    }

    /// A value as the message shows it: its JSON, cut to 40 bytes.
    private static func short(_ value: JSONValue) -> String {
        let text = value.stringValue ?? value.text
        return text.utf8.count <= 40 ? text : String(decoding: text.utf8.prefix(37), as: UTF8.self) + "..."
    }
}
