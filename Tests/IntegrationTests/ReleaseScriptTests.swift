import Foundation
import PairTesting
import Testing

/// The release process (issue 52, item 1): `scripts/release VERSION` makes the release commit — the
/// version where it is written, README's and docs/your-app.md's dependency lines, the changelog's
/// [Unreleased] under the version — and tags nothing; `--tag VERSION` tags that commit; and then README's
/// own dependency line resolves, by version, against the repository so released. Run on a clone of HEAD in
/// a temporary directory (this repository is never tagged by a test). Before, there was no release process
/// and no tag: README's `from:` line resolved nothing.
@Suite struct ReleaseScriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let identity = [
        "GIT_AUTHOR_NAME": "release-test", "GIT_AUTHOR_EMAIL": "release@test", "GIT_COMMITTER_NAME": "release-test",
        "GIT_COMMITTER_EMAIL": "release@test",
    ]

    func git(_ arguments: [String], in directory: String) throws -> CommandResult {
        try runTool(["-C", directory] + arguments, binary: "/usr/bin/git", environment: Self.identity)
    }

    func release(_ arguments: [String], in clone: String) throws -> CommandResult {
        try runTool([clone + "/scripts/release"] + arguments, binary: "/bin/bash", environment: Self.identity)
    }

    @Test func aReleaseCommitThenItsTagMakeReadmesLineResolve() throws {
        let scratch = makeScratchDirectory("release")
        defer { removeDirectory(scratch) }
        let clone = scratch + "/runway-pair"
        // Without the repository's tags: the release under test is the next one, whatever was released before.
        #expect(try runTool(["clone", "-q", "--no-tags", Self.root, clone], binary: "/usr/bin/git").status == 0)
        let current =
            try String(contentsOfFile: clone + "/Sources/Control/Version.swift", encoding: .utf8)
            .components(separatedBy: "static let version = \"").dropFirst().first.map { String($0.prefix { $0 != "\"" }) } ?? ""
        let parts = current.split(separator: ".").compactMap { Int($0) }
        try #require(parts.count == 3, "\(current)")
        let next = "\(parts[0]).\(parts[1] + 1).0"
        // Something to release, whatever HEAD's [Unreleased] holds (empty on a release commit itself).
        let original = try String(contentsOfFile: clone + "/CHANGELOG.md", encoding: .utf8)
        try original.replacingOccurrences(of: "## [Unreleased]\n", with: "## [Unreleased]\n\n### Fixed\n- What the release test releases.\n")
            .write(toFile: clone + "/CHANGELOG.md", atomically: true, encoding: .utf8)
        #expect(try git(["commit", "-q", "-am", "A change to release"], in: clone).status == 0)
        let before = try String(contentsOfFile: clone + "/CHANGELOG.md", encoding: .utf8)
        let unreleased = before.components(separatedBy: "## [Unreleased]\n").dropFirst().first?.components(separatedBy: "\n## [").first ?? ""

        // Refusals: one line, exit 2, nothing changed.
        for (arguments, message) in [([current], "is not above the current version"), (["1.2"], "is not a semantic version")] {
            let refused = try release(arguments, in: clone)
            #expect(refused.status == 2 && refused.stderr.contains(message) && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        }
        let made = try release([next], in: clone)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stderr.contains("scripts/release --tag \(next)"), "\(made.stderr)")
        #expect(try git(["log", "-1", "--format=%s"], in: clone).stdout == "Release \(next)\n")
        #expect(try git(["tag", "--list"], in: clone).stdout.isEmpty, "the release commit made a tag")
        #expect(try git(["status", "--porcelain"], in: clone).stdout.isEmpty)
        let version = try String(contentsOfFile: clone + "/Sources/Control/Version.swift", encoding: .utf8)
        #expect(version.contains("static let version = \"\(next)\""))
        for document in ["README.md", "docs/your-app.md"] {
            let text = try String(contentsOfFile: clone + "/" + document, encoding: .utf8)
            #expect(text.contains("from: \"\(next)\"") && !text.contains("from: \"\(current)\""), "\(document)")
        }
        let after = try String(contentsOfFile: clone + "/CHANGELOG.md", encoding: .utf8)
        let section = try #require(after.components(separatedBy: "## [\(next)] - ").dropFirst().first, "no [\(next)] section")
        #expect(after.contains("## [Unreleased]\n\n## [\(next)] - "), "[Unreleased] is not left empty above the release")
        #expect(section.components(separatedBy: "\n## [").first?.hasSuffix(unreleased.trimmingCharacters(in: .newlines) + "\n") == true || unreleased.isEmpty)

        // The tag, on the release commit; then README's own line (its URL this clone's) resolves to it.
        let tagged = try release(["--tag", next], in: clone)
        #expect(tagged.status == 0, "\(tagged.stderr)")
        #expect(try git(["describe", "--exact-match", "HEAD"], in: clone).stdout == "\(next)\n")
        let readme = try String(contentsOfFile: clone + "/README.md", encoding: .utf8)
        let line = try #require(readme.components(separatedBy: "dependencies: [").dropFirst().first?.components(separatedBy: "],").first)
        let url = try #require(line.components(separatedBy: "url: \"").dropFirst().first?.split(separator: "\"").first.map(String.init))
        let consumer = scratch + "/consumer"
        try FileManager.default.createDirectory(atPath: consumer + "/Sources/Uses", withIntermediateDirectories: true)
        try "print(1)\n".write(toFile: consumer + "/Sources/Uses/main.swift", atomically: true, encoding: .utf8)
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(name: "Uses", dependencies: [\(line.replacingOccurrences(of: url, with: "file://" + clone))], targets: [.executableTarget(name: "Uses")])

            """
        try manifest.write(toFile: consumer + "/Package.swift", atomically: true, encoding: .utf8)
        let resolved = try runTool(["swift", "package", "--package-path", consumer, "resolve"], binary: "/usr/bin/env")
        #expect(resolved.status == 0, "\(resolved.stderr)")
        let pins = try String(contentsOfFile: consumer + "/Package.resolved", encoding: .utf8)
        #expect(pins.contains("\"version\" : \"\(next)\""), "\(pins)")
    }
}
