import Foundation
import PairTesting
import Testing

/// `runway man` through the two readers a user has (issue 52, item 6): `groff -man -Tutf8 -ww` (every
/// warning on, input read as Latin-1, as groff does without `preconv`) and `man -l` (man-db, which runs
/// `preconv` first). Before: 103 warnings from groff — each em dash, arrow and ≤ read byte by byte as
/// "invalid input character code 128…", an example line too long to adjust — and the help's Markdown
/// backticks printed as they were, 20 of them in the rendered page.
struct ManPageTests {
    /// The page, rendered by `program` with `arguments` reading it on stdin.
    func render(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        let page = try runTool(["man"])
        #expect(page.status == 0, "\(page.stderr)")
        try #require(FileManager.default.isExecutableFile(atPath: program), "\(program) is missing: scripts/setup --for test installs groff-base and man-db")
        return try runTool(arguments, binary: program, stdin: page.stdout, environment: environment)
    }

    @Test func groffWithEveryWarningOnRendersThePageWithoutOne() throws {
        let rendered = try render("/usr/bin/groff", ["-man", "-Tutf8", "-ww"])
        #expect(rendered.status == 0)
        #expect(rendered.stderr.isEmpty, "groff warned:\n\(rendered.stderr.split(separator: "\n").prefix(10).joined(separator: "\n"))")
        #expect(rendered.stdout.contains("RUNWAY(1)"), "\(rendered.stdout.prefix(300))")
        // The help's code spans are bold, not Markdown: no backtick reaches the reader.
        #expect(!rendered.stdout.contains("`"), "a Markdown backtick in the rendered page")
        // What was written outside ASCII arrives as written (the em dashes of the summaries).
        #expect(rendered.stdout.contains("—"), "the page's em dashes did not come through")
    }

    @Test func theRoffIsASCIIAndManRendersItWithoutAWarning() throws {
        let page = try runTool(["man"])
        #expect(page.stdout.unicodeScalars.allSatisfy { $0.isASCII }, "a byte outside ASCII in the roff")
        let rendered = try render(
            "/usr/bin/man", ["--warnings", "-l", "-"], environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MANPAGER": "cat", "PAGER": "cat"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(rendered.stderr.isEmpty, "man warned:\n\(rendered.stderr.split(separator: "\n").prefix(10).joined(separator: "\n"))")
        #expect(!rendered.stdout.contains("`"))
        #expect(rendered.stdout.contains("runway scenario run"))
    }
}
