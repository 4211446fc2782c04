import AppHost
import Foundation
import HealthKit

/// What watch-os tells the app, turned into WatchKit's calls on its delegates, in watchOS's order: the
/// launch (`applicationDidFinishLaunching`, then `applicationDidBecomeActive` in the foreground, or
/// `handleActiveWorkoutRecovery()` when watch-os relaunched it for a workout session it died in), the
/// background tasks (`handle(_:)`: the launch's own once the device is ready, a refresh that falls due
/// while the app runs), and each `app open|close` (`applicationWillEnterForeground` +
/// `applicationDidBecomeActive`, `applicationWillResignActive` + `applicationDidEnterBackground`).
///
/// The calls go to the main queue, which the app runs — except in a process whose main thread only waits
/// for its device (RunWay's own watch app, composed in `watch-agent`), where they are made on the
/// device's thread, the app's own.
final class WatchKitLifecycle: @unchecked Sendable {
    static let shared = WatchKitLifecycle()

    private let lock = NSLock()
    private let host: DeviceHost?
    /// The app runs the main queue (else the calls are made on the device's thread).
    private let appRunsMainQueue: Bool
    private var foreground: Bool
    private var launchTold = false
    /// Tasks waiting for a delegate to take them.
    private var pending: [WKRefreshBackgroundTask] = []
    /// Workout configurations waiting for a delegate.
    private var pendingWorkouts: [HKWorkoutConfiguration] = []
    private var refreshUserInfo: (any NSSecureCoding & NSObjectProtocol)?

    private init() {
        host = DeviceHost.current ?? DeviceHost.fromEnvironment()
        foreground = AppLaunch.mode.map { $0 == "foreground" } ?? true
        appRunsMainQueue = host?.appRunsMainQueue ?? true
        guard let host else { return }
        host.mailbox.sync {
            foreground = host.isInForeground
            host.onApplicationStateChange.append { [unowned self] foreground in self.stateChanged(foreground: foreground) }
            host.onBackgroundRefresh.append { [unowned self] in self.refreshFellDue() }
            // Suspended, then woken for what the phone sent: watchOS hands the app a task for it, as at a
            // launch for it (issue 50).
            host.onWoken.append { [unowned self] reason in
                if reason == "transfer" { self.hand(WKWatchConnectivityRefreshBackgroundTask()) }
            }
            // The budget is about to end with tasks open: their expiration handlers run first (issue 50).
            host.onTasksExpiring.append { [unowned self] in self.tasksExpiring() }
            // HealthKit's startWatchApp, from the phone: for the delegate's `handle(_ workoutConfiguration:)`.
            host.systemWorkoutHandlers.append { [unowned self] event in
                guard let configuration = HKHealthStore.workoutConfiguration(startWatchApp: event) else { return false }
                self.workoutStarted(configuration)
                return true
            }
            host.onceReady { [unowned self] in
                switch AppLaunch.reason {
                case AppLaunch.watchConnectivityReason?: self.hand(WKWatchConnectivityRefreshBackgroundTask())
                case AppLaunch.refreshReason?: self.refreshFellDue()
                default: break
                }
            }
        }
    }

    var state: WKApplicationState { lock.withLock { foreground } ? .active : .background }

    // MARK: - Delegates

    /// The delegates set now, on the main actor.
    @MainActor private static var delegates: [LifecycleDelegate] {
        var all: [LifecycleDelegate] = []
        if let delegate = WKApplication.shared().delegate { all.append(.application(delegate)) }
        if let delegate = WKExtension.shared().delegate { all.append(.extension(delegate)) }
        return all
    }

    private enum LifecycleDelegate {
        case application(any WKApplicationDelegate)
        case `extension`(any WKExtensionDelegate)
    }

    private enum Call: Sendable {
        case didFinishLaunching, didBecomeActive, willResignActive, willEnterForeground, didEnterBackground
        case handle(Set<WKRefreshBackgroundTask>)
        case handleWorkout(HKWorkoutConfiguration)
        case handleWorkoutRecovery
    }

    /// A delegate was set: the launch is told once, then the tasks that waited for it.
    func delegateChanged() {
        let (tellLaunch, tasks, workouts, active) = lock.withLock { () -> (Bool, [WKRefreshBackgroundTask], [HKWorkoutConfiguration], Bool) in
            guard !launchTold else { return (false, [], [], foreground) }
            launchTold = true
            defer {
                pending = []
                pendingWorkouts = []
            }
            return (true, pending, pendingWorkouts, foreground)
        }
        guard tellLaunch else { return }
        var calls: [Call] = [.didFinishLaunching]
        if active { calls.append(.didBecomeActive) }
        // watch-os relaunched the app for the workout session that was running when it died.
        if AppLaunch.reason == AppLaunch.workoutRecoveryReason {
            host?.recordSystemCall("handleActiveWorkoutRecovery", kind: "watchKit")
            calls.append(.handleWorkoutRecovery)
        }
        if !tasks.isEmpty { calls.append(.handle(Set(tasks))) }
        calls += workouts.map(Call.handleWorkout)
        perform(calls)
    }

    private func perform(_ calls: [Call]) {
        let calling: @MainActor @Sendable () -> Void = {
            let delegates = Self.delegates
            for call in calls {
                for delegate in delegates { Self.make(call, on: delegate) }
                // Nobody to take the tasks (the delegates went): the system's default, completed.
                if delegates.isEmpty, case .handle(let tasks) = call { for task in tasks { task.setTaskCompletedWithSnapshot(false) } }
            }
        }
        guard !appRunsMainQueue, let host else {
            DispatchQueue.main.async { MainActor.assumeIsolated(calling) }
            return
        }
        // The app's code runs on the device's thread, and nothing runs the main queue: the calls are made
        // there, as the app's own thread (its main actor in all but name).
        let onDeviceThread = unsafeBitCast(calling, to: (@Sendable () -> Void).self)
        if host.mailbox.isOnLoopThread { onDeviceThread() } else { host.mailbox.post(onDeviceThread) }
    }

    @MainActor private static func make(_ call: Call, on delegate: LifecycleDelegate) {
        switch (call, delegate) {
        case (.didFinishLaunching, .application(let d)): d.applicationDidFinishLaunching()
        case (.didFinishLaunching, .extension(let d)): d.applicationDidFinishLaunching()
        case (.didBecomeActive, .application(let d)): d.applicationDidBecomeActive()
        case (.didBecomeActive, .extension(let d)): d.applicationDidBecomeActive()
        case (.willResignActive, .application(let d)): d.applicationWillResignActive()
        case (.willResignActive, .extension(let d)): d.applicationWillResignActive()
        case (.willEnterForeground, .application(let d)): d.applicationWillEnterForeground()
        case (.willEnterForeground, .extension(let d)): d.applicationWillEnterForeground()
        case (.didEnterBackground, .application(let d)): d.applicationDidEnterBackground()
        case (.didEnterBackground, .extension(let d)): d.applicationDidEnterBackground()
        case (.handle(let tasks), .application(let d)): d.handle(tasks)
        case (.handle(let tasks), .extension(let d)): d.handle(tasks)
        case (.handleWorkout(let configuration), .application(let d)): d.handle(configuration)
        case (.handleWorkout(let configuration), .extension(let d)): d.handle(configuration)
        case (.handleWorkoutRecovery, .application(let d)): d.handleActiveWorkoutRecovery()
        case (.handleWorkoutRecovery, .extension(let d)): d.handleActiveWorkoutRecovery()
        }
    }

    // MARK: - What watch-os says

    private func stateChanged(foreground now: Bool) {
        let told = lock.withLock { () -> Bool in
            foreground = now
            return launchTold
        }
        guard told else { return }
        perform(now ? [.willEnterForeground, .didBecomeActive] : [.willResignActive, .didEnterBackground])
    }

    /// The tasks handed and not completed when last looked at (their expiration handlers may be due).
    private var handed: [WKRefreshBackgroundTask] = []

    /// watch-os is about to end the launch, its budget used up, with tasks open: each open task's
    /// `expirationHandler` runs (on the main queue, as the delegate's calls), and the app may complete it.
    private func tasksExpiring() {
        let open = lock.withLock { () -> [WKRefreshBackgroundTask] in
            handed.removeAll { $0.isCompleted }
            return handed
        }
        guard !open.isEmpty else { return }
        host?.recordSystemCall("backgroundTasksExpiring", kind: "watchKit")
        let run: @Sendable () -> Void = { for task in open { task.expire() } }
        guard !appRunsMainQueue, let host else { return DispatchQueue.main.async(execute: run) }
        if host.mailbox.isOnLoopThread { run() } else { host.mailbox.post(run) }
    }

    /// Hands `task` to the delegates (watch-os counts it open until it is completed), or keeps it until
    /// one is set.
    private func hand(_ task: WKRefreshBackgroundTask) {
        AppLaunch.reportTaskHanded(task is WKApplicationRefreshBackgroundTask ? "applicationRefresh" : "watchConnectivity")
        lock.withLock {
            handed.removeAll { $0.isCompleted }
            handed.append(task)
        }
        let now = lock.withLock { () -> Bool in
            guard launchTold else {
                pending.append(task)
                return false
            }
            return true
        }
        if now { perform([.handle([task])]) }
    }

    /// The phone's workout configuration, for the delegates once the launch was told.
    private func workoutStarted(_ configuration: HKWorkoutConfiguration) {
        host?.recordSystemCall("handleWorkoutConfiguration", kind: "watchKit")
        let now = lock.withLock { () -> Bool in
            guard launchTold else {
                pendingWorkouts.append(configuration)
                return false
            }
            return true
        }
        if now { perform([.handleWorkout(configuration)]) }
    }

    private func refreshFellDue() {
        let userInfo = lock.withLock { () -> (any NSSecureCoding & NSObjectProtocol)? in
            defer { refreshUserInfo = nil }
            return refreshUserInfo
        }
        hand(WKApplicationRefreshBackgroundTask(userInfo: userInfo))
    }

    /// Tells watch-os when the app wants its refresh; nil, or the error for the completion handler.
    func scheduleRefresh(at date: Date, userInfo: (any NSSecureCoding & NSObjectProtocol)?) -> (any Error)? {
        guard host != nil, AppLaunch.isUnderOS else {
            return NSError(domain: "WKErrorDomain", code: 1, userInfo: [NSLocalizedDescriptionKey: "no watch-os runs this watch: nothing schedules a refresh"])
        }
        lock.withLock { refreshUserInfo = userInfo }
        AppLaunch.reportRefreshScheduled(at: date.timeIntervalSince1970)
        return nil
    }
}
