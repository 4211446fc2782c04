import Dispatch
import Glibc
import Posix
import Testing

/// `LoopMailbox`: work from other threads runs on the loop's thread, in order; a claimed, unopened
/// mailbox holds it even while a start-up step turns the loop; and `sync` from another thread, with a
/// batch still being drained, returns cleanly (the body is let go of before the caller wakes).
@Suite struct LoopMailboxTests {
    @Test func claimedWorkWaitsUntilOpenEvenWhenTheLoopTurns() throws {
        let loop = EventLoop()
        let mailbox = try LoopMailbox(loop: loop)
        mailbox.claim()
        nonisolated(unsafe) var ran: [Int] = []
        mailbox.post { ran.append(1) }
        mailbox.post { ran.append(2) }
        try loop.runOnce(maximumWaitMilliseconds: 10)
        #expect(ran.isEmpty, "held while the device starts")
        mailbox.open()
        try loop.runOnce(maximumWaitMilliseconds: 100)
        #expect(ran == [1, 2])
    }

    @Test func syncFromManyThreadsRunsEachOnceOnTheLoop() throws {
        let loop = EventLoop()
        let mailbox = try LoopMailbox(loop: loop)
        nonisolated(unsafe) var total = 0
        let thread = try DedicatedThread { try? mailbox.run() }
        // Until the thread runs the loop, `sync` runs inline on its caller (start-up's rule): the work
        // would never cross threads, and a `stop` made then would be undone by `run`, which starts the
        // loop afresh — the test waited for the thread for ever, once, on a loaded machine.
        while mailbox.isOnLoopThread { usleep(1000) }
        let group = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<200 { mailbox.sync { total += 1 } }
            }
        }
        group.wait()
        mailbox.sync { loop.stop() }
        thread.join()
        #expect(total == 1600)
    }
}
