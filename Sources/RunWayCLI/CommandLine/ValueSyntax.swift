import Control
import JSONText
import Posix
import RunWayDomain

/// How a flag's or a positional's text becomes its argument's value (`ControlValueSyntax`, named by the
/// command): checked here, so that a bad value is the usage error of the flag a person typed (`--count
/// must be a whole number from 1 to 1000000, not '0'`, exit 2), before anything is sent.
enum ValueSyntax {
    /// `label` names the flag or positional (`--count`, `ID`), `words` the command (`clock advance`): a
    /// duration or a moment that does not read is one line naming the command, as the clock's always were.
    static func read(_ text: String, _ argument: DerivedCLI.Argument, label: String, words: String, oneLine: Bool = false) throws -> JSONValue {
        let kind = argument.spec.kind
        // A flag's value is a usage error (its line, then where the help is); a positional's, one line
        // naming the command, as `link fail-next N` and `language set` always said it.
        func refused(_ what: String? = nil) -> any Error {
            if let refusal = argument.cli.refusal { return ControlError.invalid(refusal(text)) }
            // A positional of a format (a flight's ID): the catalogue's own line, as the daemon said it.
            if case .format = kind, argument.cli.position != nil { return ControlError.invalid(argument.spec.problem(with: .string(text))) }
            let line = "\(label) must be \(what ?? DerivedCLI.kindText(argument)), not \(OneLine.quote(text))"
            return argument.cli.position == nil && !oneLine ? UsageError(line) : ControlError.invalid("\(words): \(line)")
        }
        switch argument.cli.syntax {
        case .plain, .setsFalse:
            if kind == .object { return try jsonObject(text, label: label) }
            if let values = argument.cli.values, !values.contains(text) { throw refused() }
            guard let value = plain(text, kind), kind.accept(value) != nil else { throw refused() }
            return value
        case .jsonObjectFile:
            return try jsonObject(file: text)
        case .path:
            guard !text.isEmpty else { throw UsageError("\(label) must not be empty") }
            return .string(Filesystem.absolutePath(text))
        case .pace:
            if text == "0", case let .number(range) = kind, range.contains(0) { return .number(0) }
            guard let pace = GPWSTarget.parsePace(text) else { throw refused("M:SS from 2:00 to 20:00") }
            return .number(pace)
        case .zoneLow, .zoneHigh:
            guard let zone = GPWSTarget.parseZone(text) else { throw refused("LOW-HIGH with 40 <= LOW < HIGH <= 220") }
            return .number(argument.cli.syntax == .zoneLow ? zone.low : zone.high)
        case .duration:
            if text.hasPrefix("-") { throw ControlError.invalid("\(words): \(OneLine.quote(text)) must be more than 0") }
            guard let seconds = TimeText.parseDuration(text) else {
                throw ControlError.invalid("\(words): \(OneLine.quote(text)) is not a duration ([Nd][Nh][Nm][Ns], such as 7d or 1d12h)")
            }
            return .number(seconds)
        case .instant:
            switch TimeText.parseInstant(text) {
            case let .success(seconds): return .number(seconds)
            case let .failure(error): throw ControlError.invalid("\(words): \(OneLine.quote(text)): \(error)")
            }
        }
    }

    /// The text as the kind's JSON: a number parsed, a choice or string as it is, JSON parsed.
    static func plain(_ text: String, _ kind: ControlArgumentKind) -> JSONValue? {
        switch kind {
        case .int, .intChoice: Int(text).map { .integer(Int64($0)) }
        case .number: Double(text).map(JSONValue.number)
        case .bool: text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case .object, .array: try? JSONValue(parsing: Array(text.utf8))
        case .string, .choice, .format: .string(text)
        }
    }

    /// A flag's text that must be one JSON object (`--metadata`): not JSON, or not an object, is a usage
    /// error (exit 2); a malformed `{"$date": …}` invalid.
    static func jsonObject(_ text: String, label: String) throws -> JSONValue {
        let json: JSONValue
        do { json = try JSONValue(parsing: Array(text.utf8)) } catch { throw UsageError("\(label) is not valid JSON: \(error)") }
        guard case .object = json else { throw UsageError("\(label) must be a JSON object, not \(SessionCLI.kind(of: json))") }
        if let problem = TypedJSON.problem(in: json) { throw ControlError.invalid("\(label): \(problem)") }
        return json
    }

    /// The JSON object in the file at `path` (`-`: stdin): unreadable, invalid or not an object are usage
    /// errors (exit 2); a malformed `{"$date": …}` or `{"$data": …}` too.
    static func jsonObject(file path: String) throws -> JSONValue {
        let bytes: [UInt8]
        do {
            bytes = path == "-" ? try SessionCLI.readStandardInput() : try Filesystem.readFile(path)
        } catch {
            throw UsageError("cannot read \(path): \(error)")
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw UsageError("\(path) is not valid JSON: \(error)")
        }
        guard case .object = json else { throw UsageError("\(path) must hold a JSON object, not \(SessionCLI.kind(of: json))") }
        if let problem = TypedJSON.problem(in: json) { throw ControlError.invalid("\(path): \(problem)") }
        return json
    }
}
