import Testing

@testable import OSProcess

/// `AppSupervision`, the rule by which phone-os ends a launch and paces the next: pure, time passed in.
struct AppSupervisionTests {
    let ms: UInt64 = 1_000_000

    func supervision(budget: UInt64 = 300, timeout: UInt64 = 20_000) -> AppSupervision {
        AppSupervision(budgetMilliseconds: budget, launchTimeoutMilliseconds: timeout)
    }

    @Test func theBudgetCountsFromReadyNotFromTheLaunch() {
        var rule = supervision()
        rule.launched(at: 0, background: true, awaitsDelivery: false)
        #expect(rule.due(at: 5_000 * ms) == nil, "a slow start-up eats none of the budget")
        #expect(rule.nextDeadline == 20_000 * ms, "only the launch watchdog runs before READY=1")
        rule.ready(at: 5_000 * ms)
        #expect(rule.nextDeadline == 5_300 * ms)
        #expect(rule.due(at: 5_299 * ms) == nil)
        #expect(rule.due(at: 5_300 * ms) == .reclaim("background budget of 300 ms used up, no UI"))
    }

    @Test func aLaunchForSomethingPendingIsNotReclaimedBeforeItsFirstDelivery() {
        var rule = supervision(budget: 1)
        rule.launched(at: 0, background: true, awaitsDelivery: true)
        rule.ready(at: 10 * ms)
        #expect(rule.due(at: 500 * ms) == nil, "the budget is used up, but nothing was delivered yet")
        rule.delivered()
        #expect(rule.due(at: 500 * ms) == .reclaim("background budget of 1 ms used up, no UI"))
        var silent = supervision(budget: 1)
        silent.launched(at: 0, background: true, awaitsDelivery: true)
        silent.ready(at: 10 * ms)
        #expect(silent.nextDeadline == 20_010 * ms)
        if case .reclaim? = silent.due(at: 20_010 * ms) {} else { Issue.record("a launch that delivers nothing is reclaimed at the time-out") }
    }

    /// Issue 39: a background app kept busy by the watch's messages was reclaimed at the end of a budget
    /// no message renewed, and the message then in flight failed with 7007.
    @Test func eachMessageGrantsTheBudgetAgainInTheBackgroundOnly() {
        var rule = supervision(budget: 300)
        rule.launched(at: 0, background: true, awaitsDelivery: true)
        rule.ready(at: 0)
        rule.messageReceived(at: 250 * ms)
        #expect(rule.due(at: 300 * ms) == nil, "a message at 250 ms keeps the app past the first 300 ms")
        #expect(rule.nextDeadline == 550 * ms)
        #expect(rule.due(at: 550 * ms) == .reclaim("background budget of 300 ms used up, no UI"), "a message counts as the first delivery")
        var foreground = supervision(budget: 300)
        foreground.launched(at: 0, background: false, awaitsDelivery: false)
        foreground.ready(at: 0)
        foreground.messageReceived(at: 100 * ms)
        #expect(foreground.nextDeadline == nil, "no budget runs in the foreground, and a message starts none")
    }

    @Test func aLaunchThatNeverGetsReadyIsKilledAndFails() {
        var rule = supervision(timeout: 300)
        rule.launched(at: 0, background: true, awaitsDelivery: true)
        #expect(rule.due(at: 299 * ms) == nil)
        #expect(rule.due(at: 300 * ms) == .killNeverReady("no READY=1 within 300 ms of the launch"))
        #expect(rule.exited(at: 300 * ms, endedByOS: true, neverReady: true, how: "was killed by signal 9") == "it did not report ready within 300 ms")
        #expect(rule.failuresInARow == 1)
    }

    @Test func failuresBackOffDoublingUpToAMinuteAndAGoodLaunchResetsThem() {
        var rule = supervision()
        var now: UInt64 = 0
        var waits: [UInt64] = []
        for _ in 0..<9 {
            rule.launched(at: now, background: true, awaitsDelivery: true)
            #expect(rule.exited(at: now, endedByOS: false, neverReady: false, how: "exited with status 3") == "it exited with status 3 before it was ready")
            waits.append(rule.backoffRemaining(at: now) / ms)
            now = rule.backoffUntil
        }
        #expect(waits == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000])
        // A launch that got ready and was reclaimed by the OS went well: the count starts again.
        rule.launched(at: now, background: true, awaitsDelivery: false)
        rule.ready(at: now)
        #expect(rule.exited(at: now + 300 * ms, endedByOS: true, neverReady: false, how: "was killed by signal 9") == nil)
        #expect(rule.failuresInARow == 0)
        // A crash after READY=1 is still a failure.
        rule.launched(at: now, background: false, awaitsDelivery: false)
        rule.ready(at: now)
        #expect(rule.exited(at: now, endedByOS: false, neverReady: false, how: "was killed by signal 11") == "it was killed by signal 11")
    }

    @Test func noBudgetRunsInTheForegroundOrWhileSuspended() {
        var rule = supervision()
        rule.launched(at: 0, background: false, awaitsDelivery: false)
        rule.ready(at: 10 * ms)
        #expect(rule.nextDeadline == nil)
        rule.toBackground(at: 1_000 * ms)
        #expect(rule.remainingBudget(at: 1_100 * ms) == 200 * ms)
        rule.budgetStops(foreground: false)
        #expect(rule.due(at: 9_000 * ms) == nil, "suspended")
        rule.toBackground(at: 9_000 * ms)
        #expect(rule.due(at: 9_300 * ms) == .reclaim("background budget of 300 ms used up, no UI"))
    }
}
