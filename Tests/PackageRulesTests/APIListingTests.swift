import Foundation
import Testing

/// `scripts/api --check` (run by `scripts/test`) compares every product module's public API, as built,
/// with the listing in api/: it passes on the checked-in listing, and fails — naming the module, showing
/// the difference and saying to update the listing and CHANGELOG.md — when they differ. Run here on the
/// modules this test run was built with.
@Suite struct APIListingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let modules = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("Modules").path

    func check(apiDirectory: String, changelog: String? = nil) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments =
            [
                Self.root.appendingPathComponent("scripts/api").path, "--check", "--skip-build", "--modules-dir", Self.modules, "--api-dir", apiDirectory,
            ] + (changelog.map { ["--changelog", $0] } ?? [])
        let (status, data) = try process.runToEnd(capturing: .error)
        return (status, String(decoding: data, as: UTF8.self))
    }

    @Test func theCheckedInListingMatchesAndAChangedOneFails() throws {
        let listing = Self.root.appendingPathComponent("api").path
        let matching = try check(apiDirectory: listing)
        #expect(matching.status == 0, "\(matching.stderr)")
        // A listing that says WCSession has one method more than it does: as if a public method was removed.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("runway-api-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: listing, toPath: copy)
        let file = copy + "/WatchConnectivity.txt"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try (text + "\nextension WCSession {\n    public func removedMethod()\n}\n").write(toFile: file, atomically: true, encoding: .utf8)
        let changed = try check(apiDirectory: copy)
        #expect(changed.status == 1)
        #expect(changed.stderr.contains("-    public func removedMethod()"), "\(changed.stderr)")
        #expect(changed.stderr.contains("the public API of WatchConnectivity differs"), "\(changed.stderr)")
        #expect(changed.stderr.contains("run scripts/api to update the listing and say what changed in CHANGELOG.md"), "\(changed.stderr)")
        // A product module with no listing at all.
        try FileManager.default.removeItem(atPath: copy + "/UIKit.txt")
        let missing = try check(apiDirectory: copy)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no listing \(copy)/UIKit.txt"), "\(missing.stderr)")
    }

    /// The listing matches but the changelog still carries the fingerprint of an older one: the API changed
    /// and CHANGELOG.md did not say so — the check fails, naming the line to write.
    @Test func aListingTheChangelogDoesNotSayFails() throws {
        let changelog = FileManager.default.temporaryDirectory.appendingPathComponent("runway-changelog-\(getpid()).md").path
        defer { try? FileManager.default.removeItem(atPath: changelog) }
        let text = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let stale = text.replacingOccurrences(
            of: #"<!-- api-fingerprint: [0-9a-f]+ -->"#, with: "<!-- api-fingerprint: 0000000000000000 -->", options: .regularExpression)
        #expect(stale != text, "CHANGELOG.md carries no api-fingerprint line")
        try stale.write(toFile: changelog, atomically: true, encoding: .utf8)
        let result = try check(apiDirectory: Self.root.appendingPathComponent("api").path, changelog: changelog)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("api/ changed since CHANGELOG.md last said so"), "\(result.stderr)")
        #expect(result.stderr.contains("<!-- api-fingerprint: "), "\(result.stderr)")
    }
}
