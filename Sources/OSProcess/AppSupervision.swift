/// How a device's OS (phone-os, watch-os) ends a launch and paces the next: the whole rule, pure (time
/// passed in, in nanoseconds of the event loop's monotonic clock). The OS (`DeviceOperatingSystem`)
/// feeds it the app's life — launched, `READY=1`, its first delivery, foreground and background, its
/// exit — and carries out what it says is due.
///
/// - **Launching has a deadline.** A launch must report `READY=1` within the launch time-out
///   (`--launch-timeout-ms`, default 20 s, as iOS's launch watchdog), or it is killed and has failed.
/// - **The background budget counts from `READY=1`**, as iOS lets an app finish launching: start-up,
///   however long it takes, never eats the time the app was launched for.
/// - **A background launch for something pending makes progress.** It is not reclaimed before the app
///   has taken its first delivery — a committed batch of transfers or a message (`X_DELIVERED=1`) — so
///   every such launch moves the watch's outbox on, however short the budget. A launch that delivers
///   nothing is reclaimed at the launch time-out after `READY=1` at the latest.
/// - **Each message renews the budget.** A background app that is handed a message (`X_MESSAGE=1`)
///   gets its whole budget again from then: an app kept busy by the watch's messages is not reclaimed
///   between two of them, with one in flight.
/// - **A failing app is backed off.** An app that exits by itself (a crash, an exit status) or never
///   reports ready has failed; the next background launch waits 1 s, doubling with each failure in a row
///   up to 60 s. A launch the OS ended itself (reclaimed, jetsammed, force-quit, stopped) after the app
///   was ready resets the count. The user's `open` is never held back.
struct AppSupervision {
    static let firstBackoff: UInt64 = 1_000_000_000
    static let longestBackoff: UInt64 = 60_000_000_000

    /// What is due now.
    enum Due: Equatable {
        /// The app never reported ready within the launch time-out.
        case killNeverReady(String)
        /// The background budget is used up (and the first delivery made, or waited for long enough).
        case reclaim(String)
    }

    struct Launch: Equatable {
        var at: UInt64
        var readyAt: UInt64?
        /// A background launch for transfers or a message: not reclaimed before its first delivery.
        var awaitsDelivery: Bool
        var delivered = false
        /// When the running background budget started (nil: in the foreground, suspended, or not ready).
        var budgetFrom: UInt64?
        var background: Bool
        /// The realistic system's runtime for this launch's background tasks (ns), when shorter than the
        /// budget: the budget it gets (`SystemTiming.taskRuntimeMilliseconds`).
        var runtime: UInt64?
    }

    let budget: UInt64
    let launchTimeout: UInt64
    private(set) var launch: Launch?
    private(set) var failuresInARow = 0
    private(set) var lastFailure: String?
    private(set) var backoffUntil: UInt64 = 0

    init(budgetMilliseconds: UInt64, launchTimeoutMilliseconds: UInt64) {
        budget = budgetMilliseconds * 1_000_000
        launchTimeout = launchTimeoutMilliseconds * 1_000_000
    }

    // MARK: - The app's life

    /// `runtimeMilliseconds`: the realistic system's runtime for the launch's background tasks, if one
    /// was drawn; the launch's budget is the shorter of it and the OS's.
    mutating func launched(at now: UInt64, background: Bool, awaitsDelivery: Bool, runtimeMilliseconds: UInt64? = nil) {
        let runtime = runtimeMilliseconds.map { $0 * 1_000_000 }.flatMap { $0 < budget ? $0 : nil }
        launch = Launch(at: now, awaitsDelivery: background && awaitsDelivery, background: background, runtime: runtime)
    }

    /// The running launch's budget (ns): the OS's, or the realistic system's shorter task runtime.
    private func budget(of launch: Launch) -> UInt64 { launch.runtime ?? budget }

    /// The running launch's budget is the realistic system's task runtime (it ends before the OS's).
    var runtimeEndsFirst: Bool { launch?.runtime != nil }

    mutating func ready(at now: UInt64) {
        guard var current = launch, current.readyAt == nil else { return }
        current.readyAt = now
        if current.background { current.budgetFrom = now }
        launch = current
    }

    mutating func delivered() { launch?.delivered = true }

    /// A message was handed to the app: a background budget that runs starts again now, as iOS gives
    /// an app woken for a message the time to handle it. (A message is a delivery, too.)
    mutating func messageReceived(at now: UInt64) {
        guard var current = launch else { return }
        current.delivered = true
        if current.budgetFrom != nil { current.budgetFrom = now }
        launch = current
    }

    /// The running launch has reported `READY=1`.
    var isReady: Bool { launch?.readyAt != nil }

    /// The running launch has made the delivery it was launched for, or awaits none.
    var firstDeliveryMade: Bool { launch.map { !$0.awaitsDelivery || $0.delivered } ?? false }

    /// The app went to the background (closed, or resumed there): its budget starts now. Before it is
    /// ready, the budget waits for `READY=1`.
    mutating func toBackground(at now: UInt64) {
        guard var current = launch else { return }
        current.background = true
        current.budgetFrom = current.readyAt == nil ? nil : now
        launch = current
    }

    /// In the foreground, or suspended: no budget runs.
    mutating func budgetStops(foreground: Bool) {
        guard var current = launch else { return }
        if foreground { current.background = false }
        current.budgetFrom = nil
        launch = current
    }

    /// The app exited; `endedByOS` when the OS killed or stopped it (a reclaim, jetsam, force-quit,
    /// the launch watchdog, shutdown). Returns the failure, if it was one.
    mutating func exited(at now: UInt64, endedByOS: Bool, neverReady: Bool, how: String) -> String? {
        let wasReady = launch?.readyAt != nil
        launch = nil
        let failure: String? =
            if neverReady { "it did not report ready within \(launchTimeout / 1_000_000) ms" } else if !endedByOS {
                "it \(how)\(wasReady ? "" : " before it was ready")"
            } else { nil }
        guard let failure else {
            if wasReady { failuresInARow = 0 }
            return nil
        }
        failuresInARow += 1
        lastFailure = failure
        let doublings = UInt64(min(failuresInARow - 1, 16))
        backoffUntil = now + min(Self.firstBackoff << doublings, Self.longestBackoff)
        return failure
    }

    // MARK: - What is due

    /// What the OS must do now, if anything.
    func due(at now: UInt64) -> Due? {
        guard let current = launch else { return nil }
        guard let readyAt = current.readyAt else {
            return now >= current.at + launchTimeout ? .killNeverReady("no READY=1 within \(launchTimeout / 1_000_000) ms of the launch") : nil
        }
        guard let budgetFrom = current.budgetFrom else { return nil }
        let budgetEnd = budgetFrom + budget(of: current)
        guard now >= budgetEnd else { return nil }
        if current.awaitsDelivery && !current.delivered {
            guard now >= readyAt + launchTimeout else { return nil }
            return .reclaim("background budget used up, and no delivery within \(launchTimeout / 1_000_000) ms of READY=1")
        }
        if let runtime = current.runtime {
            return .reclaim("its background tasks' runtime of \(runtime / 1_000_000) ms ran out (the realistic system's), no UI")
        }
        return .reclaim("background budget of \(budget / 1_000_000) ms used up, no UI")
    }

    /// When `due(at:)` may next have something to say (nil: only after another event).
    var nextDeadline: UInt64? {
        guard let current = launch else { return nil }
        guard let readyAt = current.readyAt else { return current.at + launchTimeout }
        guard let budgetFrom = current.budgetFrom else { return nil }
        let budgetEnd = budgetFrom + budget(of: current)
        if current.awaitsDelivery && !current.delivered { return max(budgetEnd, readyAt + launchTimeout) }
        return budgetEnd
    }

    /// What is left of the running background budget, if one runs.
    func remainingBudget(at now: UInt64) -> UInt64? {
        guard let current = launch, let budgetFrom = current.budgetFrom else { return nil }
        let end = budgetFrom + budget(of: current)
        return end > now ? end - now : 0
    }

    /// How long the next background launch must still wait (0: it may go).
    func backoffRemaining(at now: UInt64) -> UInt64 { backoffUntil > now ? backoffUntil - now : 0 }
}
