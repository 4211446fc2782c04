import Foundation
import HealthKit
import Posix
import WatchConnectivity
import RunWayDomain
import WatchKit

// MARK: - The watch app woken in the background for the phone's content

extension RunWayWatchApp: WKApplicationDelegate {
    /// watch-os launched the app for content from the phone (`WKWatchConnectivityRefreshBackgroundTask`):
    /// as Apple asks, the task is kept until something arrived and `hasContentPending` is false, then
    /// completed. Other tasks are completed at once (the app has nothing to do for them).
    package func handle(_ backgroundTasks: Set<WKRefreshBackgroundTask>) {
        for task in backgroundTasks {
            guard let task = task as? WKWatchConnectivityRefreshBackgroundTask else {
                task.setTaskCompletedWithSnapshot(false)
                continue
            }
            logger.info("app.background-task", ["kind": "watchConnectivity", "contentPending": WCSession.default.hasContentPending])
            completeWhenReceived(task)
        }
    }

    /// The phone's `startWatchApp(with:)`: watch-os launched or woke the app for a workout.
    package func handle(_ workoutConfiguration: HKWorkoutConfiguration) { startedByPhone(workoutConfiguration) }

    /// watch-os relaunched the app after it died during its workout session (watchOS's workout recovery):
    /// the session back from HealthKit (`recoverActiveWorkoutSession`), fed the run restored from the store.
    package func handleActiveWorkoutRecovery() {
        logger.notice("workout.recovery", ["runId": runs.run?.id ?? "none"])
        health.recover(runs.run)
    }

    private func completeWhenReceived(_ task: WKWatchConnectivityRefreshBackgroundTask) {
        if app.deliveries > 0, !WCSession.default.hasContentPending {
            logger.info("app.background-task-completed", ["kind": "watchConnectivity", "received": app.deliveries])
            task.setTaskCompletedWithSnapshot(false)
            return
        }
        context.loop.schedule(afterMilliseconds: 50) { [weak self] in self?.completeWhenReceived(task) }
    }
}
