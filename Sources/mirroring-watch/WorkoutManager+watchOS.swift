// The watch's side of the workout model (the sample's watchOS extension, written anew): it runs the
// session and its live builder, mirrors the session to the phone, and sends the phone the builder's
// statistics, archived (`NSSecureCoding`), as they are collected.
import Foundation
import HealthKit
import os

extension WorkoutManager {
    func startWorkout(workoutConfiguration: HKWorkoutConfiguration) async throws {
        session = try HKWorkoutSession(healthStore: healthStore, configuration: workoutConfiguration)
        builder = session?.associatedWorkoutBuilder()
        session?.delegate = self
        builder?.delegate = self
        builder?.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: workoutConfiguration)
        // Mirror first, so the phone sees the session from its start.
        try await session?.startMirroringToCompanionDevice()
        let startDate = Date()
        session?.startActivity(with: startDate)
        try await builder?.beginCollection(at: startDate)
    }

    /// The phone sends water drunk, as an archived `HKQuantity`.
    func handleReceivedData(_ data: Data) throws {
        guard let quantity = try NSKeyedUnarchiver.unarchivedObject(ofClass: HKQuantity.self, from: data) else { return }
        water += quantity.doubleValue(for: .fluidOunceUS())
    }
}

extension WorkoutManager: HKLiveWorkoutBuilderDelegate {
    nonisolated func workoutBuilder(_ workoutBuilder: HKLiveWorkoutBuilder, didCollectDataOf collectedTypes: Set<HKSampleType>) {
        Task { @MainActor in
            var allStatistics: [HKStatistics] = []
            for type in collectedTypes {
                if let quantityType = type as? HKQuantityType, let statistics = workoutBuilder.statistics(for: quantityType) {
                    updateForStatistics(statistics)
                    allStatistics.append(statistics)
                }
            }
            guard let archived = try? NSKeyedArchiver.archivedData(withRootObject: allStatistics, requiringSecureCoding: true), !archived.isEmpty
            else {
                Logger.shared.error("could not archive the statistics")
                return
            }
            await sendData(archived)
        }
    }

    nonisolated func workoutBuilderDidCollectEvent(_ workoutBuilder: HKLiveWorkoutBuilder) {}
}
