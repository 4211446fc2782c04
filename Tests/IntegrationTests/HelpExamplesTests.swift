import Foundation
import PairTesting
import Testing

/// Every command's `--help` ends with examples; each names that very command and parses (the same
/// options and argument counts as the command takes); the man page has the same EXAMPLES.
@Suite struct HelpExamplesTests {
    /// The command words of each line of `runway --help` (`phone events`, `clock set`, `man`).
    func commandPaths() throws -> [[String]] {
        let usage = try runTool(["--help"]).stdout
        return usage.split(separator: "\n").filter { $0.hasPrefix("  runway ") }.map { line in
            Array(
                line.split(separator: " ").dropFirst().prefix { word in
                    !(word.hasPrefix("-") || word.hasPrefix("[") || word.hasPrefix("(") || word.contains("|") || word.first!.isUppercase)
                }.map(String.init))
        }
    }

    /// The `runway …` part of an example (`echo … | runway …`, `runway man | man -l -`), as words.
    func runwayWords(_ example: String) -> [String]? {
        let segment = example.components(separatedBy: " | ").first { $0.hasPrefix("runway ") }
        return segment.map { Array($0.split(separator: " ").dropFirst().map(String.init)) }
    }

    /// A flight id in an example has the shape real ones have (a UUID), so that it can be copied as a model.
    @Test func examplesUseRealIDShapes() throws {
        let uuid = try NSRegularExpression(pattern: "^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
        for path in [["phone", "flight"], ["phone", "delete"]] {
            let help = try runTool(path + ["--help"]).stdout
            let examples = help.components(separatedBy: "\nexamples:\n").last?.split(separator: "\n") ?? []
            #expect(!examples.isEmpty)
            for example in examples {
                let id = example.split(separator: " ").dropFirst(3).first.map(String.init) ?? ""
                #expect(uuid.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) != nil, "'\(example)': \(id) is not a flight id's shape")
            }
        }
    }

    @Test func everyCommandsHelpHasExamplesThatNameItAndParse() throws {
        let paths = try commandPaths()
        #expect(paths.count > 50)
        let manual = try runTool(["man"]).stdout
        #expect(manual.contains(".SH EXAMPLES"))
        for path in paths {
            let help = try runTool(path + ["--help"])
            #expect(help.status == 0, "\(path)")
            guard let section = help.stdout.components(separatedBy: "\nexamples:\n").last, help.stdout.contains("\nexamples:\n") else {
                Issue.record("runway \(path.joined(separator: " ")) --help has no examples")
                continue
            }
            let examples = section.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(!examples.isEmpty, "\(path)")
            for example in examples {
                guard let words = runwayWords(example) else {
                    Issue.record("\(path): '\(example)' does not run runway")
                    continue
                }
                // The longest command path the example's words start with is this command.
                let named = paths.filter { words.starts(with: $0) }.max { $0.count < $1.count }
                #expect(named == path, "'\(example)' is listed under runway \(path.joined(separator: " "))")
                // Its options and arguments parse: with --help added, runway parses them and stops.
                let parsed = try runTool(words + ["--help"])
                #expect(parsed.status == 0, "'\(example)': \(parsed.stderr.split(separator: "\n").first ?? "")")
                #expect(
                    manual.contains(example.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")),
                    "the man page lacks '\(example)'")
            }
        }
    }
}
