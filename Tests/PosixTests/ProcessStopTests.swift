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
