import Foundation
import PairTesting
import Testing

/// Where the tests' directories go (issue 52, item 6): under `$TMPDIR` — before, always `/tmp`, whatever
/// `$TMPDIR` said — unless it is relative or too long for the sockets a home holds; and kept only when
/// `RUNWAY_KEEP_TEST_DIRS` says so. That a kept directory is named on stderr, under `$TMPDIR`, is checked
/// end to end by `scripts/consumer-test` (its consumer's `swift test` runs with both set).
struct TestDirectoriesTests {
    @Test func theBaseIsTMPDIRWhenItCanHoldTheSockets() {
        #expect(TestDirectories.base(tmpdir: nil) == "/tmp")
        #expect(TestDirectories.base(tmpdir: "/var/tmp/build-42") == "/var/tmp/build-42")
        #expect(TestDirectories.base(tmpdir: "/var/tmp/build-42/") == "/var/tmp/build-42")
        #expect(TestDirectories.base(tmpdir: "relative/tmp") == "/tmp")
        #expect(TestDirectories.base(tmpdir: "") == "/tmp")
        // Too long for a home's sockets under it.
        #expect(TestDirectories.base(tmpdir: "/home/someone/projects/my-app/.build/tmp/for-the-tests") == "/tmp")
        let longest = "/" + String(repeating: "t", count: TestDirectories.maximumBaseBytes - 1)
        #expect(TestDirectories.base(tmpdir: longest) == longest)
    }

    @Test func aDirectoryIsKeptOnlyWhenAsked() {
        #expect(!TestDirectories.keep(nil))
        #expect(!TestDirectories.keep(""))
        #expect(!TestDirectories.keep("0"))
        #expect(TestDirectories.keep("1"))
        #expect(TestDirectories.keep("yes"))
    }

    @Test func aScratchDirectoryIsMadeInTheBase() {
        let directory = makeScratchDirectory("where")
        defer { removeDirectory(directory) }
        #expect(directory.hasPrefix(TestDirectories.base + "/rw-where-"), "\(directory)")
    }
}
