// workout-phone: an iPhone workout app in the shape of Apple's mirroring sample ("Building a multidevice
// workout app"; read for its design, written here anew): a WorkoutManager that starts the workout on the
// watch (`startWatchApp(toHandle:)`), takes the watch's mirrored session
// (`workoutSessionMirroringStartHandler`), shows the metrics the watch sends and ends the workout from
// the phone (`stopActivity(with:)`) — on HealthKit and UIKit only, with no WCSession anywhere: issue 49's
// "an app is an app, session or not". SwiftUI's views are left out; what they showed is noted instead.
//
// Notes, each made durable, in Documents/workout.log: `launched BUNDLE-ID VERSION NAME MODE` (Bundle.main,
// read as the sample's logger reads it, force-unwrapped), `date T STATE` with `Date().timeIntervalSince1970`
// at launch and at each activation and each move to the background (the app's clock, which `runway clock`
// moves), `start ok|failed CODE` for each try at starting the watch's workout (`--start`: once active,
// again every 0.5 s while the watch is not reachable yet, at most 60 times), `mirrored TYPE STATE`, `state
// RAW`, `data NAME` for each metric from the watch (noted before the delegate call returns), and with `--end-after N` (default 10) the
// phone's End (`end`) when metric m-N comes; `disconnected` when mirroring ends.
import Foundation
import HealthKit
import UIKit
import os

let arguments = Array(CommandLine.arguments.dropFirst())
let endAfter = arguments.first { $0.hasPrefix("--end-after=") }.flatMap { Int($0.dropFirst("--end-after=".count)) } ?? 10

/// Appends a line to Documents/workout.log and makes it durable.
func note(_ line: String) {
    let directory = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let fd = open(directory.appendingPathComponent("workout.log").path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard fd >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
    close(fd)
}

/// What the watch sends as its workout runs.
struct WorkoutMetrics: Codable {
    var name: String
    var elapsed: TimeInterval
}

@MainActor final class WorkoutManager: NSObject {
    static let shared = WorkoutManager()
    static let logger = Logger(subsystem: Bundle.main.bundleIdentifier!, category: "WorkoutManager")

    let healthStore = HKHealthStore()
    var session: HKWorkoutSession?
    private var started = false

    /// Set at launch: a mirrored session the watch starts comes here, even while the app was not running.
    func retrieveRemoteSession() {
        healthStore.workoutSessionMirroringStartHandler = { mirroredSession in
            note("mirrored \(mirroredSession.type.rawValue) \(mirroredSession.state.rawValue)")
            Task { @MainActor in
                self.session = mirroredSession
                mirroredSession.delegate = self
            }
        }
    }

    /// The Start button: the watch app starts a running workout.
    func startWatchWorkout(attempt: Int = 1) {
        guard !started else { return }
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        configuration.locationType = .outdoor
        Task { @MainActor in
            do {
                try await healthStore.startWatchApp(toHandle: configuration)
                started = true
                note("start ok")
            } catch {
                Self.logger.error("startWatchApp: \(error)")
                note("start failed \((error as? HKError)?.code.rawValue ?? -1)")
                guard attempt < 60 else { return }
                try? await Task.sleep(nanoseconds: 500_000_000)
                startWatchWorkout(attempt: attempt + 1)
            }
        }
    }

    func received(_ metrics: WorkoutMetrics) {
        // The End button, once the run is long enough.
        if metrics.name == "m-\(endAfter)" {
            note("end")
            session?.stopActivity(with: Date())
        }
    }
}

extension WorkoutManager: HKWorkoutSessionDelegate {
    nonisolated func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date
    ) {
        note("state \(toState.rawValue)")
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
        note("failed \(error)")
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        let decoded = data.compactMap { try? JSONDecoder().decode(WorkoutMetrics.self, from: $0) }
        // Shown before the call returns: what the watch sent is the phone's once HealthKit has handed it.
        for metrics in decoded { note("data \(metrics.name)") }
        Task { @MainActor in for metrics in decoded { self.received(metrics) } }
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {
        note("disconnected")
    }
}

/// The app's clock and state, as a screen would show them.
@MainActor func noteDate(_ state: String) {
    note("date \(Date().timeIntervalSince1970) \(state)")
}

let info = Bundle.main.infoDictionary
note(
    "launched \(Bundle.main.bundleIdentifier!) \(info?["CFBundleShortVersionString"] as? String ?? "-") \(info?["CFBundleName"] as? String ?? "-") "
        + (UIApplication.shared.applicationState == .active ? "active" : "background"))
noteDate("launch")
WorkoutManager.shared.retrieveRemoteSession()
@MainActor func becameActive() {
    noteDate("active")
    if arguments.contains("--start") { WorkoutManager.shared.startWatchWorkout() }
}
let center = NotificationCenter.default
_ = center.addObserver(forName: UIApplication.didBecomeActiveNotification, object: nil, queue: .main) { _ in
    MainActor.assumeIsolated { becameActive() }
}
if UIApplication.shared.applicationState == .active { becameActive() }
_ = center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main) { _ in
    MainActor.assumeIsolated { noteDate("background") }
}
RunLoop.main.run()
