import Glibc
import Posix
import Testing

@Suite struct WhenIdleTests {
    /// A loop on a manual clock with a pipe registered: writing a byte makes its next iteration hear
    /// from a descriptor (activity); `turn` moves the clock and runs one iteration.
    final class Loop {
        let clock = ManualClock()
        let loop: EventLoop
        let ends: [Int32]

        init() {
            loop = EventLoop(clock: clock)
            var fds: [Int32] = [-1, -1]
            precondition(pipe(&fds) == 0)
            ends = fds
            loop.register(ends[0], interest: .readable) { [ends] _ in
                var byte: UInt8 = 0
                _ = read(ends[0], &byte, 1)
            }
        }

        deinit {
            close(ends[0])
            close(ends[1])
        }

        func activity() {
            var byte: UInt8 = 1
            _ = write(ends[1], &byte, 1)
            try? loop.runOnce(maximumWaitMilliseconds: 0)
        }

        func turn(milliseconds: UInt64) {
            clock.advance(byMilliseconds: milliseconds)
            try? loop.runOnce(maximumWaitMilliseconds: 0)
        }
    }

    @Test func runsOnceAWholeIntervalHasPassedInSilenceAndNotAgainUntilSomethingHappens() {
        let fixture = Loop()
        var runs = 0
        let idle = WhenIdle(loop: fixture.loop, intervalMilliseconds: 2000) { runs += 1 }
        idle.start()
        fixture.turn(milliseconds: 1999)
        #expect(runs == 0)
        fixture.turn(milliseconds: 1)
        #expect(runs == 1)
        for _ in 0..<5 { fixture.turn(milliseconds: 2000) }
        #expect(runs == 1, "one idle spell, one run")
    }

    @Test func activityPostponesItAndStartsANewSpell() {
        let fixture = Loop()
        var runs = 0
        let idle = WhenIdle(loop: fixture.loop, intervalMilliseconds: 2000) { runs += 1 }
        idle.start()
        // Something happens in every interval: never idle.
        for _ in 0..<4 {
            fixture.turn(milliseconds: 1000)
            fixture.activity()
            fixture.turn(milliseconds: 1000)
        }
        #expect(runs == 0)
        // Then a whole interval of quiet: it runs.
        fixture.turn(milliseconds: 2000)
        #expect(runs == 1)
        // Activity again, then quiet again: a new spell, a second run.
        fixture.activity()
        fixture.turn(milliseconds: 2000)
        #expect(runs == 1)
        fixture.turn(milliseconds: 2000)
        #expect(runs == 2)
    }

    @Test func stoppedItNeverRuns() {
        let fixture = Loop()
        var runs = 0
        let idle = WhenIdle(loop: fixture.loop, intervalMilliseconds: 2000) { runs += 1 }
        idle.start()
        idle.stop()
        for _ in 0..<3 { fixture.turn(milliseconds: 2000) }
        #expect(runs == 0)
    }
}
