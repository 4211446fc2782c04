import Foundation
import Glibc
import PairTesting
import Testing
@testable import Posix

/// `Spawn`: the one posix_spawn set-up of phone-os, `runway up` and the test harness.
@Suite struct SpawnTests {
    /// Runs `spawn` with its stdout in a file; returns the exit status and what it printed.
    func output(of spawn: Spawn) throws -> (status: Int32, text: String) {
        let directory = makeTemporaryDirectory("spawn")
        defer { removeDirectory(directory) }
        var spawn = spawn
        spawn.actions.append(.open(1, path: directory + "/out", flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600))
        let pid = try spawn.run()
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        let text = (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? ""
        return ((status >> 8) & 0xff, text)
    }

    /// A mask blocking SIGTERM on the spawning thread (as on a test or Dispatch thread) is emptied in
    /// the child; kept, it would make the child deaf to SIGTERM.
    @Test func theChildsSignalMaskIsEmptied() throws {
        // Blocked on this thread only while it spawns; its own mask is put back as it was.
        var mask = sigset_t(), previous = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &mask, &previous)
        let reset = Result { try output(of: Spawn("/bin/grep", arguments: ["grep", "SigBlk", "/proc/self/status"])) }
        var keeping = Spawn("/bin/grep", arguments: ["grep", "SigBlk", "/proc/self/status"])
        keeping.resetSignalMask = false
        let kept = Result { try output(of: keeping) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let blocked = (try reset.get().text, try kept.get().text)
        func bits(_ line: String) -> UInt64? {
            line.split(separator: "\t").last.flatMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) }
        }
        #expect(bits(blocked.0) == 0, "\(blocked.0)")
        // SIGTERM is signal 15: bit 14 of the mask.
        #expect(bits(blocked.1).map { $0 & (1 << 14) != 0 } == true, "\(blocked.1)")
    }

    /// Only the descriptors the actions place are inherited, when asked; the environment is the one given.
    @Test func inheritedDescriptorsAreClosedAndTheEnvironmentIsTheOneGiven() throws {
        try withScratchFile { file in try inheritedDescriptorsAreClosed(file: file) }
    }

    /// A file open here, close-on-exec, for the descriptor tests to copy where they need it.
    func withScratchFile(_ body: (Int32) throws -> Void) throws {
        let directory = makeTemporaryDirectory("spawnfd")
        defer { removeDirectory(directory) }
        let file = open(directory + "/leak", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(file) }
        try body(file)
    }

    func inheritedDescriptorsAreClosed(file: Int32) throws {
        // A copy without close-on-exec (inherited unless closed), high enough not to be one `ls` opens.
        let leaked = fcntl(file, F_DUPFD, 200)
        defer { close(leaked) }
        #expect(leaked >= 200)
        let command = "ls /proc/self/fd; echo \"x=$X\""
        var closing = Spawn("/bin/sh", arguments: ["sh", "-c", command], environment: ["X=given", "PATH=/bin:/usr/bin"])
        closing.closeInheritedDescriptors = true
        let closed = try output(of: closing)
        #expect(closed.status == 0)
        #expect(!closed.text.split(separator: "\n").contains(Substring(String(leaked))), "\(closed.text)")
        #expect(closed.text.contains("x=given"))
        let inherited = try output(of: Spawn("/bin/sh", arguments: ["sh", "-c", command]))
        #expect(inherited.text.split(separator: "\n").contains(Substring(String(leaked))), "\(inherited.text)")
    }

    /// A descriptor placed above 2: it is there in the child, and what is open here below and above it
    /// is not.
    @Test func aDescriptorPlacedHighIsKeptAndTheOthersAroundItClosed() throws {
        try withScratchFile { file in try aDescriptorPlacedHigh(file: file) }
    }

    func aDescriptorPlacedHigh(file: Int32) throws {
        let below = fcntl(file, F_DUPFD, 240)
        let above = fcntl(file, F_DUPFD, 300)
        defer { close(below); close(above) }
        #expect(below >= 240 && below < 270 && above >= 300)
        var spawn = Spawn("/bin/sh", arguments: ["sh", "-c", "ls /proc/self/fd"])
        spawn.actions.append(.duplicate(file, to: 270))
        spawn.closeInheritedDescriptors = true
        let listed = try output(of: spawn).text.split(separator: "\n").map(String.init)
        #expect(listed.contains("270"), "\(listed)")
        #expect(!listed.contains(String(below)) && !listed.contains(String(above)), "\(listed)")
    }

    /// A binary that is not there: the funnel's error, naming the operation and errno.
    @Test func aMissingExecutableIsASystemError() {
        #expect(throws: SystemError("posix_spawn /nonexistent/tool", errno: ENOENT)) {
            _ = try Spawn("/nonexistent/tool").run()
        }
    }
}
