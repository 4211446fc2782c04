import HealthKit
import WatchKit
import os

/// Hands the workout the phone starts (`startWatchApp(toHandle:)`) to the workout model.
final class AppDelegate: NSObject, WKApplicationDelegate {
    func handle(_ workoutConfiguration: HKWorkoutConfiguration) {
        Task {
            do {
                WorkoutManager.shared.resetWorkout()
                try await WorkoutManager.shared.startWorkout(workoutConfiguration: workoutConfiguration)
                Logger.shared.log("started the workout the phone asked for")
            } catch {
                Logger.shared.error("could not start the workout: \(error)")
            }
        }
    }
}
