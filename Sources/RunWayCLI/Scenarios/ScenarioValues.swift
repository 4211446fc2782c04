import AppHost
import JSONText
import Posix

/// The values of a scenario file, each read with its range and its one line when it is not one
/// (`ScenarioParser.swift` reads the steps).
extension Scenario {
    /// `"phone"` (the default) or `"watch"`.
    static func device(_ value: JSONValue?) throws(ScenarioError) -> ScenarioStep.Device {
        ScenarioStep.Device(rawValue: try choice(value ?? .string("phone"), ScenarioStep.Device.allCases.map(\.rawValue), "device")) ?? .phone
    }

    /// A device whose OS is asked (its app's state, a jetsam): the phone's phone-os always; the watch's
    /// watch-os only for a watchApp of your own (RunWay's watch app is watch-agent, with no OS over it).
    static func osDevice(_ value: JSONValue?, _ scenario: Scenario, _ kind: String) throws(ScenarioError) -> ScenarioStep.Device {
        let device = try device(value)
        if device == .watch, scenario.watchApp == nil {
            throw ScenarioError("\(kind) on the watch asks watch-os, which runs a watchApp of your own; RunWay's watch app is watch-agent, always running")
        }
        return device
    }

    /// The step's fields, where the step may also be written with its count alone (`{"record": 20}`).
    static func fieldsOrCount(_ body: JSONValue?, _ keys: [String]) throws(ScenarioError) -> [String: JSONValue] {
        if let body, body.objectValue == nil { return ["count": body] }
        return try fieldsOr(body, keys, bare: nil)
    }

    /// The step's fields; a value that is not an object stands for the field `bare` (`{"link": "down"}`).
    static func fieldsOr(_ body: JSONValue?, _ keys: [String], bare: String?) throws(ScenarioError) -> [String: JSONValue] {
        guard let body else { return [:] }
        if let object = body.objectValue {
            try known(object, keys, "the step")
            return object
        }
        guard let bare else { throw ScenarioError("must be an object with \(keys.joined(separator: ", "))") }
        return [bare: body]
    }

    static func known(_ object: [String: JSONValue], _ keys: [String], _ what: String) throws(ScenarioError) {
        for key in object.keys.sorted() where !keys.contains(key) {
            let near = Suggestions.closest(to: key, among: keys)
            throw ScenarioError(
                "\(what) has no field \(OneLine.quote(key))" + Suggestions.phrase(near, quoted: true) + " (it takes \(keys.joined(separator: ", ")))")
        }
    }

    static func integer(_ value: JSONValue, _ range: ClosedRange<Int>, _ name: String) throws(ScenarioError) -> Int {
        guard let number = value.intValue, range.contains(number) else {
            throw ScenarioError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(short(value)))")
        }
        return number
    }

    static func number(_ value: JSONValue, _ range: ClosedRange<Double>, _ name: String) throws(ScenarioError) -> Double {
        guard let number = value.doubleValue, number.isFinite, range.contains(number) else {
            throw ScenarioError("\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(short(value)))")
        }
        return number
    }

    /// `N`, or `[LOW, HIGH]` with LOW ≤ HIGH, within `range`.
    static func count(_ value: JSONValue?, _ range: ClosedRange<Int>, _ name: String, orAll: Bool = false) throws(ScenarioError) -> ScenarioNumber {
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

    static func choice(_ value: JSONValue?, _ choices: [String], _ name: String) throws(ScenarioError) -> String {
        let list = choices.map { "\"\($0)\"" }.joined(separator: ", ")
        guard let text = value?.stringValue else { throw ScenarioError("\(name) must be one of \(list)" + (value == nil ? " (missing)" : "")) }
        guard choices.contains(text) else {
            throw ScenarioError(
                "\(name) must be one of \(list), not \(OneLine.quote(text))" + Suggestions.phrase(Suggestions.closest(to: text, among: choices), quoted: true))
        }
        return text
    }

    /// A duration (`"90s"`, `"2m"`): 1 s to 1 h; 2 min when left out.
    static func timeout(_ value: JSONValue?) throws(ScenarioError) -> Double {
        guard let value else { return 120 }
        guard let text = value.stringValue, let seconds = TimeText.parseDuration(text), Limits.timeoutSeconds.contains(seconds) else {
            throw ScenarioError("timeout must be a duration of 1s to 1h ([Nh][Nm][Ns]: 90s, 2m), not \(OneLine.quote(short(value)))")
        }
        return seconds
    }

    static func text(_ value: JSONValue?, _ name: String) throws(ScenarioError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue, text.utf8.count <= Limits.textBytes else {
            throw ScenarioError("\(name) must be a string of at most \(Limits.textBytes) bytes")
        }
        return text
    }

    /// A bundle id (letters, digits, `.`, `-`, `_`; 1 to 155 bytes), for an app of your own.
    static func bundleID(_ value: JSONValue?, app: String?) throws(ScenarioError) -> String? {
        guard let value else { return nil }
        guard app != nil else { throw ScenarioError("\"phoneBundleId\" names your phone app's bundle id: give \"phoneApp\" too") }
        guard let id = value.stringValue, AppContainer.problem(bundleID: id) == nil else {
            throw ScenarioError("\"phoneBundleId\" must be 1 to 155 letters, digits, '.', '-' or '_' (com.example.App)")
        }
        return id
    }

    /// `{"path": RELATIVE PATH IN THE CONTAINER, "ids": "SELECT …"}`: one query, read-only; without
    /// `ids`, the file is a text file of ids, one per line.
    static func store(_ value: JSONValue?, app: String?) throws(ScenarioError) -> AppStoreQuery? {
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

    static func path(_ value: JSONValue?, _ name: String) throws(ScenarioError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= Limits.argumentBytes, !text.utf8.contains(0) else {
            throw ScenarioError("\(name) must be the path of an executable (a non-empty string without NUL)")
        }
        return text
    }

    static func arguments(_ value: JSONValue?, _ name: String) throws(ScenarioError) -> [String] {
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
    static func short(_ value: JSONValue) -> String {
        let text = value.stringValue ?? value.text
        return text.utf8.count <= 40 ? text : String(decoding: text.utf8.prefix(37), as: UTF8.self) + "..."
    }
}
