import Glibc
import Testing

@testable import Posix

/// `ProcessStop`, on real children: SIGTERM when it is enough, SIGKILL at the deadline when it is
/// not, SIGCONT first for a stopped one, and a process already gone is no error.
@Suite struct ProcessStopTests {
    func shell(_ script: String) throws -> pid_t {
        try Spawn("/bin/sh", arguments: ["sh", "-c", script]).run()
    }

    /// The signal that ended a raw `waitpid` status (0: it exited).
    func signalOf(_ raw: Int32?) -> Int32? { raw.map { $0 & 0x7f } }

    @Test func sigtermIsEnoughForAChildThatHeedsIt() throws {
        let pid = try shell("exec sleep 30")
        let outcome = ProcessStop.stop(pid, grace: 10)
        #expect(!outcome.killed)
        #expect(signalOf(outcome.rawStatus) == SIGTERM)
        #expect(ProcessStop.reap(pid, block: false) == .notOurChild, "reaped by the stop")
    }

    @Test func aChildThatIgnoresSigtermIsKilledAtTheDeadline() throws {
        let pid = try shell("trap '' TERM; while :; do sleep 0.05; done")
        usleep(200_000)  // the trap set before the SIGTERM
        let outcome = ProcessStop.stop(pid, grace: 0.3)
        #expect(outcome.killed)
        #expect(signalOf(outcome.rawStatus) == SIGKILL)
    }

    @Test func aStoppedChildIsContinuedSoThatSigtermEndsIt() throws {
        let pid = try shell("exec sleep 30")
        #expect(ProcessStop.signal(pid, SIGSTOP))
        var waited = 0
        while !ProcessStop.isStopped(pid), waited < 500 {
            usleep(10_000)
            waited += 1
        }
        #expect(ProcessStop.isStopped(pid))
        let outcome = ProcessStop.stop(pid, grace: 5)
        #expect(!outcome.killed)
        #expect(signalOf(outcome.rawStatus) == SIGTERM)
    }

    @Test func aProcessAlreadyGoneIsNoError() throws {
        let pid = try shell("exit 3")
        guard case .exited(let raw) = ProcessStop.reap(pid, block: true) else {
            Issue.record("the child was not reaped")
            return
        }
        #expect((raw >> 8) & 0xff == 3)
        #expect(!ProcessStop.signal(pid, 0))
        #expect(ProcessStop.stop(pid, grace: 1) == ProcessStop.Outcome(rawStatus: nil, killed: false))
    }
}

/// A home's lock held a moment longer by a process on its way out (issue 39: a daemon relaunched right
/// after its predecessor's SIGKILL was refused while a thread of the killed one still finished its I/O):
/// the new holder waits for the dead, never for the living.
@Suite struct LockFromTheDeadTests {
    func shell(_ script: String) throws -> pid_t { try Spawn("/bin/sh", arguments: ["sh", "-c", script]).run() }

    /// A zombie: a child that exited and is not reaped yet.
    func zombie() throws -> pid_t {
        let pid = try shell("exit 0")
        var waited = 0
        while !ProcessStop.isGoingAway(pid), waited < 500 {
            usleep(10_000)
            waited += 1
        }
        return pid
    }

    @Test func aZombieIsGoingAwayAndTheLivingAreNot() throws {
        let dead = try zombie()
        #expect(ProcessStop.isGoingAway(dead))
        _ = ProcessStop.reap(dead, block: true)
        #expect(ProcessStop.isGoingAway(dead), "no such process any more")
        #expect(!ProcessStop.isGoingAway(getpid()))
        let alive = try shell("exec sleep 30")
        #expect(!ProcessStop.isGoingAway(alive))
        ProcessStop.stop(alive, grace: 5)
    }

    /// The lock is held (by `flock`, for 0.6 s) while its pid file names a process that is going away:
    /// the new holder waits and takes it. Named a living process instead, it is refused at once.
    @Test(arguments: [true, false]) func theLockOfADyingHolderIsWaitedFor(dying: Bool) throws {
        let directory = makeScratchDirectoryForLock()
        defer { _ = try? shell("rm -rf '\(directory)'") }
        let pidFile = directory + "/lock"
        let holder = try shell("exec flock '\(directory)' sleep 0.6")
        var waited = 0
        while case .none = FileLock.holder(of: directory), waited < 500 {
            usleep(10_000)
            waited += 1
        }
        let named = dying ? try zombie() : getpid()
        let text = Array("\(named)\n".utf8)
        try Filesystem.writeAtomically(text, to: pidFile)
        do {
            let lock = try FileLock.takeWaitingForTheDead { () throws(FileLock.LockError) in try FileLock(directory: directory, pidFile: pidFile) }
            #expect(dying, "a living holder's lock was taken")
            lock.unlock()
        } catch {
            #expect(!dying, "the dying holder's lock was refused: \(error)")
        }
        _ = ProcessStop.reap(holder, block: true)
        if dying { _ = ProcessStop.reap(named, block: true) }
    }

    func makeScratchDirectoryForLock() -> String {
        var template = Array("/tmp/rw-lock-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }
}
