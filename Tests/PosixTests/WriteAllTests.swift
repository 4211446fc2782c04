import Glibc
import Testing
@testable import Posix
import PairTesting

@Suite struct WriteAllTests {
    /// The blocking control client writes its request with `writeAll`: a daemon that has just died
    /// must be an EPIPE the CLI can report in one line, not a SIGPIPE that kills the CLI first.
    @Test func writingToASocketWhosePeerIsGoneThrowsInsteadOfRaisingSIGPIPE() throws {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let writer = FileDescriptor(adopting: ends[0])
        defer { writer.close() }
        Glibc.close(ends[1])
        // A CLI keeps SIGPIPE's default action, which kills the process.
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        #expect(throws: SystemError("write", errno: EPIPE)) { try writer.writeAll([1, 2, 3] as [UInt8]) }
    }

    @Test func writeAllStillWritesPlainFiles() throws {
        let directory = makeTemporaryDirectory("wa")
        defer { removeDirectory(directory) }
        let raw = open(directory + "/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(raw >= 0)
        let file = FileDescriptor(adopting: raw)
        try file.writeAll(Array("hello".utf8))
        file.close()
        var info = stat()
        #expect(stat(directory + "/f", &info) == 0 && info.st_size == 5)
    }
}
