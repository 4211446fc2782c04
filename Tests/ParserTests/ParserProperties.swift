import Connectivity
import Control
import JSONText
import Posix
import PropertyLists
import RunWayApp
@testable import RunWayCLI
import TerminalViews

/// Every parser of text that a person, a file or a peer hands the project, by name: what
/// `scripts/fuzz --target NAME` fuzzes and `ParserPropertyTests` runs with seeded random inputs.
enum ParserTarget: String, CaseIterable, Sendable {
    /// `Timestamp.parseISO8601`, `TimeText.parseInstant` (a `$date`, `runway clock set`), and the time
    /// formatters over any `Double`.
    case iso8601
    /// `TimeText.parseDuration` (`runway clock advance`) and `formatDuration`.
    case duration
    /// `AppVersion` (`--app-version`, the version-mismatch rule, the update check) and the App Store's
    /// answer (`AppUpdateService.parse`).
    case version
    /// Typed JSON (`TypedJSON`, `PropertyListValue(json:)`): every payload from `--json-file` or a request.
    case typedJSON = "typed-json"
    /// A control request as the router checks it (`ControlRouter.prepare`) on each of the three servers,
    /// and what the handlers then read from it.
    case request
    /// A live run's samples (`runway … run sample --json-file`, `LiveRun.batch`), the run they make and
    /// its flight; `M:SS` paces and `LOW-HIGH` zones.
    case runSamples = "run-samples"
    /// A timeline file (`Timeline.parse`), its chart and its SVG.
    case timeline
    /// The pair registry's file (`PairRegistry.decode`).
    case registry
    /// The command line (`Arguments.parse`) and its numbers (`ParsedArguments.integer`, `.number`).
    case arguments
    /// A schedule of link conditions (`runway link schedule FILE`, `LinkSchedule.parse`) and the
    /// conditions and the schedule playing the watch keeps in its home (`LinkSchedule.conditions(from:)`,
    /// `SavedLinkSchedule.parse`).
    case linkSchedule = "link-schedule"
    /// A scenario file (`Scenario.parse`, `runway scenario run`).
    case scenario
    /// A home's pairing secret file (`PairingSecret(parsing:)`, `HOME/pairing-secrets/ID`) and the pairing
    /// ids that may name one (`PairingSecrets.path(for:)`).
    case pairingSecret = "pairing-secret"
}

/// What each parser must do with any input at all: return a value or its own error — never trap, never
/// allocate from a length it has not checked — and agree with its formatter about whatever it accepts.
///
/// One definition for two runners: the libFuzzer target (`Fuzz/ParserFuzzer.swift`, built by
/// `scripts/fuzz --target NAME`) and `ParserPropertyTests`. No `Testing` here, so the fuzzer can compile
/// this file as it is.
enum ParserProperties {
    struct Violation: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// What the inputs came to: evidence that a run reached both the accepting and the refusing paths.
    struct Tally {
        var accepted = 0
        var refused = 0
        mutating func count(_ accepted: Bool) {
            if accepted { self.accepted += 1 } else { refused += 1 }
        }
    }

    static func check(_ target: ParserTarget, _ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch target {
        case .iso8601: try checkTime(text, bytes, tally: &tally)
        case .duration: try checkDuration(text, tally: &tally)
        case .version: try checkVersion(text, bytes, tally: &tally)
        case .typedJSON: try checkTypedJSON(bytes, tally: &tally)
        case .request: try checkRequest(bytes, tally: &tally)
        case .runSamples: try checkRunSamples(text, bytes, tally: &tally)
        case .timeline: try checkTimeline(text, bytes, tally: &tally)
        case .registry: try checkRegistry(bytes, tally: &tally)
        case .arguments: try checkArguments(bytes, tally: &tally)
        case .scenario: try checkScenario(bytes, tally: &tally)
        case .linkSchedule: try checkLinkSchedule(bytes, tally: &tally)
        case .pairingSecret: try checkPairingSecret(text, bytes, tally: &tally)
        }
    }

    // MARK: - Pairing secrets

    /// Exactly 64 hex digits and at most one newline are a secret, which writes back to the same bytes
    /// (lowercase); anything else is refused in one line. A pairing id names a file only if it is one
    /// harmless path component.
    static func checkPairingSecret(_ text: String, _ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        switch Result(catching: { () throws(PairingSecret.ParseError) in try PairingSecret(parsing: bytes) }) {
        case let .success(secret):
            tally.count(true)
            try require(secret.bytes.count == PairingSecret.length, "a secret of \(secret.bytes.count) bytes")
            try require(bytes.count == 64 || (bytes.count == 65 && bytes.last == 0x0A), "accepted \(bytes.count) bytes as a secret")
            try require(
                secret.fileText == Array(String(decoding: bytes.prefix(64), as: UTF8.self).lowercased().utf8) + [0x0A], "a secret's text does not round-trip")
            try require((try? PairingSecret(parsing: secret.fileText)) == secret, "a secret's own text is refused")
        case let .failure(error):
            tally.count(false)
            try requireOneLine(error.description, "PairingSecret(parsing:)")
        }
        let path = PairingSecrets(home: "/h").path(for: text)
        tally.count(path != nil)
        if let path {
            let name = path.dropFirst("/h/pairing-secrets/".count)
            try require(
                name == text && !name.isEmpty && !name.contains("/") && name != "." && name != ".." && name.utf8.count <= 64,
                "\(text.debugDescription) names \(path)")
        }
    }

    static func require(_ condition: Bool, _ what: @autoclosure () -> String) throws(Violation) {
        if !condition { throw Violation(what()) }
    }

    /// A one-line message: what every refusal the user sees must be.
    static func requireOneLine(_ message: String, _ what: String) throws(Violation) {
        try require(!message.isEmpty && !message.contains("\n"), "\(what): not one line: \(message.debugDescription)")
    }

    /// The input's first eight bytes as a `Double`'s bit pattern (any value: NaN, infinities, subnormals).
    static func double(_ bytes: [UInt8]) -> Double {
        var bits: UInt64 = 0
        for (index, byte) in bytes.prefix(8).enumerated() { bits |= UInt64(byte) << (8 * UInt64(index)) }
        return Double(bitPattern: bits)
    }

    // MARK: - Time

    static func checkTime(_ text: String, _ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        let parsed = Timestamp.parseISO8601(text)
        tally.count(parsed != nil)
        if let value = parsed {
            // Years 1 to 9999 (a fraction of nines may round up to the second after the last).
            let range = Timestamp.formattableRange
            try require(
                value >= range.lowerBound && value <= range.upperBound + 1, "parseISO8601(\(text.debugDescription)) = \(value), outside the years 1-9999")
            // Canonical forms come back exactly as they went in.
            let whole = Timestamp.iso8601(value), milliseconds = Timestamp.iso8601(value, milliseconds: true)
            if text.utf8.count == 20 { try require(whole == text, "\(text) parsed and formatted is \(whole)") }
            if text.utf8.count == 24 { try require(milliseconds == text, "\(text) parsed and formatted is \(milliseconds)") }
            // Any other form, to the millisecond (within the years written): one round reaches a fixed point.
            let again = Timestamp.parseISO8601(milliseconds)
            try require(
                again.map { (abs($0 - value) < 0.001 || value > range.upperBound) && Timestamp.iso8601($0, milliseconds: true) == milliseconds } == true,
                "\(text) → \(milliseconds) → \(String(describing: again))")
        }
        switch TimeText.parseInstant(text) {
        case let .success(value):
            try require(value.isFinite, "parseInstant(\(text.debugDescription)) = \(value)")
            // With Z it is the same instant parseISO8601 reads.
            if text.hasSuffix("Z"), text.utf8.count > 10, Array(text.utf8)[10] == 0x54 {
                try require(parsed == value, "parseInstant(\(text)) = \(value), parseISO8601 = \(String(describing: parsed))")
            }
            if Timestamp.formattableRange.contains(value) {
                let written = Timestamp.iso8601(value, milliseconds: true)
                guard case let .success(back) = TimeText.parseInstant(written), abs(back - value) < 0.001 else {
                    throw Violation("parseInstant(\(text)) = \(value) → \(written) does not read back")
                }
            }
        case let .failure(error):
            try requireOneLine(error.description, "parseInstant(\(text.debugDescription))")
        }
        // The formatters take any Double, and what iso8601 writes always parses.
        let number = double(bytes)
        let written = Timestamp.iso8601(number, milliseconds: true)
        try require(Timestamp.parseISO8601(written) != nil, "iso8601(\(number)) = \(written) does not parse")
        _ = TimeText.localDateTime(number)
        _ = Timestamp.iso8601(number)
    }

    static func checkDuration(_ text: String, tally: inout Tally) throws(Violation) {
        let parsed = TimeText.parseDuration(text)
        tally.count(parsed != nil)
        if let seconds = parsed {
            try require(seconds.isFinite && seconds >= 0, "parseDuration(\(text.debugDescription)) = \(seconds)")
            // Exact below 2^53: whole seconds written as [Nd][Nh][Nm][Ns] read back the same.
            if seconds <= 1e15 {
                let written = TimeText.formatDuration(seconds)
                try require(TimeText.parseDuration(written) == seconds.rounded(), "\(text) = \(seconds) s → \(written) reads back differently")
            }
        }
        _ = TimeText.formatDuration(double(Array(text.utf8)))
    }

    // MARK: - Versions

    static func checkVersion(_ text: String, _ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        let problem = AppVersion.problem(text)
        tally.count(problem == nil)
        if let problem { try requireOneLine(problem, "AppVersion.problem") }
        try require(AppVersion.numericCompare(text, text) == 0 && !AppVersion.differ(text, text), "\(text) is not equal to itself")
        // Two versions: the input split at its first newline. The comparisons are antisymmetric.
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let a = parts[0], b = parts.count > 1 ? parts[1] : AppVersion.current
        let order = AppVersion.numericCompare(a, b)
        try require([-1, 0, 1].contains(order) && order == -AppVersion.numericCompare(b, a), "numericCompare(\(a), \(b)) = \(order)")
        try require(AppVersion.differ(a, b) == AppVersion.differ(b, a), "differ(\(a), \(b)) is not symmetric")
        if problem == nil, AppVersion.problem(b) == nil, order == 0 { try require(!AppVersion.differ(a, b), "\(a) == \(b) but they differ") }
        // The App Store's answer, as the phone's update check reads it.
        switch AppUpdateService.parse(.body(bytes)) {
        case let .success(update):
            try require(!update.storeURL.isEmpty && !update.storeURL.contains(" "), "an update with the URL \(update.storeURL.debugDescription)")
            _ = AppVersion.isNewer(update.version, than: AppVersion.current)
        case let .failure(reason): try requireOneLine(reason.text, "AppUpdateService.parse")
        }
    }

    // MARK: - Typed JSON and requests

    static func checkTypedJSON(_ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        guard let json = try? JSONValue(parsing: bytes) else { return tally.count(false) }
        let problem = TypedJSON.problem(in: json)
        if let problem { try requireOneLine(problem, "TypedJSON.problem") }
        let value: PropertyListValue
        do throws(WCError) {
            value = try PropertyListValue(json: json)
        } catch {
            // What the router lets through, the handler converts: only a null is left to refuse.
            try require((problem == nil) == (error.code == .payloadUnsupportedTypes), "problem \(String(describing: problem)) but \(error)")
            return tally.count(false)
        }
        tally.count(true)
        try require(problem == nil, "PropertyListValue(json:) took what TypedJSON.problem refuses: \(problem ?? "")")
        // Written and read again, one round reaches a fixed point (dates to the millisecond).
        let written = value.json
        try require(TypedJSON.problem(in: written) == nil, "the JSON written for a property list is not valid typed JSON: \(written.text)")
        guard let again = try? PropertyListValue(json: written) else { throw Violation("\(written.text) does not read back") }
        try require(again.json == written, "\(written.text) reads back as \(again.json.text)")
        // And through text, as the control socket, `--json` and a scenario file carry it: each number keeps
        // its kind — a real stays a real (`5000.0`), an integer an integer (issue 49).
        guard let reread = try? JSONValue(parsing: written.text) else { throw Violation("\(written.text) does not parse") }
        try require(reread == written, "\(written.text) parses back as another value (a number changed its kind)")
        guard let carried = try? PropertyListValue(json: reread) else { throw Violation("\(written.text) does not convert back") }
        try require(carried == again, "\(written.text) arrives as another property list")
    }

    /// One router per server, every command of the catalogue registered (the handlers do nothing).
    nonisolated(unsafe) static let routers: [ControlServerKind: ControlRouter] = Dictionary(
        uniqueKeysWithValues: ControlServerKind.allCases.map { server in
            let router = ControlRouter(server: server)
            router.testCommandsEnabled = true
            for spec in ControlCommands.answered(by: server) { router.on(spec) { _, _ in } }
            return (server, router)
        })

    static func checkRequest(_ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        guard let json = try? JSONValue(parsing: bytes), let request = try? ControlRequest(json: json) else { return tally.count(false) }
        for (server, router) in routers {
            let prepared: ControlRequest
            do throws(ControlError) {
                prepared = try router.prepare(request).request
            } catch {
                try requireOneLine(error.message, "the router's refusal")
                tally.count(false)
                continue
            }
            tally.count(true)
            guard let spec = ControlCommands.spec(prepared.command, on: server) else {
                throw Violation("the router took \(prepared.command), which the catalogue does not have")
            }
            // What the handlers read from a checked request, they can read.
            for argument in spec.arguments {
                let value = prepared.arguments[argument.name]
                try require(value != nil || !argument.isRequired, "\(spec.name): the required \(argument.name) is missing after the check")
                guard let value else { continue }
                switch argument.kind {
                case let .int(range): try require(value.intValue.map(range.contains) == true, "\(spec.name).\(argument.name) = \(value.text)")
                case let .number(range):
                    try require(value.doubleValue.map { $0.isFinite && range.contains($0) } == true, "\(spec.name).\(argument.name) = \(value.text)")
                case .object:
                    do throws(WCError) { _ = try [String: PropertyListValue](userInfoJSON: value) } catch {
                        try require(error.code == .payloadUnsupportedTypes, "\(spec.name).\(argument.name): the router took what the handler refuses: \(error)")
                    }
                case .array where argument.name == "samples":
                    _ = try? LiveRun.batch(value.arrayValue ?? [])
                default: break
                }
            }
        }
    }

    // MARK: - Live runs

    static func checkRunSamples(_ text: String, _ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        // The text as a pace and as a zone, as --pace, --target-pace and --target-hr take them.
        if let pace = GPWSTarget.parsePace(text) {
            try require(GPWSTarget.paceRange.contains(pace), "parsePace(\(text)) = \(pace)")
            let written = GPWSTarget.formatPace(pace)
            try require(GPWSTarget.parsePace(written) == pace, "\(text) = \(pace) → \(written)")
        }
        if let zone = GPWSTarget.parseZone(text) {
            try require(GPWSTarget.zoneRange.contains(zone.low) && zone.low < zone.high && zone.high <= GPWSTarget.zoneRange.upperBound, "parseZone(\(text))")
        }
        _ = GPWSTarget.formatPace(double(bytes))
        guard let json = try? JSONValue(parsing: bytes), let rows = json.arrayValue else { return tally.count(false) }
        let batch: [FlightSample]
        do throws(LiveRun.BatchError) {
            batch = try LiveRun.batch(rows)
        } catch {
            try requireOneLine(error.description, "LiveRun.batch")
            return tally.count(false)
        }
        // Written as the CLI writes a batch, it reads back the same.
        let written = JSONValue.array(
            batch.map { .array([.number(Double($0.time)), .number(Double($0.distance)), .number(Double($0.pace)), .number(Double($0.heartRate))]) })
        try require((try? LiveRun.batch(written.arrayValue ?? [])) == batch, "a batch does not read back")
        // A run in either mode and either behaviour (chosen by the input's length).
        let mode: FlightMode = bytes.count % 2 == 0 ? .pace : .heartRate
        let behaviour: GPWSBehaviour = bytes.count % 4 < 2 ? .fixed : .legacy
        var run = LiveRun(
            id: "01938B2C-7A00-7000-8000-000000000000", startedAt: 1_800_000_000, target: GPWSTarget(mode: mode), behaviour: behaviour,
            startOrigin: .local)
        if let problem = run.problem(with: batch) {
            try requireOneLine(problem, "LiveRun.problem")
            return tally.count(false)
        }
        tally.count(true)
        let decisions = run.apply(batch)
        try require(decisions.count == batch.count && run.alerts.count <= GPWS.maximumAlerts + batch.count, "\(decisions.count) decisions for \(batch.count)")
        // The flight a run of accepted samples makes is one the phone stores (never quarantined).
        let flight = run.flight(endingAt: run.startedAt)
        if let problem = FlightLimits.problem(with: flight) { throw Violation("a run of accepted samples makes a flight out of range: \(problem)") }
    }

    // MARK: - Files

    static func checkTimeline(_ text: String, _ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        let timeline: Timeline
        do throws(Timeline.FormatError) {
            timeline = try Timeline.parse(text)
        } catch {
            try requireOneLine(error.description, "Timeline.parse")
            return tally.count(false)
        }
        tally.count(true)
        try require(timeline.duration.isFinite && timeline.duration >= 0, "duration \(timeline.duration)")
        _ = timeline.marks
        let width = 10 + Int(bytes.first ?? 0) % 491, height = 3 + Int(bytes.last ?? 0) % 98
        for style in [GlyphStyle.unicode, .ascii] {
            try require(TimelineChart.render(timeline, width: width, height: height, style: style).count >= height, "the chart lost rows")
        }
        // The SVG's numbers are finite: no "nan" or "inf" in its tags (the text between them is the
        // file's own, a pair name, escaped).
        var tags = "", inTag = false
        for character in TimelineSVG.render(timeline) {
            if character == "<" { inTag = true } else if character == ">" { inTag = false }
            if inTag { tags.append(character) }
        }
        try require(!tags.contains("nan") && !tags.contains("inf"), "the SVG has a number that is not finite")
        _ = TimelineCommands.summaryJSON(timeline, svg: nil).text
        // Written as `runway timeline record` writes it, it reads back the same (times to the millisecond).
        func write(_ timeline: Timeline) -> String {
            ([Timeline.headerLine(pair: timeline.pair, intervalMilliseconds: timeline.intervalMilliseconds, phone: "p", watch: "w", startedAt: "s")]
                + timeline.samples.map(Timeline.sampleLine)).joined(separator: "\n")
        }
        guard let once = try? Timeline.parse(write(timeline)), let twice = try? Timeline.parse(write(once)) else {
            throw Violation("a timeline written again does not parse")
        }
        try require(
            once.samples == twice.samples && once.pair == timeline.pair && once.samples.count == timeline.samples.count, "a timeline does not read back")
    }

    static func checkRegistry(_ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        let registry: PairRegistry
        do throws(ControlError) {
            registry = try PairRegistry.decode(bytes, path: "/state/pairs.json")
        } catch {
            try require(error.exitStatus == 2, "a corrupt registry is not bad input (exit \(error.exitStatus))")
            try requireOneLine(error.message, "PairRegistry.decode")
            return tally.count(false)
        }
        tally.count(true)
        try require(registry.pairs.allSatisfy { PairRegistry.isValidName($0.name) }, "a registry with an invalid name")
        let again = try? PairRegistry.decode(registry.encoded, path: "/state/pairs.json")
        try require(again?.pairs == registry.pairs, "a registry saved and loaded again is not the same")
    }

    // MARK: - Scenarios

    /// A refusal is one line, and names the step (`step N (kind): …`, N among the file's steps) when it is
    /// about one; an accepted scenario has 1 to 10,000 steps, each within its ranges, and written again in
    /// its canonical form (`ScenarioText.json`) it reads back the same.
    static func checkScenario(_ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        let scenario: Scenario
        do throws(ScenarioError) {
            scenario = try Scenario.parse(bytes)
        } catch {
            try requireOneLine(error.description, "Scenario.parse")
            if error.description.hasPrefix("step ") {
                let number = Int(error.description.dropFirst(5).prefix { $0.isNumber }) ?? 0
                let count = (try? JSONValue(parsing: bytes))?["steps"]?.arrayValue?.count ?? 0
                try require(number >= 1 && number <= count, "\(error.description) names step \(number) of \(count)")
            }
            return tally.count(false)
        }
        tally.count(true)
        try require(!scenario.steps.isEmpty && scenario.steps.count <= Scenario.Limits.steps, "\(scenario.steps.count) steps accepted")
        for step in scenario.steps { try ScenarioText.requireInRange(step) }
        let again: Scenario
        do throws(ScenarioError) {
            again = try Scenario.parse(Array(ScenarioText.json(scenario).text.utf8))
        } catch {
            throw Violation("an accepted scenario written again is refused: \(error)")
        }
        try require(again == scenario, "an accepted scenario written again reads back differently")
    }

    // MARK: - Link conditions

    static func checkLinkSchedule(_ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        if let json = try? JSONValue(parsing: bytes) {
            switch Result(catching: { () throws(ControlError) in try LinkSchedule.conditions(from: json) }) {
            case let .success(conditions):
                try require(conditions.problem == nil, "saved conditions out of range: \(conditions)")
                try require((try? LinkSchedule.conditions(from: LinkSchedule.json(conditions))) == conditions, "saved conditions do not read back")
            case let .failure(error): try requireOneLine(error.message, "LinkSchedule.conditions")
            }
        }
        // The schedule playing, as the watch keeps it in its home for whoever holds the link next.
        var savedAccepted = false
        switch Result(catching: { () throws(ControlError) in try SavedLinkSchedule.parse(bytes) }) {
        case let .success(saved):
            savedAccepted = true
            try require(!saved.steps.isEmpty && (0...saved.steps.count).contains(saved.applied), "saved schedule: \(saved.applied) of \(saved.steps.count)")
            try require((try? SavedLinkSchedule.parse(Array(saved.json.text.utf8))) == saved, "a saved schedule does not read back")
        case let .failure(error):
            try require(error.exitStatus == 2, "a malformed saved schedule is not bad input (exit \(error.exitStatus))")
            try requireOneLine(error.message, "SavedLinkSchedule.parse")
        }
        let schedule: LinkSchedule
        do throws(ControlError) {
            schedule = try LinkSchedule.parse(file: bytes)
        } catch {
            try require(error.exitStatus == 2, "a malformed schedule is not bad input (exit \(error.exitStatus))")
            try requireOneLine(error.message, "LinkSchedule.parse")
            return tally.count(savedAccepted)
        }
        tally.count(true)
        try require(!schedule.steps.isEmpty && schedule.steps.count <= LinkSchedule.maximumSteps, "\(schedule.steps.count) steps")
        var conditions = LinkConditions()
        var previous = 0
        for step in schedule.steps {
            try require(step.at >= previous && step.at <= LinkSchedule.maximumAt && !step.change.isEmpty, "step at \(step.at)")
            previous = step.at
            conditions = step.change.applied(to: conditions)
            try require(conditions.problem == nil, "a step took the conditions out of range: \(conditions)")
        }
        // As the CLI sends the steps, the watch reads the same steps.
        guard let again = try? LinkSchedule.parse(steps: schedule.stepsJSON) else { throw Violation("the steps sent do not parse") }
        try require(again == schedule.steps, "the steps sent read back differently")
    }

    // MARK: - The command line

    static let specs: [ArgumentSpec] = [
        .option("count", "N", ""), .option("distance", "KM", ""), .option("home", "DIR", ""), .option("seed", "S", ""),
        .flag("json", ""), .flag("yes", ""),
    ]

    /// The input as an argument vector (split at NUL bytes), parsed; then every value and positional
    /// through each number parser a command uses.
    static func checkArguments(_ bytes: [UInt8], tally: inout Tally) throws(Violation) {
        let arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).prefix(64).map { String(decoding: $0, as: UTF8.self) }
        let parsed: ParsedArguments
        do throws(UsageError) {
            parsed = try Arguments.parse(arguments, specs: specs, maximumPositionals: 2)
        } catch {
            try requireOneLine(error.message, "Arguments.parse")
            return tally.count(false)
        }
        tally.count(true)
        for (name, range) in [("count", 1...1_000_000), ("seed", Int.min...Int.max)] {
            switch Result(catching: { () throws(UsageError) in try parsed.integer(name, range: range) }) {
            case let .success(value): try require(value.map(range.contains) != false, "--\(name) \(String(describing: value))")
            case let .failure(error): try requireOneLine(error.message, "--\(name)")
            }
        }
        switch Result(catching: { () throws(UsageError) in try parsed.number("distance", range: 0...1000) }) {
        case let .success(value): try require(value.map { $0.isFinite && (0...1000).contains($0) } != false, "--distance \(String(describing: value))")
        case let .failure(error): try requireOneLine(error.message, "--distance")
        }
        for text in parsed.positionals + Array(parsed.values.values) {
            _ = TimeText.parseDuration(text)
            _ = TimeText.parseInstant(text)
            _ = GPWSTarget.parsePace(text)
            _ = GPWSTarget.parseZone(text)
            _ = AppVersion.problem(text)
            _ = Identifier.isUUID(text)
        }
    }
}
