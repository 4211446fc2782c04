/// Runs `body` once per idle spell of an event loop: when a whole `intervalMilliseconds` has passed
/// with no descriptor ready (no peer, no client, no file event; timers alone do not count), then not
/// again until something has happened and the loop has gone quiet once more.
///
/// For work that only pays while nothing happens: a daemon gives its memory back (`DaemonRuntime`:
/// its stores' cached pages, the allocator's free space). The timer wakes an idle loop once per
/// interval to compare one counter.
package final class WhenIdle {
    package let intervalMilliseconds: UInt64
    private let loop: EventLoop
    private let body: () -> Void
    /// Whether the body may run now; when not, it is tried again at the next tick of the same spell.
    private let ready: () -> Bool
    private var wakeupsSeen: UInt64
    private var ranThisSpell = false
    private var timer: EventLoop.TimerID?

    package init(loop: EventLoop, intervalMilliseconds: UInt64, when ready: @escaping () -> Bool = { true }, _ body: @escaping () -> Void) {
        self.loop = loop
        self.intervalMilliseconds = max(1, intervalMilliseconds)
        self.body = body
        self.ready = ready
        wakeupsSeen = loop.descriptorWakeups
    }

    package func start() {
        guard timer == nil else { return }
        schedule()
    }

    package func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    private func schedule() {
        timer = loop.schedule(afterMilliseconds: intervalMilliseconds) { [weak self] in
            guard let self, self.timer != nil else { return }
            self.tick()
            self.schedule()
        }
    }

    private func tick() {
        let wakeups = loop.descriptorWakeups
        if wakeups != wakeupsSeen {
            wakeupsSeen = wakeups
            ranThisSpell = false
        } else if !ranThisSpell, ready() {
            ranThisSpell = true
            body()
        }
    }
}
