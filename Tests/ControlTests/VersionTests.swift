import Control
import Foundation
import Testing

/// The version is written once (`RunWayPair.version`, which `--version` prints): a semantic version, and
/// the newest released section of CHANGELOG.md says what it has.
@Suite struct VersionTests {
    static let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CHANGELOG.md").path

    @Test func theVersionIsSemantic() {
        let parts = RunWayPair.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "\(RunWayPair.version)")
    }

    @Test func theChangelogsNewestReleaseIsThisVersion() throws {
        let text = try String(contentsOfFile: Self.changelog, encoding: .utf8)
        let releases = text.split(separator: "\n").filter { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        let newest = try #require(releases.first, "CHANGELOG.md has no release section")
        #expect(newest.hasPrefix("## [\(RunWayPair.version)] - "), "CHANGELOG.md's newest release is \(newest), not \(RunWayPair.version)")
        #expect(text.contains("## [Unreleased]"), "CHANGELOG.md keeps an Unreleased section on top")
    }

    /// The README and docs/your-app.md show the dependency at this version.
    @Test func theDocsDependOnThisVersion() throws {
        let root = URL(fileURLWithPath: Self.changelog).deletingLastPathComponent()
        for document in ["README.md", "docs/your-app.md"] {
            let text = try String(contentsOfFile: root.appendingPathComponent(document).path, encoding: .utf8)
            let versions = text.components(separatedBy: "from: \"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
            #expect(!versions.isEmpty, "\(document) shows no .package(url:from:)")
            #expect(versions.allSatisfy { $0 == RunWayPair.version }, "\(document) depends on \(versions), not \(RunWayPair.version)")
        }
    }
}
