import Foundation

/// Where the tests' directories go, and what becomes of them: under `$TMPDIR` (else `/tmp`), removed at
/// the end — or kept with `RUNWAY_KEEP_TEST_DIRS=1`, each kept one named on stderr so that it can be found.
package enum TestDirectories {
    /// `$TMPDIR` when it is an absolute path short enough for the sockets a device's home holds (a socket
    /// path must fit in 107 bytes; a pair's root adds ~20, a home's sockets ~25), else `/tmp`.
    package static let base = base(tmpdir: ProcessInfo.processInfo.environment["TMPDIR"])

    /// The base for a given `$TMPDIR` (nil: unset).
    package static func base(tmpdir: String?) -> String {
        guard let tmpdir else { return "/tmp" }
        let trimmed = tmpdir.count > 1 && tmpdir.hasSuffix("/") ? String(tmpdir.dropLast()) : tmpdir
        guard trimmed.hasPrefix("/"), trimmed.utf8.count <= maximumBaseBytes else { return "/tmp" }
        return trimmed
    }

    /// The longest `$TMPDIR` taken (the scenario runner's limit too).
    package static let maximumBaseBytes = 48

    /// Whether `RUNWAY_KEEP_TEST_DIRS` asks to keep them (set, and neither empty nor `0`).
    package static var keep: Bool { keep(ProcessInfo.processInfo.environment["RUNWAY_KEEP_TEST_DIRS"]) }

    package static func keep(_ value: String?) -> Bool { value.map { !$0.isEmpty && $0 != "0" } ?? false }

    /// Removes `path`, or with `RUNWAY_KEEP_TEST_DIRS=1` keeps it and says so on stderr (`what` is in it).
    package static func finish(_ path: String, _ what: String) {
        if keep {
            FileHandle.standardError.write(Data("RUNWAY_KEEP_TEST_DIRS: kept \(path) (\(what))\n".utf8))
        } else {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}

/// A fresh directory with a short path (socket paths must fit in 107 bytes), for unit tests; remove it
/// with `removeDirectory`.
package func makeTemporaryDirectory(_ tag: String = "t") -> String {
    makeScratchDirectory(tag)
}

/// Removes a directory of `makeTemporaryDirectory` (kept and named with `RUNWAY_KEEP_TEST_DIRS=1`).
package func removeDirectory(_ path: String) {
    TestDirectories.finish(path, "a test's directory")
}
