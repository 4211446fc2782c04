// mirroring-phone: the iPhone app of Apple's sample "Building a multidevice workout app", in its idioms
// and written anew, with only its SwiftUI views left out — `WorkoutManager` (HealthKit's async forms, the
// watch's mirrored session, `sendToRemoteWorkoutSession`, `os.Logger`, Combine's `@Published`), and no
// `WCSession`.
//
// What the views did and showed is done and noted here instead, each line made durable, in
// Documents/mirroring.log, from the model's published state (Combine): `launched BUNDLE-ID`; with `--start`,
// the Start button once the app is on screen (`start ok|failed`, again every 0.5 s while the watch cannot be
// reached yet, at most 60 times; never again once it worked: the user taps it once); `state RAW` for each
// state of the mirrored session; `distance METERS` as the watch's statistics come; the water button once
// the session runs (`water sent`: an archived `HKQuantity` of 1 fl oz, once); and the End button
// (`end`) once the distance reaches `--end-at=METERS` (default 200).
import Combine
import Foundation
import HealthKit
import UIKit

let arguments = Array(CommandLine.arguments.dropFirst())
let endAt = arguments.first { $0.hasPrefix("--end-at=") }.flatMap { Double($0.dropFirst("--end-at=".count)) } ?? 200

let logURL = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent("mirroring.log")

/// Appends a line to Documents/mirroring.log and makes it durable.
func note(_ line: String) {
    try? FileManager.default.createDirectory(at: logURL.deletingLastPathComponent(), withIntermediateDirectories: true)
    let fd = open(logURL.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard fd >= 0 else { return }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
    close(fd)
}

/// Whether an earlier launch noted `line` (what the user did once stays done).
func noted(_ line: String) -> Bool {
    ((try? String(contentsOf: logURL, encoding: .utf8)) ?? "").split(separator: "\n").contains { $0 == line }
}

/// The Start button.
@MainActor func tapStart(attempt: Int = 1) {
    let manager = WorkoutManager.shared
    guard !noted("start ok"), manager.sessionState == .notStarted else { return }
    Task { @MainActor in
        do {
            try await manager.startWatchWorkout(workoutType: .running)
            note("start ok")
        } catch {
            note("start failed \((error as? HKError)?.code.rawValue ?? -1)")
            guard attempt < 60 else { return }
            try? await Task.sleep(nanoseconds: 500_000_000)
            tapStart(attempt: attempt + 1)
        }
    }
}

/// The water button: an archived quantity to the watch.
@MainActor func tapWater() {
    let manager = WorkoutManager.shared
    guard !noted("water sent") else { return }
    Task { @MainActor in
        let quantity = HKQuantity(unit: .fluidOunceUS(), doubleValue: 1)
        guard let data = try? NSKeyedArchiver.archivedData(withRootObject: quantity, requiringSecureCoding: true) else { return }
        await manager.sendData(data)
        note("water sent")
    }
}

/// The app's launch (the sample's `@main` App and its start view), on the main actor in both modes.

/// What the views held: their subscriptions (and the delegate adaptor, the End tapped).
@MainActor enum Views {
    static var ended = false
    static var cancellables: Set<AnyCancellable> = []
}

@MainActor func launch() {
    let manager = WorkoutManager.shared
    note("launched \(Bundle.main.bundleIdentifier!)")
    manager.retrieveRemoteSession()
    Task {
        do {
            try await manager.healthStore.requestAuthorization(toShare: manager.typesToShare, read: manager.typesToRead)
        } catch {
            note("authorization failed \(error)")
        }
    }
    manager.$sessionState
        .removeDuplicates()
        .sink { state in
            note("state \(state.rawValue)")
            if state == .running { MainActor.assumeIsolated { tapWater() } }
        }
        .store(in: &Views.cancellables)
    manager.$distance
        .removeDuplicates()
        .filter { $0 > 0 }
        .sink { distance in
            note("distance \(Int(distance))")
            // The End button: the mirror stops the activity; the watch ends the workout and saves it.
            MainActor.assumeIsolated {
                if distance >= endAt && !Views.ended {
                    Views.ended = true
                    note("end")
                    manager.session?.stopActivity(with: .now)
                }
            }
        }
        .store(in: &Views.cancellables)
    NotificationCenter.default.publisher(for: UIApplication.didBecomeActiveNotification)
        .sink { _ in if arguments.contains("--start") { MainActor.assumeIsolated { tapStart() } } }
        .store(in: &Views.cancellables)
    if UIApplication.shared.applicationState == .active && arguments.contains("--start") { tapStart() }
}

MainActor.assumeIsolated { launch() }
RunLoop.main.run()
