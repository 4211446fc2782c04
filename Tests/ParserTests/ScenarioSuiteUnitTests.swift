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
            ScenarioSuite.Case(file: "a <&> \"b\".json", seed: 7, verdict: "pass", message: "PASS: every expectation held (1)", seconds: 1.5),
            ScenarioSuite.Case(
                file: "loss.json", seed: 8, verdict: "fail", message: "FAIL: 1 of 1 expectations did not hold\u{1}",
                lost: ["id-1", "id-2"], duplicated: ["id-3"], seconds: 0.25),
        ]
        let document = try XMLDocument(data: Data(ScenarioSuite.junit(cases).utf8))
        let suite = try #require(try document.nodes(forXPath: "//testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "tests")?.stringValue == "2" && suite.attribute(forName: "failures")?.stringValue == "1")
        let testcases = try document.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
        #expect(testcases.map { $0.attribute(forName: "name")?.stringValue ?? "" } == ["a <&> \"b\".json (seed 7)", "loss.json (seed 8)"])
        #expect(testcases[0].elements(forName: "failure").isEmpty)
        #expect(testcases[1].attribute(forName: "time")?.stringValue == "0.250")
        let failure = try #require(testcases[1].elements(forName: "failure").first?.stringValue)
        #expect(failure == "FAIL: 1 of 1 expectations did not hold?\nlost (2): id-1 id-2\nduplicated (1): id-3", "\(failure)")
    }
}
