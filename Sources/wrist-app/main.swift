// wrist-app: a watch app written as one is for watchOS — an extension delegate that keeps its
// WatchConnectivity task until the content is in, a session manager that saves what the phone sends and
// reloads the complication, a background refresh it schedules — on WatchKit, WatchConnectivity, ClockKit
// and WidgetKit only. The fixture of the tests of watch-os's background tasks, refreshes and reloads.
//
// Each WatchKit call it hears is noted in Documents/lifecycle.log (a `launch` line first); in
// Documents/content.log, per launch, `activated pending=BOOL` (hasContentPending at activation), `context`
// when a context arrives and `completed watchConnectivity` when it completes its tasks; each userInfo's
// `id` in Documents/received.log, before its callback returns; each refresh in Documents/refresh.log; each
// workout the phone starts (`handle(_ workoutConfiguration:)`) as `handle workout ACTIVITY LOCATION`.
// --start-workout: the app starts a running workout itself when it becomes active (a watch-led run).
// --mirror=N: for that workout it runs an `HKWorkoutSession` with its builder, as a workout app does,
// mirrors it to the phone and sends it `w-1`…`w-N` (one every 0.1 s) with `sendToRemoteWorkoutSession`;
// it notes in Documents/mirror.log each completion (`sent w-I ok|failed CODE`), each datum the phone
// sends (`data TEXT`) and each state (`state RAW`); when the session ends (the phone ends its mirror) it
// finishes the workout — one save — and notes `saved UUID`. It also tries to send 70,000 bytes at once
// (`oversize failed 13`: more than a mirrored session carries). --pause-workout: the workout is paused
// once started. Relaunched by watch-os after it died during the workout, it notes
// `handleActiveWorkoutRecovery` and takes the session back (`recovered STATE` in mirror.log, or
// `recovered none`).
// --two-workouts: on becoming active it starts a workout session, then a second one, as a second app
// would: Documents/workouts.log notes each session's states (`A state RAW`), failures (`A failed CODE`) and
// events (`B event RAW`); it pauses and resumes the second, then ends it. --complete-on-expiry: each
// WatchConnectivity task it keeps gets an expirationHandler that notes `expiring` in Documents/expiry.log
// and completes the task.
// Switches: --never-complete (keeps every task open: the OS must expire them), --schedule-refresh S (on
// becoming active, a refresh S seconds from now), --application-delegate (WKApplicationDelegate rather
// than WKExtensionDelegate).
import ClockKit
import HealthKit
import WatchConnectivity
import WatchKit
import WidgetKit

let arguments = Array(CommandLine.arguments.dropFirst())
let neverComplete = arguments.contains("--never-complete")
let mirrorCount = arguments.first { $0.hasPrefix("--mirror=") }.flatMap { Int($0.dropFirst("--mirror=".count)) }
let refreshAfter = arguments.firstIndex(of: "--schedule-refresh").flatMap { $0 + 1 < arguments.count ? Double(arguments[$0 + 1]) : nil }

/// Appends a line to a file in Documents and makes it durable.
func note(_ line: String, in name: String) {
    let directory = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let fd = open(directory.appendingPathComponent(name).path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard fd >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
    close(fd)
}

/// Saves what the phone sends and asks for the complication to be reloaded with it.
final class SessionManager: NSObject, WCSessionDelegate, @unchecked Sendable {
    /// Notes what the session says it has to deliver when it is activated (`activated pending=BOOL`).
    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: (any Error)?) {
        note("activated pending=\(session.hasContentPending)", in: "content.log")
    }

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        guard let id = userInfo["id"] as? String else { return }
        note(id, in: "received.log")
        // New complication data: the face shows it once its timeline is reloaded.
        let server = CLKComplicationServer.sharedInstance()
        for complication in server.activeComplications ?? [] { server.reloadTimeline(for: complication) }
        WidgetCenter.shared.reloadAllTimelines()
    }

    func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        note("context", in: "received.log")
        note("context", in: "content.log")
    }
}

/// A workout the phone started, run and mirrored as a watchOS workout app does.
final class MirroredWorkout: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
    let store = HKHealthStore()
    let count: Int
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?

    init(count: Int) { self.count = count }

    func start(_ configuration: HKWorkoutConfiguration) {
        guard session == nil, let session = try? HKWorkoutSession(healthStore: store, configuration: configuration) else { return }
        self.session = session
        session.delegate = self
        let builder = session.associatedWorkoutBuilder()
        builder.dataSource = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
        self.builder = builder
        session.startActivity(with: Date())
        builder.beginCollection(withStart: Date()) { _, _ in }
        if arguments.contains("--pause-workout") { session.pause() }
        session.startMirroringToCompanionDevice { success, error in
            note(success ? "mirroring ok" : "mirroring failed \((error as? HKError)?.code.rawValue ?? -1)", in: "mirror.log")
        }
        // More than a mirrored session carries: refused at once, nothing sent.
        session.sendToRemoteWorkoutSession(data: Data(count: 70_000)) { success, error in
            note("oversize " + (success ? "ok" : "failed \((error as? HKError)?.code.rawValue ?? -1)"), in: "mirror.log")
        }
        send(1)
    }

    /// watchOS's workout recovery: the session the app died in, back from HealthKit, in its state.
    func recover() {
        store.recoverActiveWorkoutSession { session, error in
            guard let session else {
                note("recovered none\(error.map { " \($0)" } ?? "")", in: "mirror.log")
                return
            }
            self.session = session
            session.delegate = self
            self.builder = session.associatedWorkoutBuilder()
            note("recovered \(session.state.rawValue)", in: "mirror.log")
        }
    }

    func send(_ index: Int) {
        guard index <= count, let session else { return }
        let text = "w-\(index)"
        session.sendToRemoteWorkoutSession(data: Data(text.utf8)) { success, error in
            note("sent \(text) " + (success ? "ok" : "failed \((error as? HKError)?.code.rawValue ?? -1)"), in: "mirror.log")
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.1) { self.send(index + 1) }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date) {
        note("state \(toState.rawValue)", in: "mirror.log")
        guard toState == .ended, let builder else { return }
        builder.endCollection(withEnd: date) { _, _ in
            builder.finishWorkout { workout, error in
                note(workout.map { "saved \($0.uuid.uuidString)" } ?? "save failed \(String(describing: error))", in: "mirror.log")
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) { note("failed", in: "mirror.log") }

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        for datum in data { note("data " + String(decoding: datum, as: UTF8.self), in: "mirror.log") }
    }
}

let workout = mirrorCount.map(MirroredWorkout.init)

/// Two workout sessions, the second started while the first runs (`--two-workouts`).
final class TwoWorkouts: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
    let store = HKHealthStore()
    var first: HKWorkoutSession?
    var second: HKWorkoutSession?

    func run() {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        guard let a = try? HKWorkoutSession(healthStore: store, configuration: configuration),
            let b = try? HKWorkoutSession(healthStore: store, configuration: configuration)
        else { return note("sessions failed", in: "workouts.log") }
        first = a
        second = b
        a.delegate = self
        b.delegate = self
        a.startActivity(with: nil)
        b.startActivity(with: nil)
        b.pause()
        b.resume()
        b.end()
    }

    func name(_ session: HKWorkoutSession) -> String { session === first ? "A" : "B" }

    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date) {
        note("\(name(workoutSession)) state \(toState.rawValue)", in: "workouts.log")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
        note("\(name(workoutSession)) failed \((error as? HKError)?.code.rawValue ?? -1)", in: "workouts.log")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {
        note("\(name(workoutSession)) event \(event.type.rawValue)", in: "workouts.log")
    }
}
var twoWorkouts: TwoWorkouts?

final class ExtensionDelegate: NSObject, WKExtensionDelegate, WKApplicationDelegate {
    /// WatchConnectivity tasks kept until the session has no content pending.
    var connectivityTasks: [WKWatchConnectivityRefreshBackgroundTask] = []

    func applicationDidFinishLaunching() {
        note("didFinishLaunching \(WKInterfaceDevice.current().systemName)", in: "lifecycle.log")
    }

    func applicationDidBecomeActive() {
        note("didBecomeActive", in: "lifecycle.log")
        if arguments.contains("--two-workouts"), twoWorkouts == nil {
            twoWorkouts = TwoWorkouts()
            twoWorkouts?.run()
        }
        // --start-workout: the user starts the workout on the watch (watch-led), mirrored to the phone.
        if arguments.contains("--start-workout") {
            let configuration = HKWorkoutConfiguration()
            configuration.activityType = .running
            configuration.locationType = .outdoor
            workout?.start(configuration)
        }
        if let refreshAfter {
            WKExtension.shared().scheduleBackgroundRefresh(withPreferredDate: Date(timeIntervalSinceNow: refreshAfter), userInfo: nil) { error in
                note("scheduled \(error == nil ? "ok" : "failed")", in: "lifecycle.log")
            }
        }
    }

    func applicationWillResignActive() { note("willResignActive", in: "lifecycle.log") }
    func applicationWillEnterForeground() { note("willEnterForeground", in: "lifecycle.log") }
    func applicationDidEnterBackground() { note("didEnterBackground", in: "lifecycle.log") }

    func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks {
            switch task {
            case let connectivityTask as WKWatchConnectivityRefreshBackgroundTask:
                note("handle watchConnectivity", in: "lifecycle.log")
                if arguments.contains("--complete-on-expiry") {
                    connectivityTask.expirationHandler = {
                        note("expiring", in: "expiry.log")
                        connectivityTask.setTaskCompletedWithSnapshot(false)
                    }
                }
                connectivityTasks.append(connectivityTask)
                completeWhenContentIsIn()
            case let refreshTask as WKApplicationRefreshBackgroundTask:
                note("handle refresh", in: "lifecycle.log")
                note("refresh", in: "refresh.log")
                WKInterfaceDevice.current().play(.notification)
                if !neverComplete { refreshTask.setTaskCompletedWithSnapshot(false) }
            default:
                task.setTaskCompletedWithSnapshot(false)
            }
        }
    }

    func handle(_ workoutConfiguration: HKWorkoutConfiguration) {
        note("handle workout \(workoutConfiguration.activityType.rawValue) \(workoutConfiguration.locationType.rawValue)", in: "lifecycle.log")
        workout?.start(workoutConfiguration)
    }

    /// Relaunched by watch-os after the app died during its workout session.
    func handleActiveWorkoutRecovery() {
        note("handleActiveWorkoutRecovery", in: "lifecycle.log")
        workout?.recover()
    }

    /// Apple's advice: keep the task until `hasContentPending` is false, then complete it.
    func completeWhenContentIsIn() {
        guard !neverComplete else { return }
        guard WCSession.default.activationState == .activated, !WCSession.default.hasContentPending else {
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.05) { self.completeWhenContentIsIn() }
            return
        }
        for task in connectivityTasks { task.setTaskCompletedWithSnapshot(false) }
        if !connectivityTasks.isEmpty { note("completed watchConnectivity", in: "content.log") }
        connectivityTasks.removeAll()
    }
}

note("launch \(getpid())", in: "lifecycle.log")
note("launch \(getpid())", in: "content.log")
let delegate = ExtensionDelegate()
if arguments.contains("--application-delegate") { WKApplication.shared().delegate = delegate } else { WKExtension.shared().delegate = delegate }
let manager = SessionManager()
WCSession.default.delegate = manager
WCSession.default.activate()
RunLoop.main.run()
