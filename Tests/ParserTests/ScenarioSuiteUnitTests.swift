import Control
import Foundation
import FoundationXML
@testable import RunWayCLI
import Testing

/// The pure parts of `runway scenario run` over several files: `--shard I/N` read strictly, the slices a
/// partition of the files, and JUnit XML that an XML parser reads back whatever the text holds.
@Suite struct ScenarioSuiteUnitTests {
    @Test func aShardIsIOfNWithinRange() throws {
        #expect(try ScenarioSuite.shard("1/1") == (1, 1))
        #expect(try ScenarioSuite.shard("3/4") == (3, 4))
        for text in ["0/1", "2/1", "1/0", "+1/2", "1/+2", "-1/2", " 1/2", "1/2 ", "1//2", "/", "1", "a/2", "1/10001", "99999999999999999999/1"] {
            #expect(throws: ControlError.self, "\(text)") { try ScenarioSuite.shard(text) }
        }
    }

    @Test func theSlicesPartitionTheFilesEvenly() {
        let files = (1...11).map { "f\($0).json" }
        for count in 1...13 {
            let slices = (1...count).map { ScenarioSuite.slice(files, shard: ($0, count)) }
            #expect(slices.flatMap { $0 }.sorted() == files.sorted(), "\(count)")
            #expect((slices.map(\.count).max() ?? 0) - (slices.map(\.count).min() ?? 0) <= 1, "\(count)")
        }
        #expect(ScenarioSuite.slice(files, shard: nil) == files)
    }

    @Test func theJUnitXMLReadsBackWithTheVerdictsAndTheIds() throws {
        let cases = [
            ScenarioSuite.Case(
                file: "a <&> \"b\".json", seed: 7, verdict: "pass", message: "PASS: every expectation held (1)", seconds: 1.5,
                log: ["[   0.1s] 1/2 record 5: recorded 5 runs on the watch", "verdict: PASS: every expectation held (1)"]),
            ScenarioSuite.Case(
                file: "loss.json", seed: 8, verdict: "fail", message: "FAIL: 1 of 1 expectations did not hold\u{1}",
                lost: ["id-1", "id-2"], duplicated: ["id-3"], seconds: 0.25),
            ScenarioSuite.Case(
                file: "stuck.json", seed: 9, verdict: "fail", message: "FAIL: step 2 (drain) could not be carried out", seconds: 120, error: true),
        ]
        let document = try XMLDocument(data: Data(ScenarioSuite.junit(cases).utf8))
        let suite = try #require(try document.nodes(forXPath: "//testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "name")?.stringValue == "runway scenario run")
        #expect(suite.attribute(forName: "tests")?.stringValue == "3" && suite.attribute(forName: "failures")?.stringValue == "1")
        // A run that could not reach its verdict is an error, not a failure (before: errors="0" always).
        #expect(suite.attribute(forName: "errors")?.stringValue == "1")
        let testcases = try document.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
        // Named by the file alone, so that a CI's history of a test carries across runs and seeds.
        #expect(testcases.map { $0.attribute(forName: "name")?.stringValue ?? "" } == ["a <&> \"b\".json", "loss.json", "stuck.json"])
        #expect(testcases[0].elements(forName: "failure").isEmpty && testcases[0].elements(forName: "error").isEmpty)
        #expect(testcases[1].attribute(forName: "time")?.stringValue == "0.250")
        let failure = try #require(testcases[1].elements(forName: "failure").first?.stringValue)
        #expect(failure == "FAIL: 1 of 1 expectations did not hold?\nlost (2): id-1 id-2\nduplicated (1): id-3", "\(failure)")
        #expect(testcases[2].elements(forName: "failure").isEmpty)
        #expect(testcases[2].elements(forName: "error").first?.attribute(forName: "message")?.stringValue == "FAIL: step 2 (drain) could not be carried out")
        // The steps as printed.
        #expect(
            testcases[0].elements(forName: "system-out").first?.stringValue
                == "[   0.1s] 1/2 record 5: recorded 5 runs on the watch\nverdict: PASS: every expectation held (1)")
        // The seeds, one per file when they differ, in the suite's properties.
        let properties = try document.nodes(forXPath: "//testsuite/properties/property").compactMap { $0 as? XMLElement }
        let pairs = properties.map { ($0.attribute(forName: "name")?.stringValue ?? "", $0.attribute(forName: "value")?.stringValue ?? "") }
        #expect(pairs.contains { $0 == ("seed loss.json", "8") } && pairs.contains { $0 == ("seed stuck.json", "9") }, "\(pairs)")
    }

    /// The same files run with other seeds give the same test names, and one seed for all is one property;
    /// each shard's suite has a name of its own.
    @Test func theNamesHoldAcrossSeedsAndEachShardNamesItsSuite() throws {
        func junit(seed: UInt64, shard: (index: Int, count: Int)?) throws -> XMLDocument {
            let cases = ["a.json", "b.json"].map { ScenarioSuite.Case(file: $0, seed: seed, verdict: "pass", message: "PASS") }
            return try XMLDocument(data: Data(ScenarioSuite.junit(cases, shard: shard).utf8))
        }
        func names(_ document: XMLDocument, _ path: String) throws -> [String] {
            try document.nodes(forXPath: path).compactMap { ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue }
        }
        let first = try junit(seed: 1, shard: nil), second = try junit(seed: 2, shard: nil)
        #expect(try names(first, "//testcase") == names(second, "//testcase"))
        let seeds = try first.nodes(forXPath: "//property[@name='seed']").compactMap { ($0 as? XMLElement)?.attribute(forName: "value")?.stringValue }
        #expect(seeds == ["1"])
        let one = try names(junit(seed: 1, shard: (1, 2)), "//testsuite"), two = try names(junit(seed: 1, shard: (2, 2)), "//testsuite")
        #expect(one == ["runway scenario run (shard 1/2)"] && two == ["runway scenario run (shard 2/2)"], "\(one) \(two)")
    }
}
