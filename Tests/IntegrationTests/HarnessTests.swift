import Foundation
import Glibc
import PairTesting
import Testing

/// The harness itself: `withRunningPair` cleans up whatever the body does, and `ChildProcess` starts
/// children that SIGTERM reaches and says why one was not ready.
@Suite struct HarnessTests {
    /// The body throws: both daemons are gone (killed and reaped) and the homes removed all the same.
    @Test func withRunningPairCleansUpAlsoWhenTheBodyThrows() throws {
        var pids: [Int32] = []
        var root = ""
        #expect(throws: HarnessError.self) {
            try withRunningPair(tag: "scope") { pair in
                pids = [pair.phone?.pid, pair.watch?.pid].compactMap { $0 }
                root = pair.root
                #expect(pair.phone?.isRunning == true && pair.watch?.isRunning == true)
                throw HarnessError("the body failed")
            }
        }
        #expect(pids.count == 2)
        for pid in pids { #expect(kill(pid, 0) == -1 && errno == ESRCH, "process \(pid) is still there") }
        #expect(!root.isEmpty && !FileManager.default.fileExists(atPath: root))
    }

    /// Started from a thread that blocks SIGTERM (as Dispatch and test threads may), the child still
    /// has it unblocked: `stop` ends it with SIGTERM, not with the SIGKILL after the grace period.
    @Test func aChildOfAThreadBlockingSIGTERMStopsOnSIGTERM() throws {
        var mask = sigset_t(), previous = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &mask, &previous)
        let child = Result { try ChildProcess("/bin/sh", ["-c", "echo ready; exec sleep 600"], stdout: .pipe) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let process = try child.get()
        try process.waitForLine("ready", timeout: 30)
        process.stop(grace: 60)
        #expect(process.terminationSignal == SIGTERM)
    }

    /// A child that exits before its ready line: the error says so, with its status.
    @Test func aChildThatExitsBeforeItIsReadySaysSo() throws {
        let process = try ChildProcess("/bin/sh", ["-c", "echo starting; exit 3"], stdout: .pipe)
        #expect {
            try process.waitForLine("ready", timeout: 30)
        } throws: { error in
            "\(error)".contains("exited (status 3) before it said ready")
        }
        #expect(process.status == 3 && process.terminationSignal == nil)
    }
}
