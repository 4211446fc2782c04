import Foundation
import FoundationXML
import Glibc
import PairTesting
import Testing

/// `runway scenario run` in a CI's terms, through the binary: several files (a directory is its *.json),
/// `--junit FILE` (one test case per file and seed; a failure's text the verdict and the lost ids), and
/// `--shard I/N` (the slices partition the files); a malformed shard is one line, exit 2, nothing run.
@Suite(.serialized) struct ScenarioSuiteTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/scenarios").path

    /// A directory of scenario files: `quick-N.json` that pass in a second, and RunWay 1.3's loss if asked.
    func suite(quick: Int, withLoss: Bool) throws -> String {
        let directory = makeScratchDirectory("suite")
        for index in 1...quick {
            let text = #"{"steps":[{"record":\#(index)},{"drain":"1m"},{"expect":{"lost":0,"duplicated":0}}]}"#
            try text.write(toFile: directory + "/quick-\(index).json", atomically: true, encoding: .utf8)
        }
        if withLoss {
            try FileManager.default.copyItem(atPath: Self.examples + "/runway-1.3-reclaimed.json", toPath: directory + "/loss.json")
        }
        try "not a scenario".write(toFile: directory + "/notes.txt", atomically: true, encoding: .utf8)
        return directory
    }

    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Schemas/junit.xsd").path

    /// `xmllint --schema Tests/Schemas/junit.xsd` on a JUnit file: the rules Jenkins' xunit holds a report to
    /// (its junit-10.xsd, restated). Before, every file failed it (a `file` attribute on each test case).
    func validate(_ junit: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint"), "xmllint is missing: scripts/setup --for test installs libxml2-utils")
        let result = try runTool(["--noout", "--schema", Self.schema, junit], binary: "/usr/bin/xmllint")
        #expect(result.status == 0, "\(junit) is not valid JUnit:\n\(result.stderr)")
    }

    /// The test cases of a JUnit file, validated first: name → failure text (nil for a pass).
    func cases(_ junit: String) throws -> [String: String?] {
        try validate(junit)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: junit))
        var found: [String: String?] = [:]
        for node in try document.nodes(forXPath: "//testcase") {
            guard let element = node as? XMLElement, let name = element.attribute(forName: "name")?.stringValue else { continue }
            found.updateValue(element.elements(forName: "failure").first?.stringValue, forKey: name)
        }
        return found
    }

    @Test func aDirectoryRunsEveryFileAndTheJUnitFileHasACasePerFileWithTheLostIds() throws {
        let directory = try suite(quick: 1, withLoss: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let junit = directory + "/report.xml"
        let result = try runTool(["scenario", "run", directory, "--seed", "3", "--junit", junit])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let verdicts = result.stdout.split(separator: "\n").filter { $0.hasPrefix("verdict: ") }
        #expect(verdicts.count == 2 && verdicts[0].hasPrefix("verdict: FAIL") && verdicts[1].hasPrefix("verdict: PASS"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("scenarios: 2, 1 passed, 1 failed\n"), "\(result.stdout)")
        let found = try cases(junit)
        #expect(found.count == 2, "\(found)")
        #expect(found["\(directory)/quick-1.json"] == .some(nil), "\(found)")
        let failure = try #require(found["\(directory)/loss.json"] ?? nil, "\(found)")
        #expect(failure.hasPrefix("FAIL: 1 of 1 expectations did not hold"), "\(failure)")
        let lost = failure.split(separator: "\n").first { $0.hasPrefix("lost (") }
        #expect(lost != nil && (lost?.split(separator: " ").count ?? 0) > 3, "the lost ids are named: \(failure)")
    }

    @Test func theShardsPartitionTheFiles() throws {
        let directory = try suite(quick: 3, withLoss: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var ran: [String] = []
        for index in 1...2 {
            let junit = directory + "/shard-\(index).xml"
            let result = try runTool(["scenario", "run", directory, "--shard", "\(index)/2", "--junit", junit])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let count = index == 1 ? 2 : 1
            #expect(result.stdout.hasSuffix("scenarios: \(count) (shard \(index)/2), \(count) passed, 0 failed\n"), "\(result.stdout)")
            ran += try cases(junit).keys.map { String($0.split(separator: "/").last ?? "") }
            let suite = try XMLDocument(contentsOf: URL(fileURLWithPath: junit)).nodes(forXPath: "//testsuite").first as? XMLElement
            #expect(suite?.attribute(forName: "name")?.stringValue == "runway scenario run (shard \(index)/2)")
        }
        #expect(ran.sorted() == ["quick-1.json", "quick-2.json", "quick-3.json"], "\(ran)")
        // More slices than files: an empty slice runs nothing and passes.
        let empty = try runTool(["scenario", "run", directory + "/quick-1.json", "--shard", "2/2"])
        #expect(empty.status == 0 && empty.stdout == "scenarios: 0 (shard 2/2), 0 passed, 0 failed\n", "\(empty.stdout)\(empty.stderr)")
    }

    /// A run that could not reach its verdict (a step that could not be carried out: recording on a watch
    /// that was killed) is a JUnit `<error>`, not a `<failure>`, and the suite counts it; each test case
    /// carries the steps as printed in `<system-out>`; two runs with drawn seeds name their test cases
    /// alike and say their seeds in the suite's properties (before: `FILE (seed S)`, a new name each run).
    @Test func aStepThatCouldNotRunIsAnErrorAndTheNamesHoldAcrossRuns() throws {
        let directory = makeScratchDirectory("suite-err")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #"{"steps":[{"record":3},{"kill":"watch"},{"record":2},{"expect":{"lost":0}}]}"#
            .write(toFile: directory + "/stuck.json", atomically: true, encoding: .utf8)
        try #"{"steps":[{"record":2},{"drain":"1m"},{"expect":{"lost":0}}]}"#.write(toFile: directory + "/quick.json", atomically: true, encoding: .utf8)
        var runs: [(names: [String], seeds: [String])] = []
        for run in 1...2 {
            let junit = directory + "/run-\(run).xml"
            let result = try runTool(["scenario", "run", directory, "--junit", junit])
            #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
            try validate(junit)
            let document = try XMLDocument(contentsOf: URL(fileURLWithPath: junit))
            let suite = try #require(try document.nodes(forXPath: "//testsuite").first as? XMLElement)
            #expect(suite.attribute(forName: "errors")?.stringValue == "1" && suite.attribute(forName: "failures")?.stringValue == "0", "\(suite)")
            let stuck = try #require(try document.nodes(forXPath: "//testcase[@name='\(directory)/stuck.json']").first as? XMLElement)
            let error = try #require(stuck.elements(forName: "error").first, "\(stuck)")
            #expect(error.attribute(forName: "message")?.stringValue?.hasPrefix("FAIL: step 3 (record) could not be carried out") == true, "\(error)")
            #expect(stuck.elements(forName: "failure").isEmpty)
            let log = stuck.elements(forName: "system-out").first?.stringValue ?? ""
            #expect(log.contains("1/4 record 3: recorded 3 runs on the watch") && log.contains("2/4 kill watch: SIGKILL to watch-agent"), "\(log)")
            #expect(log.split(separator: "\n").last?.hasPrefix("verdict: FAIL: step 3 (record)") == true, "\(log)")
            let names = try document.nodes(forXPath: "//testcase").compactMap { ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue }
            let seeds = try document.nodes(forXPath: "//property").compactMap { ($0 as? XMLElement)?.attribute(forName: "name")?.stringValue }
            runs.append((names, seeds.filter { $0.hasPrefix("seed") }))
        }
        #expect(runs[0].names == runs[1].names && runs[0].names == ["\(directory)/quick.json", "\(directory)/stuck.json"], "\(runs)")
        #expect(!runs[0].seeds.isEmpty, "the seeds are in the properties: \(runs)")
    }

    @Test func aMalformedOrOutOfRangeShardIsOneLineAndRunsNothing() throws {
        let directory = try suite(quick: 1, withLoss: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for shard in ["0/2", "3/2", "1/0", "a/b", "1/2/3", "-1/2", "2", "", "1/10001"] {
            let result = try runTool(["scenario", "run", directory, "--shard", shard])
            #expect(result.status == 2, "\(shard): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(shard): \(result.stdout)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines.first?.hasPrefix("runway: --shard: ") == true, "\(shard): \(result.stderr)")
        }
        let noDirectory = try runTool(["scenario", "run", directory, "--junit", "/nonexistent/report.xml"])
        #expect(noDirectory.status == 2 && noDirectory.stderr == "runway: --junit: /nonexistent is not a directory\n", "\(noDirectory.stderr)")
        let empty = makeScratchDirectory("suite-empty")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let none = try runTool(["scenario", "run", empty])
        #expect(none.status == 2 && none.stderr.hasSuffix("no scenario files (*.json) in the directory\n"), "\(none.stderr)")
    }
}
