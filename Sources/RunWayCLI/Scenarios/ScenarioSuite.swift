import Control
import Posix

/// `runway scenario run` over several files, in a CI's terms: the files (a directory stands for its
/// `*.json`, by name), the slice a job runs (`--shard I/N`), and the JUnit XML a CI reads (`--junit FILE`).
/// Pure but for listing a directory; the runs themselves are `ScenarioCommands`'.
enum ScenarioSuite {
    /// One scenario file run with one seed: a JUnit test case.
    struct Case: Equatable {
        var file: String
        var seed: UInt64
        /// `pass`, `fail` or `interrupted`.
        var verdict: String
        /// The verdict's line (`FAIL: 1 of 1 expectations did not hold; …`).
        var message: String
        var lost: [String] = []
        var duplicated: [String] = []
        var seconds: Double = 0
        /// The run did not reach its verdict: a step could not be carried out, the pair could not start, a
        /// signal stopped it — a JUnit `<error>`, where an expectation that did not hold is a `<failure>`.
        var error = false
        /// Each step's line and the verdict's, as printed: the test case's `<system-out>`.
        var log: [String] = []
    }

    // MARK: - Which files

    /// `--shard I/N`: the I-th of N slices (1 ≤ I ≤ N ≤ 10,000).
    static func shard(_ text: String) throws(ControlError) -> (index: Int, count: Int) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), parts.allSatisfy({ $0.allSatisfy(\.isNumber) }) else {
            throw ControlError.invalid("--shard: \(OneLine.quote(text)) is not I/N (the I-th of N slices, e.g. 2/4)")
        }
        guard (1...10_000).contains(count), (1...count).contains(index) else {
            throw ControlError.invalid("--shard: \(text) is out of range (I from 1 to N, N from 1 to 10000)")
        }
        return (index, count)
    }

    /// The files of the shard, in order: file k (from 0) belongs to slice k mod N + 1, so every file is in
    /// exactly one slice and the slices differ by at most one file.
    static func slice(_ files: [String], shard: (index: Int, count: Int)?) -> [String] {
        guard let shard else { return files }
        return files.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
    }

    /// The arguments, directories replaced by their `*.json` files sorted by name; `-` (stdin) only alone.
    static func files(_ arguments: [String]) throws(ControlError) -> [String] {
        var files: [String] = []
        for argument in arguments {
            if argument == "-" {
                guard arguments.count == 1 else { throw ControlError.invalid("- (stdin) is a scenario of its own: give no other file with it") }
                files.append(argument)
            } else if Filesystem.kind(of: argument) == .directory {
                let found = try jsonFiles(in: argument)
                guard !found.isEmpty else { throw ControlError.invalid("\(argument): no scenario files (*.json) in the directory") }
                files += found
            } else {
                files.append(argument)
            }
        }
        return files
    }

    static func jsonFiles(in directory: String) throws(ControlError) -> [String] {
        let all: [String]
        do { all = try Filesystem.names(in: directory) } catch { throw ControlError.invalid("\(directory): \(String(cString: strerror(error.errno)))") }
        var names: [String] = []
        for name in all {
            if name.hasSuffix(".json"), !name.hasPrefix("."), Filesystem.kind(of: directory + "/" + name) == .regular { names.append(name) }
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return names.sorted().map { prefix + $0 }
    }

    // MARK: - JUnit XML

    /// The cases as JUnit XML, in the form CI tools read (Jenkins' xunit validates it against its
    /// `junit-10.xsd`; `Tests/IntegrationTests/Schemas/junit.xsd` restates those rules, and the tests
    /// validate every file with `xmllint --schema`): one `<testsuite>`, named for the shard it runs (one
    /// name per shard, so that a CI keeps the slices apart); a `<testcase>` per file, named by the file alone,
    /// so that its history carries across runs; the seeds and the shard in the suite's `<properties>`; an
    /// expectation that did not hold a `<failure>`, a run that could not reach its verdict an `<error>`,
    /// with the verdict and the ids lost and duplicated; the steps as printed in `<system-out>`.
    static func junit(_ cases: [Case], shard: (index: Int, count: Int)? = nil) -> String {
        let name = "runway scenario run" + (shard.map { " (shard \($0.index)/\($0.count))" } ?? "")
        let errors = cases.filter(\.error).count
        let failures = cases.filter { !$0.error && $0.verdict != "pass" }.count
        let total = cases.reduce(0) { $0 + $1.seconds }
        var properties: [(String, String)] = [("runway", RunWayPair.version)]
        if let shard { properties.append(("shard", "\(shard.index)/\(shard.count)")) }
        if let first = cases.first, cases.allSatisfy({ $0.seed == first.seed }) {
            properties.append(("seed", String(first.seed)))
        } else {
            properties += cases.map { ("seed \($0.file)", String($0.seed)) }
        }
        let counts = "tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"\(errors)\""
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"\(escape(name))\" \(counts) time=\"\(seconds(total))\">\n"
        xml += "  <testsuite name=\"\(escape(name))\" \(counts) skipped=\"0\" time=\"\(seconds(total))\">\n"
        xml += "    <properties>\n"
        for (key, value) in properties { xml += "      <property name=\"\(escape(key))\" value=\"\(escape(value))\"/>\n" }
        xml += "    </properties>\n"
        for item in cases {
            xml += "    <testcase classname=\"scenario\" name=\"\(escape(item.file))\" time=\"\(seconds(item.seconds))\">\n"
            if item.verdict != "pass" {
                var text = item.message
                if !item.lost.isEmpty { text += "\nlost (\(item.lost.count)): " + item.lost.joined(separator: " ") }
                if !item.duplicated.isEmpty { text += "\nduplicated (\(item.duplicated.count)): " + item.duplicated.joined(separator: " ") }
                let element = item.error ? "error" : "failure"
                xml += "      <\(element) message=\"\(escape(item.message))\" type=\"\(escape(item.verdict))\">\(escape(text))</\(element)>\n"
            }
            xml += "      <system-out>\(escape(item.log.joined(separator: "\n")))</system-out>\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Text for an XML attribute or element: the five entities, and no control character XML 1.0 forbids.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func seconds(_ value: Double) -> String {
        let milliseconds = Int((value * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
