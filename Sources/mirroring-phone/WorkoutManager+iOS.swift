// The phone's side of the workout model (the sample's iOS extension, written anew): it starts the
// watch's workout, takes the mirrored session HealthKit hands it — even when it launches the app for it —
// and reads what the watch sends: the elapsed time (JSON) or the builder's statistics (archived).
import Foundation
import HealthKit
import os

extension WorkoutManager {
    func startWatchWorkout(workoutType: HKWorkoutActivityType) async throws {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = workoutType
        configuration.locationType = .outdoor
        try await healthStore.startWatchApp(toHandle: configuration)
    }

    /// Set at launch: the mirrored session comes to this handler.
    func retrieveRemoteSession() {
        healthStore.workoutSessionMirroringStartHandler = { mirroredSession in
            Task { @MainActor in
                self.resetWorkout()
                self.session = mirroredSession
                self.session?.delegate = self
                Logger.shared.log("mirroring the watch's session \(mirroredSession)")
            }
        }
    }

    func handleReceivedData(_ data: Data) throws {
        if let elapsedTime = try? JSONDecoder().decode(WorkoutElapsedTime.self, from: data) {
            var interval = elapsedTime.timeInterval
            if sessionState == .running { interval += Date().timeIntervalSince(elapsedTime.date) }
            elapsedTimeInterval = interval
            contextDate = elapsedTime.date
        } else if let statistics = try NSKeyedUnarchiver.unarchivedArrayOfObjects(ofClass: HKStatistics.self, from: data) {
            for element in statistics { updateForStatistics(element) }
        }
    }
}
