import Connectivity
import Foundation
import JSONText
import Posix
import PropertyLists
import RunWayApp
@testable import RunWayCLI
import TerminalViews
import Testing

/// Every parser total (issue 22): the properties of `ParserProperties` over seeded random inputs — the
/// seeds mutated (digits turned into 19-digit numbers, bytes flipped, pieces cut, doubled and spliced)
/// and random text from each parser's own alphabet — and over the committed corpus of
/// `scripts/fuzz --target NAME`; then each formatter's output read back by its parser, for seeded
/// random values.
@Suite struct ParserPropertyTests {
    static let corpusRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/parsers").path

    static func corpus(_ target: ParserTarget) throws -> [(name: String, bytes: [UInt8])] {
        let directory = corpusRoot + "/" + target.rawValue
        return try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map { name in
            (name, Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))))
        }
    }

    func check(_ target: ParserTarget, _ bytes: [UInt8], _ name: String, tally: inout ParserProperties.Tally) {
        do throws(ParserProperties.Violation) { try ParserProperties.check(target, bytes, tally: &tally) } catch {
            Issue.record("\(target.rawValue) \(name): \(error) — input \(String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription)")
        }
    }

    @Test(arguments: ParserTarget.allCases)
    func theCorpusHoldsTheCurrentSeedsAndKeepsTheProperties(target: ParserTarget) throws {
        let files = try Self.corpus(target)
        let byName = Dictionary(files.map { ($0.name, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        for seed in ParserSeeds.all(target) {
            #expect(byName["seed-" + seed.name] == seed.bytes, "Fuzz/parsers/\(target.rawValue)/seed-\(seed.name) is missing or stale")
        }
        var tally = ParserProperties.Tally()
        for (name, bytes) in files { check(target, bytes, name, tally: &tally) }
        #expect(tally.accepted > 0 && tally.refused > 0, "\(tally)")
    }

    /// 3,000 seeded inputs per parser; both paths are reached many times (the mutations are neither all
    /// fatal nor all harmless).
    @Test(arguments: ParserTarget.allCases)
    func seededRandomInputsKeepTheProperties(target: ParserTarget) {
        var random = SeededGenerator(seed: 0x22_0001 ^ UInt64(ParserTarget.allCases.firstIndex(of: target)!))
        let seeds = ParserSeeds.all(target).map(\.bytes)
        var tally = ParserProperties.Tally()
        for index in 0..<3000 {
            let input = TextMutation.input(from: seeds, alphabet: Self.alphabet(target), random: &random)
            check(target, input, "input \(index)", tally: &tally)
        }
        #expect(tally.accepted >= 30, "\(tally)")
        #expect(tally.refused >= 30, "\(tally)")
    }

    /// The pieces each parser's text is made of, for random text that gets past its first check.
    static func alphabet(_ target: ParserTarget) -> [String] {
        let numbers = ["0", "1", "9", "12", "59", "60", "2026", "9999999999999999999", "-9223372036854775808", "1e308", "-0", ".5", "NaN"]
        switch target {
        case .iso8601: return numbers + ["-", ":", "T", "t", "Z", "z", "+", ".", "2026-11-30T07:00:00", "+09:00", "00"]
        case .duration: return numbers + ["d", "h", "m", "s", "7d", "12h"]
        case .version: return numbers + [".", "\n", "1.4", "a", "\u{0}"]
        case .typedJSON, .request:
            return numbers + [
                "{", "}", "[", "]", ":", ",", "\"", "\"$date\"", "\"$data\"", "\"2026-11-30T07:00:00.999Z\"", "\"AAEC/w==\"", "null", "true",
                "\"command\"", "\"record\"", "\"count\"", "\"payload\"", "\"samples\"", "\\u0000", "\\ud800",
            ]
        case .runSamples: return numbers + ["[", "]", ",", "360", "150", "0", ":", "-", "6:00", "140-160", "[[1,3,360,150]]", ",[7,9,0,0]"]
        case .timeline:
            return numbers + [
                "{", "}", ":", ",", "\n", "\"t\"", "\"watch\"", "\"phone\"", "\"up\"", "true", "\"pid\"", "\"count\"",
                "{\"runwayTimeline\":1,\"intervalMs\":100}\n",
            ]
        case .registry: return numbers + ["{", "}", "[", "]", ":", ",", "\"pairs\"", "\"name\"", "\"phone\"", "\"watch\"", "\"default\"", "\"/p\""]
        case .arguments: return numbers + ["\u{0}", "--count", "--distance", "--home", "--seed", "--json", "=", "-", "--", "7d", "6:00"]
        case .pairingSecret: return numbers + ["a", "f", "F", "g", "\n", "/", ".", "-", "_", "0123456789abcdef", "\u{0}"]
        case .scenario:
            return numbers + [
                "{", "}", "[", "]", ":", ",", "\"", "\"steps\"", "\"record\"", "\"count\"", "\"kill\"", "\"target\"", "\"phone-app\"", "\"after\"",
                "\"expect\"", "\"lost\"", "\"all\"", "\"drain\"", "\"timeout\"", "\"90s\"", "\"jetsam\"", "\"phoneApp\"", "true", "null",
            ]
        case .linkSchedule:
            return numbers + [
                "{", "}", "[", "]", ":", ",", "\"steps\"", "\"seed\"", "\"at\"", "\"latencyMs\"", "\"jitterMs\"", "\"loss\"", "\"bandwidthKbps\"",
                "\"range\"", "\"near\"", "\"wifi\"", "\"out\"", "\"reset\"", "true", "0.2", "{\"at\":0,\"loss\":0.5}",
            ]
        }
    }

    // MARK: - Formatters, read back

    @Test func everyFormattedTimeReadsBack() throws {
        var random = SeededGenerator(seed: 0x22_0101)
        let range = Timestamp.formattableRange
        for _ in 0..<20_000 {
            let milliseconds = Int64.random(in: Int64(range.lowerBound * 1000)...Int64(range.upperBound * 1000), using: &random)
            let value = Double(milliseconds) / 1000
            let text = Timestamp.iso8601(value, milliseconds: true)
            let back = Timestamp.parseISO8601(text)
            #expect(back == value, "\(value) → \(text) → \(String(describing: back))")
            #expect(try TimeText.parseInstant(text).get() == value, "parseInstant(\(text))")
        }
    }

    @Test func everyFormattedDurationReadsBack() {
        var random = SeededGenerator(seed: 0x22_0102)
        for _ in 0..<20_000 {
            let seconds = Double(Int64.random(in: 0...1_000_000_000_000_000, using: &random) >> UInt64.random(in: 0...50, using: &random))
            let text = TimeText.formatDuration(seconds)
            #expect(TimeText.parseDuration(text) == seconds, "\(seconds) → \(text)")
        }
    }

    @Test func everyPropertyListReadsBackFromTypedJSON() throws {
        var random = SeededGenerator(seed: 0x22_0103)
        for _ in 0..<2_000 {
            let value = PropertyListValue.dictionary(Self.randomDictionary(depth: 3, random: &random))
            let text = value.json.text
            let back = try PropertyListValue(json: try JSONValue(parsing: text))
            #expect(back == value, "\(text)")
        }
    }

    static func randomDictionary(depth: Int, random: inout SeededGenerator) -> [String: PropertyListValue] {
        var entries: [String: PropertyListValue] = [:]
        for index in 0..<Int.random(in: 0...4, using: &random) {
            entries["k\(index)" + (Bool.random(using: &random) ? "$" : "é")] = randomValue(depth: depth, random: &random)
        }
        return entries
    }

    static func randomValue(depth: Int, random: inout SeededGenerator) -> PropertyListValue {
        switch Int.random(in: 0..<(depth > 0 ? 8 : 6), using: &random) {
        case 0: return .string(String(repeating: "x\u{0}\"\\é", count: Int.random(in: 0...3, using: &random)))
        case 1: return .integer(Int64.random(in: .min ... .max, using: &random))
        case 2: return .real(Double.random(in: -1e300...1e300, using: &random))
        case 3: return .bool(Bool.random(using: &random))
        // Dates to the millisecond: what typed JSON writes.
        case 4: return .date(Double(Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random)) / 1000)
        case 5: return .data((0..<Int.random(in: 0...7, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 6: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(depth: depth - 1, random: &random) })
        default: return .dictionary(randomDictionary(depth: depth - 1, random: &random))
        }
    }

    /// Scenarios of random valid steps read back as written; then one step is broken (a field it does not
    /// take), and the refusal names that step — its number and kind — and nothing is accepted.
    @Test func aScenarioReadsBackAndARefusalNamesTheBrokenStep() throws {
        var random = SeededGenerator(seed: 0x24_0501)
        func number(_ range: ClosedRange<Int>) -> ScenarioNumber {
            let a = Int.random(in: range, using: &random), b = Int.random(in: range, using: &random)
            return Bool.random(using: &random) ? ScenarioNumber(a, a) : ScenarioNumber(min(a, b), max(a, b))
        }
        func bound() -> ScenarioBound? {
            switch Int.random(in: 0...3, using: &random) {
            case 0: return nil
            case 1: return .all
            default:
                let n = number(0...1000)
                return .range(n.low...n.high)
            }
        }
        func step() -> ScenarioStep {
            switch Int.random(in: 0...11, using: &random) {
            case 0: return .record(count: number(Scenario.Limits.record), distanceKm: Bool.random(using: &random) ? 5.5 : nil)
            case 1: return .send(from: Bool.random(using: &random) ? .phone : .watch, count: number(Scenario.Limits.send))
            case 2:
                // watch-app only with a watchApp of one's own: these scenarios have none.
                let target = [ScenarioStep.Target.phoneApp, .phoneOS, .watch].randomElement(using: &random)!
                return .kill(target, afterMs: Bool.random(using: &random) ? number(0...600_000) : nil)
            case 3: return .relaunch(Bool.random(using: &random) ? .phoneOS : .watch)
            case 4: return .link(up: Bool.random(using: &random))
            case 5: return .clockAdvance(seconds: 129_600, text: "1d12h")
            case 6:
                let watch = Bool.random(using: &random)
                return .app(watch ? .watch : .phone, (watch ? ScenarioStep.watchAgentAppActions : ScenarioStep.appActions).randomElement(using: &random)!)
            case 7: return .jetsam(.phone)
            case 8: return .sleep(number(Scenario.Limits.milliseconds))
            case 9:
                return .waitApp(.phone, state: ScenarioStep.appStates.randomElement(using: &random)!, timeout: Double(Int.random(in: 1...3600, using: &random)))
            case 10: return .drain(timeout: Double(Int.random(in: 1...3600, using: &random)))
            default:
                var expectation = ScenarioExpectation(stored: bound(), received: bound(), clean: Bool.random(using: &random) ? true : nil)
                if let lost = bound(), lost != .all { expectation.lost = lost }
                if let transfers = bound(), transfers != .all { expectation.transfers = transfers }
                if expectation == ScenarioExpectation() { expectation.outstanding = .range(0...0) }
                return .expect(expectation)
            }
        }
        for _ in 0..<300 {
            let scenario = Scenario(name: "s", backgroundBudgetMs: 300, steps: (0..<Int.random(in: 1...30, using: &random)).map { _ in step() })
            #expect(try Scenario.parse(Array(ScenarioText.json(scenario).text.utf8)) == scenario)
            guard case var .object(header) = ScenarioText.json(scenario), case var .array(steps) = header["steps"] else { continue }
            let broken = Int.random(in: 0..<steps.count, using: &random)
            let kind = scenario.steps[broken].kind
            steps[broken] = .object([kind: .object(["nonsense": .integer(1)])])
            header["steps"] = .array(steps)
            do {
                _ = try Scenario.parse(Array(JSONValue.object(header).text.utf8))
                Issue.record("step \(broken + 1) (\(kind)) broken, and the scenario was accepted")
            } catch {
                #expect(error.description.hasPrefix("step \(broken + 1) (\(kind)): "), "\(error.description)")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    @Test func everyWrittenTimelineReadsBack() throws {
        var random = SeededGenerator(seed: 0x22_0104)
        for _ in 0..<300 {
            var milliseconds = 0
            func device() -> DeviceSample {
                DeviceSample(
                    up: Bool.random(using: &random), pid: Bool.random(using: &random) ? Int.random(in: 1...Int(Int32.max), using: &random) : nil,
                    count: Bool.random(using: &random) ? Int.random(in: 0...1_000_000_000, using: &random) : nil)
            }
            let samples = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                milliseconds = min(milliseconds + Int.random(in: 0...100_000_000, using: &random), 10_000_000_000)
                return Timeline.Sample(seconds: Double(milliseconds) / 1000, watch: device(), phone: device())
            }
            let interval = Int.random(in: 1...3_600_000, using: &random)
            let text =
                ([Timeline.headerLine(pair: "p\(interval)", intervalMilliseconds: interval, phone: "/p", watch: "/w", startedAt: "2026-11-30T07:00:00Z")]
                + samples.map(Timeline.sampleLine)).joined(separator: "\n")
            let back = try Timeline.parse(text)
            #expect(back.samples == samples && back.intervalMilliseconds == interval && back.pair == "p\(interval)")
        }
    }

    @Test func everySavedRegistryLoadsBack() throws {
        var random = SeededGenerator(seed: 0x22_0105)
        let nameBytes = Array("abcXYZ019-_.".utf8)
        for _ in 0..<500 {
            var registry = PairRegistry()
            for index in 0..<Int.random(in: 0...5, using: &random) {
                let name =
                    "p\(index)"
                    + String(decoding: (0..<Int.random(in: 0...60, using: &random)).map { _ in nameBytes.randomElement(using: &random)! }, as: UTF8.self)
                registry.pairs.append(
                    PairRegistry.Pair(
                        name: String(name.prefix(64)), phone: "/home/é \"\(index)\"\\\u{1}", watch: "/tmp/w\(Int.random(in: 0...9, using: &random))"))
            }
            #expect(try PairRegistry.decode(registry.encoded, path: "pairs.json").pairs == registry.pairs)
        }
    }

    @Test func everyWrittenBatchReadsBack() throws {
        var random = SeededGenerator(seed: 0x22_0106)
        for _ in 0..<500 {
            let batch = (0..<Int.random(in: 1...50, using: &random)).map { _ in
                FlightSample(
                    time: Float.random(in: 0...604_800, using: &random), distance: Float.random(in: 0...1e6, using: &random),
                    pace: Float.random(in: 0...1200, using: &random), heartRate: Float.random(in: 0...250, using: &random))
            }
            let text = JSONValue.array(
                batch.map { .array([.number(Double($0.time)), .number(Double($0.distance)), .number(Double($0.pace)), .number(Double($0.heartRate))]) }
            ).text
            #expect(try LiveRun.batch(try JSONValue(parsing: text).arrayValue ?? []) == batch, "\(text.prefix(200))")
        }
    }
}

// MARK: - Mutations of text

/// Seeded changes to a parser's input: what a person mistypes, a file holds after a crash, or a hostile
/// peer sends.
enum TextMutation: CaseIterable {
    case insertPiece, replaceDigits, deleteRange, duplicateRange, flipBit, truncate, splice, randomPieces

    static func input(from seeds: [[UInt8]], alphabet: [String], random: inout SeededGenerator) -> [UInt8] {
        var bytes = seeds.randomElement(using: &random) ?? []
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            bytes = allCases.randomElement(using: &random)!.apply(to: bytes, seeds: seeds, alphabet: alphabet, random: &random)
        }
        return bytes
    }

    func apply(to base: [UInt8], seeds: [[UInt8]], alphabet: [String], random: inout SeededGenerator) -> [UInt8] {
        var bytes = base
        func position() -> Int { Int.random(in: 0...bytes.count, using: &random) }
        func piece() -> [UInt8] { Array(alphabet.randomElement(using: &random)!.utf8) }
        switch self {
        case .insertPiece:
            bytes.insert(contentsOf: piece(), at: position())
        case .replaceDigits:
            // A run of digits becomes another number: the overflow and range edges.
            guard let start = bytes.indices.filter({ (0x30...0x39).contains(bytes[$0]) }).randomElement(using: &random) else { break }
            var end = start
            while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
            bytes.replaceSubrange(start..<end, with: piece())
        case .deleteRange:
            let a = position(), b = position()
            bytes.removeSubrange(min(a, b)..<max(a, b))
        case .duplicateRange:
            let a = position(), b = position()
            bytes.insert(contentsOf: Array(bytes[min(a, b)..<max(a, b)]), at: position())
        case .flipBit:
            guard !bytes.isEmpty else { break }
            bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
        case .truncate:
            bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
        case .splice:
            let other = seeds.randomElement(using: &random) ?? []
            bytes = Array(bytes.prefix(position())) + other.suffix(Int.random(in: 0...other.count, using: &random))
        case .randomPieces:
            bytes = (0..<Int.random(in: 0...12, using: &random)).flatMap { _ in piece() }
        }
        return bytes
    }
}
