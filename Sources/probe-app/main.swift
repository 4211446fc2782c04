// probe-app: the smallest app a developer could bring — written only against the public
// WatchConnectivity module, the way an iOS app's session manager is — and the fixture of the tests that
// put an app that is not RunWay's on the simulated devices (`phone-os --app`, `watch-agent --app`).
//
// It saves each received userInfo's `id` before its callback returns (Documents/received.log, one line
// each, fsync'd), so a kill after the acknowledgement loses nothing. Its switches make it misbehave the
// ways an OS must survive: --crash-at-launch, --exit-at-once, --never-activate (a launched app all the
// same: issue 49), --activate-after-ms=MS (activates its session that long after launch); --save-in-memory keeps
// what it receives in memory only (the lossy path a test shows its checker catching); --save-on-screen
// saves only while on screen, holding the rest until the app becomes active (RunWay 1.3's bug). A message
// is noted in Documents/messages.log and answered at once (`repliedBy: probe`, its pid); each context in
// Documents/contexts.log (`key=value,…`); each
// sessionWatchStateDidChange in Documents/watchstate.log (the state it tells of), each
// sessionReachabilityDidChange in Documents/reachability.log. --poll-activation-state reads
// activationState every millisecond from another thread until the delegate hears activation, and notes in
// Documents/activationstate.log how often it read .activated before that (`polled reads=N early=E`) and
// what the delegate heard and read (`heard RAW read RAW`). --send N sends N
// userInfo transfers (`probe-1`…`probe-N`) once, after its first activation. Every launch first notes
// itself in Documents/launches.log, before it touches its session, as an app's start-up code does.
// --start-watch-app starts the watch app for a running workout (HealthKit's `startWatchApp(with:)`) once
// activated, again every 0.1 s until the system accepts it (at most 100 times), each answer a line of
// Documents/workout.log: `ok`, or `failed CODE`. --mirror=N takes the watch's mirrored workout session
// (`workoutSessionMirroringStartHandler`): it notes in Documents/mirror.log the mirror (`mirrored TYPE
// STATE`), each state it follows (`state RAW`), each datum (`data TEXT`) — answering `w-I` with `p-I`
// (`sendToRemoteWorkoutSession`, `sent p-I ok|failed CODE`) — and after `w-N` ends the workout from the
// phone (the mirror's `end()`); `disconnected` when mirroring ends. --mirror-tick=MS: besides, while
// the mirror runs, sends `t-1`, `t-2`… every MS milliseconds (`tick t-I` when sent, `sent t-I ok` once the
// watch has it). Its notification centre's delegate notes each notification presented in the foreground
// (`willPresent ID STATE`) and each the user opened (`didReceive ID ACTION STATE`, STATE the app's
// `applicationState` then) in Documents/notifications.log. --numbers: what it sends carries a run's numbers
// as `NSNumber`s (`distance` 1000 × I, an integer, `laps` I, `indoor` for even I, `pace` 5.25), and what it
// receives with a `distance` is read with Apple's casts, as a run tracker reads it (`guard let distance =
// userInfo["distance"] as? Double …`): a line `kept ID DISTANCE LAPS INDOOR PACE` in Documents/numbers.log,
// or `dropped ID` when a cast fails.
// --bare-delegate sets a delegate that implements only what Apple requires of every
// delegate, `session(_:activationDidCompleteWith:error:)`: no message, userInfo, context or file method,
// and neither `sessionDidBecomeInactive` nor `sessionDidDeactivate` — the delegate of the field's most
// common WatchConnectivity bug.
import Foundation
import HealthKit
import UIKit
import UserNotifications
import WatchConnectivity

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--crash-at-launch") { abort() }
if arguments.contains("--exit-at-once") { exit(0) }

/// Appends a line to a file in the app's Documents and makes it durable.
func appendDurably(_ line: String, to name: String) {
    let directory = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard fd >= 0 else { fatalError("cannot open \(path)") }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
    close(fd)
}

final class ProbeSessionManager: NSObject, WCSessionDelegate, @unchecked Sendable {
    let sendCount: Int
    let inMemoryOnly: Bool
    let saveOnScreen: Bool
    /// What was received and not saved: the delegate queue adds, the main queue saves.
    var held: [String] = []
    let lock = NSLock()

    init(sendCount: Int, inMemoryOnly: Bool, saveOnScreen: Bool) {
        self.sendCount = sendCount
        self.inMemoryOnly = inMemoryOnly
        self.saveOnScreen = saveOnScreen
    }

    /// The screen appeared: what was held is saved now.
    func screenAppeared() {
        lock.withLock {
            for id in held { appendDurably(id, to: "received.log") }
            held.removeAll()
        }
    }

    /// Whether the delegate has heard activation complete (`--poll-activation-state` reads it).
    var activationHeard = false

    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: (any Error)?) {
        lock.withLock { activationHeard = true }
        if arguments.contains("--poll-activation-state") {
            appendDurably("heard \(activationState.rawValue) read \(session.activationState.rawValue)", to: "activationstate.log")
        }
        if activationState == .activated, arguments.contains("--start-watch-app") { startWatchApp(attempt: 1) }
        guard activationState == .activated, sendCount > 0 else { return }
        let marker = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent("sent.done").path
        guard !FileManager.default.fileExists(atPath: marker) else { return }
        for index in 1...sendCount {
            var userInfo: [String: Any] = ["id": "probe-\(index)", "kind": "probe"]
            if arguments.contains("--numbers") {
                // Meters counted as an integer, read on the other side with `as? Double`, as on iOS.
                userInfo["distance"] = NSNumber(value: index * 1000)
                userInfo["laps"] = NSNumber(value: index)
                userInfo["indoor"] = NSNumber(value: index % 2 == 0)
                userInfo["pace"] = 5.25
            }
            session.transferUserInfo(userInfo)
        }
        appendDurably("\(sendCount)", to: "sent.done")
    }

    func session(_ session: WCSession, didReceiveUserInfo userInfo: [String: Any]) {
        guard let id = userInfo["id"] as? String else { return }
        if userInfo["distance"] != nil { readRun(id, userInfo) }
        // UIApplication is the main actor's (as in the SDK): asked there, from the delegate's queue.
        let offScreen = saveOnScreen && DispatchQueue.main.sync { MainActor.assumeIsolated { UIApplication.shared.applicationState != .active } }
        lock.withLock {
            if inMemoryOnly || offScreen { return held.append(id) }
            appendDurably(id, to: "received.log")
        }
    }

    /// A run's numbers, read as a run tracker reads them: what a cast cannot read, the run is dropped.
    func readRun(_ id: String, _ userInfo: [String: Any]) {
        guard let distance = userInfo["distance"] as? Double, let laps = userInfo["laps"] as? Int, let indoor = userInfo["indoor"] as? Bool,
            let pace = userInfo["pace"] as? Double
        else {
            appendDurably("dropped \(id)", to: "numbers.log")
            return
        }
        appendDurably("kept \(id) \(distance) \(laps) \(indoor) \(pace)", to: "numbers.log")
    }

    let healthStore = HKHealthStore()

    func startWatchApp(attempt: Int) {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        healthStore.startWatchApp(with: configuration) { success, error in
            appendDurably(success ? "ok" : "failed \((error as? HKError)?.code.rawValue ?? -1)", to: "workout.log")
            guard !success, attempt < 100 else { return }
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.1) { self.startWatchApp(attempt: attempt + 1) }
        }
    }

    /// A message: noted in Documents/messages.log (`reply KEYS` or `noreply KEYS`), and answered at once.
    func session(_ session: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
        appendDurably("reply " + message.keys.sorted().joined(separator: ","), to: "messages.log")
        replyHandler(["repliedBy": "probe", "pid": Int(getpid())])
    }

    func session(_ session: WCSession, didReceiveMessage message: [String: Any]) {
        appendDurably("noreply " + message.keys.sorted().joined(separator: ","), to: "messages.log")
    }

    /// Each application context received: its keys and values, sorted, in Documents/contexts.log.
    func session(_ session: WCSession, didReceiveApplicationContext applicationContext: [String: Any]) {
        appendDurably(applicationContext.keys.sorted().map { "\($0)=\(applicationContext[$0] ?? "")" }.joined(separator: ","), to: "contexts.log")
    }

    /// Each watch-state call, with the state it tells of: Documents/watchstate.log.
    func sessionWatchStateDidChange(_ session: WCSession) {
        appendDurably(
            "paired=\(session.isPaired) installed=\(session.isWatchAppInstalled) complication=\(session.isComplicationEnabled)",
            to: "watchstate.log")
    }

    /// Each reachability call: Documents/reachability.log.
    func sessionReachabilityDidChange(_ session: WCSession) { appendDurably("reachable=\(session.isReachable)", to: "reachability.log") }

    func sessionDidBecomeInactive(_ session: WCSession) {}
    func sessionDidDeactivate(_ session: WCSession) { session.activate() }
}

/// What the user sees and opens: written as apps write a notification delegate, one method in each form.
final class NotificationLogger: NSObject, UNUserNotificationCenterDelegate {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification,
        withCompletionHandler completionHandler: @escaping @Sendable (UNNotificationPresentationOptions) -> Void
    ) {
        let id = notification.request.identifier
        DispatchQueue.main.async {
            let state = MainActor.assumeIsolated { UIApplication.shared.applicationState }
            appendDurably("willPresent \(id) \(state == .active ? "active" : "background")", to: "notifications.log")
            completionHandler([.banner, .sound, .list])
        }
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        let state = await MainActor.run { UIApplication.shared.applicationState }
        let action = response.actionIdentifier == UNNotificationDefaultActionIdentifier ? "default" : response.actionIdentifier
        appendDurably(
            "didReceive \(response.notification.request.identifier) \(action) \(state == .active ? "active" : "background")", to: "notifications.log")
    }
}

/// The phone's side of the watch's mirrored workout.
final class MirrorManager: NSObject, HKWorkoutSessionDelegate, @unchecked Sendable {
    let count: Int
    let tickMilliseconds: Int?
    var session: HKWorkoutSession?
    var ended = false

    init(count: Int, tickMilliseconds: Int?) {
        self.count = count
        self.tickMilliseconds = tickMilliseconds
    }

    func take(_ mirrored: HKWorkoutSession) {
        appendDurably("mirrored \(mirrored.type.rawValue) \(mirrored.state.rawValue)", to: "mirror.log")
        session = mirrored
        mirrored.delegate = self
        if tickMilliseconds != nil { DispatchQueue.main.async { self.tick(1) } }
    }

    func tick(_ index: Int) {
        guard let tickMilliseconds, let session, !ended else { return }
        let text = "t-\(index)"
        appendDurably("tick \(text)", to: "mirror.log")
        session.sendToRemoteWorkoutSession(data: Data(text.utf8)) { success, error in
            appendDurably("sent \(text) " + (success ? "ok" : "failed \((error as? HKError)?.code.rawValue ?? -1)"), to: "mirror.log")
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(tickMilliseconds)) { self.tick(index + 1) }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date) {
        appendDurably("state \(toState.rawValue)", to: "mirror.log")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) { appendDurably("failed", to: "mirror.log") }

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        for datum in data {
            let text = String(decoding: datum, as: UTF8.self)
            appendDurably("data \(text)", to: "mirror.log")
            guard text.hasPrefix("w-") else { continue }
            let answer = "p-" + text.dropFirst(2)
            workoutSession.sendToRemoteWorkoutSession(data: Data(answer.utf8)) { success, error in
                appendDurably("sent \(answer) " + (success ? "ok" : "failed \((error as? HKError)?.code.rawValue ?? -1)"), to: "mirror.log")
            }
            if text == "w-\(count)" {
                ended = true
                workoutSession.end()
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {
        appendDurably("disconnected", to: "mirror.log")
    }
}

// Before the session: where Foundation puts Documents must already be the app's container.
appendDurably("\(getpid()) \(ProcessInfo.processInfo.environment["RUNWAY_LAUNCH_MODE"] ?? "by hand")", to: "launches.log")

let sendIndex = arguments.firstIndex(of: "--send")
let manager = ProbeSessionManager(
    sendCount: sendIndex.flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 0, inMemoryOnly: arguments.contains("--save-in-memory"),
    saveOnScreen: arguments.contains("--save-on-screen"))
_ = NotificationCenter.default.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { _ in
    MainActor.assumeIsolated { manager.screenAppeared() }
}
let tick = arguments.first { $0.hasPrefix("--mirror-tick=") }.flatMap { Int($0.dropFirst("--mirror-tick=".count)) }
let mirror = arguments.first { $0.hasPrefix("--mirror=") }.flatMap { Int($0.dropFirst("--mirror=".count)) }.map {
    MirrorManager(count: $0, tickMilliseconds: tick)
}
if let mirror {
    // Set at launch, before anything can arrive: HealthKit's advice.
    manager.healthStore.workoutSessionMirroringStartHandler = { session in mirror.take(session) }
}
/// Only the one method every `WCSessionDelegate` must implement: it notes each activation.
final class BareDelegate: NSObject, WCSessionDelegate {
    func session(_ session: WCSession, activationDidCompleteWith activationState: WCSessionActivationState, error: (any Error)?) {
        appendDurably("activated \(activationState.rawValue)", to: "activations.log")
    }
}
let bare = BareDelegate()

let activateAfter = arguments.first { $0.hasPrefix("--activate-after-ms=") }.flatMap { Int($0.dropFirst("--activate-after-ms=".count)) }
// Before the app finishes launching, as Apple asks: an open that launched it is handed here.
let notificationLogger = NotificationLogger()
UNUserNotificationCenter.current().delegate = notificationLogger
if WCSession.isSupported() {
    WCSession.default.delegate = arguments.contains("--bare-delegate") ? bare : manager
    if let activateAfter {
        // Later, as an app that activates its session from a screen it shows after launch.
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(activateAfter)) { WCSession.default.activate() }
    } else if !arguments.contains("--never-activate") {
        WCSession.default.activate()
    }
    if arguments.contains("--poll-activation-state") {
        // Reads activationState every millisecond from another thread until the delegate has heard activation:
        // `early` if it ever read .activated before that (the delegate is told on the device's thread).
        Thread.detachNewThread {
            var reads = 0
            var early = 0
            while !manager.lock.withLock({ manager.activationHeard }) {
                let state = WCSession.default.activationState
                let heard = manager.lock.withLock { manager.activationHeard }
                if state == .activated && !heard { early += 1 }
                reads += 1
                usleep(1000)
            }
            appendDurably("polled reads=\(reads) early=\(early)", to: "activationstate.log")
        }
    }
}
RunLoop.main.run()
