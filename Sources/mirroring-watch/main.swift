// mirroring-watch: the watch app of Apple's sample "Building a multidevice workout app", in its idioms and
// written anew, with only its SwiftUI views left out — `WorkoutManager` (HealthKit's async forms, the
// session mirrored to the phone, `HKLiveWorkoutBuilder`, `sendToRemoteWorkoutSession`, `os.Logger`, Combine's
// `@Published`), the `WKApplicationDelegate` that takes the workout the phone starts, and no `WCSession`.
//
// What the views showed is noted instead, each line made durable, in Documents/mirroring.log, from the
// model's published state (Combine): `launched BUNDLE-ID`, `state RAW` for each session state, `water FLOZ`
// (water the phone sent), `saved UUID` (the summary's workout). The simulated watch has no sensors: as
// its stand-in, while the workout runs, a distance sample of 10 m every 0.1 s is added to the builder
// (`--samples N`, default 20; `sample I` each), which the live builder collects and the model sends on.
import Combine
import Foundation
import HealthKit
import WatchKit

let arguments = Array(CommandLine.arguments.dropFirst())
let sampleCount = arguments.first { $0.hasPrefix("--samples=") }.flatMap { Int($0.dropFirst("--samples=".count)) } ?? 20

/// Appends a line to Documents/mirroring.log and makes it durable.
func note(_ line: String) {
    let directory = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let fd = open(directory.appendingPathComponent("mirroring.log").path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard fd >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
    close(fd)
}

/// The sensors' stand-in: distance samples while the workout runs.
@MainActor func recordSamples() {
    Task { @MainActor in
        let manager = WorkoutManager.shared
        var recorded = 0
        var from = manager.builder?.startDate ?? Date()
        while recorded < sampleCount, let builder = manager.builder, manager.sessionState == .running {
            try? await Task.sleep(nanoseconds: 100_000_000)
            let to = max(Date(), from)
            let sample = HKQuantitySample(
                type: HKQuantityType(.distanceWalkingRunning), quantity: HKQuantity(unit: .meter(), doubleValue: 10), start: from, end: to)
            do {
                try await builder.add([sample])
            } catch {
                note("sample failed \(error)")
                return
            }
            recorded += 1
            from = to
            note("sample \(recorded)")
        }
    }
}

/// The app's launch (the sample's `@main` App with its delegate adaptor), on the main actor in both modes.

/// What the views held: their subscriptions (and the delegate adaptor, the End tapped).
@MainActor enum Views {
    static var delegate: AppDelegate?
    static var cancellables: Set<AnyCancellable> = []
}

@MainActor func launch() {
    let appDelegate = AppDelegate()
    Views.delegate = appDelegate
    WKApplication.shared().delegate = appDelegate
    note("launched \(Bundle.main.bundleIdentifier!)")
    let manager = WorkoutManager.shared
    manager.$sessionState
        .removeDuplicates()
        .sink { state in
            note("state \(state.rawValue)")
            if state == .running { MainActor.assumeIsolated { recordSamples() } }
        }
        .store(in: &Views.cancellables)
    manager.$water.filter { $0 > 0 }.sink { note("water \($0)") }.store(in: &Views.cancellables)
    manager.$workout.compactMap { $0 }.sink { note("saved \($0.uuid.uuidString)") }.store(in: &Views.cancellables)
}

MainActor.assumeIsolated { launch() }
RunLoop.main.run()
