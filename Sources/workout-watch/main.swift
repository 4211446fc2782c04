// workout-watch: a watch workout app in the shape of Apple's mirroring sample ("Building a multidevice
// workout app"; read for its design, written here anew): a WKApplicationDelegate hands the workout the
// iPhone starts (`handle(_ workoutConfiguration:)`) to a WorkoutManager, which runs an HKWorkoutSession
// with its live builder, mirrors it to the iPhone (`startMirroringToCompanionDevice`) and sends it the
// workout's metrics; the phone ends it, and the builder saves it. HealthKit, WatchKit and ClockKit only:
// no WCSession anywhere — what issue 49 asks of the system (an app needs no session to launch, HealthKit
// and ClockKit work without one). SwiftUI's views are left out; what they showed is noted instead.
//
// Notes, each made durable, in Documents/workout.log: `launched BUNDLE-ID VERSION` (Bundle.main, read as
// the sample's logger reads it, force-unwrapped), `complications N` at launch and at each activation
// (ClockKit's activeComplications on the face), `started ACTIVITY LOCATION`, `mirroring ok|failed CODE`,
// `state RAW`, `sent m-I ok|failed CODE` for metrics m-1…m-N (one every 0.1 s while running, `--metrics
// N`, default 10), `saved UUID` once the ended workout is finished.
import ClockKit
import Foundation
import HealthKit
import WatchKit
import os

let arguments = Array(CommandLine.arguments.dropFirst())
let metricCount = arguments.first { $0.hasPrefix("--metrics=") }.flatMap { Int($0.dropFirst("--metrics=".count)) } ?? 10

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

/// What the watch shows during a workout, sent to the iPhone as it changes.
struct WorkoutMetrics: Codable {
    var name: String
    var elapsed: TimeInterval
}

@MainActor final class WorkoutManager: NSObject {
    static let shared = WorkoutManager()
    static let logger = Logger(subsystem: Bundle.main.bundleIdentifier!, category: "WorkoutManager")

    let healthStore = HKHealthStore()
    var session: HKWorkoutSession?
    var builder: HKLiveWorkoutBuilder?
    private var metricsSent = 0

    func startWorkout(workoutConfiguration: HKWorkoutConfiguration) {
        guard session == nil else { return }
        let session: HKWorkoutSession
        do {
            session = try HKWorkoutSession(healthStore: healthStore, configuration: workoutConfiguration)
        } catch {
            Self.logger.error("could not start a workout session: \(error)")
            note("start failed")
            return
        }
        let builder = session.associatedWorkoutBuilder()
        self.session = session
        self.builder = builder
        session.delegate = self
        builder.delegate = self
        builder.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: workoutConfiguration)
        note("started \(workoutConfiguration.activityType.rawValue) \(workoutConfiguration.locationType.rawValue)")
        let startDate = Date()
        session.startMirroringToCompanionDevice { success, error in
            note(success ? "mirroring ok" : "mirroring failed \((error as? HKError)?.code.rawValue ?? -1)")
        }
        session.startActivity(with: startDate)
        builder.beginCollection(withStart: startDate) { _, error in
            if let error { Self.logger.error("beginCollection: \(error)") }
        }
    }

    /// The next metrics for the iPhone, every 0.1 s while the workout runs.
    func sendMetrics() {
        guard let session, let builder, session.state == .running, metricsSent < metricCount else { return }
        metricsSent += 1
        let name = "m-\(metricsSent)"
        guard let data = try? JSONEncoder().encode(WorkoutMetrics(name: name, elapsed: builder.elapsedTime)) else { return }
        session.sendToRemoteWorkoutSession(data: data) { success, error in
            note("sent \(name) " + (success ? "ok" : "failed \((error as? HKError)?.code.rawValue ?? -1)"))
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.1) { MainActor.assumeIsolated { self.sendMetrics() } }
    }

    func workoutEnded(at date: Date) {
        guard let builder else { return }
        builder.endCollection(withEnd: date) { _, _ in
            builder.finishWorkout { workout, error in
                if let workout { note("saved \(workout.uuid.uuidString)") } else { note("not saved \(String(describing: error))") }
            }
        }
    }
}

extension WorkoutManager: HKWorkoutSessionDelegate {
    nonisolated func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date
    ) {
        note("state \(toState.rawValue)")
        Task { @MainActor in
            switch toState {
            case .running: self.sendMetrics()
            // The iPhone's End: its mirror stopped the activity; the watch ends the session.
            case .stopped: self.session?.end()
            case .ended: self.workoutEnded(at: date)
            default: break
            }
        }
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
        note("failed \(error)")
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        for datum in data { note("data \(String(decoding: datum, as: UTF8.self))") }
    }
}

extension WorkoutManager: HKLiveWorkoutBuilderDelegate {
    nonisolated func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {}
    nonisolated func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}
}

final class AppDelegate: NSObject, WKApplicationDelegate {
    func applicationDidFinishLaunching() {
        let info = Bundle.main.infoDictionary
        note("launched \(Bundle.main.bundleIdentifier!) \(info?["CFBundleShortVersionString"] as? String ?? "-")")
        noteComplications()
    }

    func applicationDidBecomeActive() { noteComplications() }

    func handle(_ workoutConfiguration: HKWorkoutConfiguration) {
        WorkoutManager.shared.startWorkout(workoutConfiguration: workoutConfiguration)
    }

    /// What the watch face shows of the app (ClockKit): its complications there now.
    func noteComplications() {
        note("complications \(CLKComplicationServer.sharedInstance().activeComplications?.count ?? -1)")
    }
}

let delegate = AppDelegate()
WKApplication.shared().delegate = delegate
RunLoop.main.run()
