// The phone's workout model, in the idioms of Apple's sample "Building a multidevice workout app" (read
// for its design, written here anew): a main-actor singleton `ObservableObject` whose `@Published` state
// the views observe, session state changes serialized through an `AsyncStream` that keeps the newest
// one, and HealthKit's async forms throughout. The sample shares this file between its two apps behind
// `#if os(watchOS)`, which Linux compiles out on both: each app here has its own copy of its side.
import Foundation
import HealthKit
import os

@MainActor
final class WorkoutManager: NSObject, ObservableObject {
    struct SessionStateChange {
        let newState: HKWorkoutSessionState
        let date: Date
    }

    @Published var sessionState: HKWorkoutSessionState = .notStarted
    @Published var heartRate: Double = 0
    @Published var activeEnergy: Double = 0
    @Published var distance: Double = 0
    @Published var water: Double = 0
    @Published var elapsedTimeInterval: TimeInterval = 0
    @Published var workout: HKWorkout?

    let typesToShare: Set<HKSampleType> = [HKQuantityType.workoutType(), HKQuantityType(.dietaryWater)]
    let typesToRead: Set<HKObjectType> = [
        HKQuantityType(.heartRate),
        HKQuantityType(.activeEnergyBurned),
        HKQuantityType(.distanceWalkingRunning),
        HKQuantityType(.dietaryWater),
        HKQuantityType.workoutType(),
        HKObjectType.activitySummaryType(),
        HKCharacteristicType(.activityMoveMode),
    ]
    let healthStore = HKHealthStore()
    var session: HKWorkoutSession?
    /// The date of the watch's last elapsed time, to run the timer from.
    var contextDate: Date?

    let stateChanges = AsyncStream.makeStream(of: SessionStateChange.self, bufferingPolicy: .bufferingNewest(1))

    static let shared = WorkoutManager()

    private override init() {
        super.init()
        Task {
            for await change in stateChanges.stream {
                await consume(change)
            }
        }
    }

    private func consume(_ change: SessionStateChange) async {
        // The phone's session is the mirror: the watch ends and saves the workout.
        sessionState = change.newState
    }
}

// MARK: - The session

extension WorkoutManager {
    func resetWorkout() {
        workout = nil
        session = nil
        heartRate = 0
        activeEnergy = 0
        distance = 0
        water = 0
        sessionState = .notStarted
    }

    func sendData(_ data: Data) async {
        do {
            try await session?.sendToRemoteWorkoutSession(data: data)
        } catch {
            Logger.shared.error("could not send to the watch: \(error)")
        }
    }
}

// MARK: - Statistics

extension WorkoutManager {
    func updateForStatistics(_ statistics: HKStatistics) {
        switch statistics.quantityType {
        case HKQuantityType.quantityType(forIdentifier: .heartRate):
            heartRate = statistics.mostRecentQuantity()?.doubleValue(for: HKUnit.count().unitDivided(by: .minute())) ?? 0
        case HKQuantityType.quantityType(forIdentifier: .activeEnergyBurned):
            activeEnergy = statistics.sumQuantity()?.doubleValue(for: .kilocalorie()) ?? 0
        case HKQuantityType.quantityType(forIdentifier: .distanceWalkingRunning):
            distance = statistics.sumQuantity()?.doubleValue(for: .meter()) ?? 0
        default:
            return
        }
    }
}

// MARK: - HKWorkoutSessionDelegate (called on HealthKit's queue: nonisolated)

extension WorkoutManager: HKWorkoutSessionDelegate {
    nonisolated func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState, from fromState: HKWorkoutSessionState, date: Date
    ) {
        Logger.shared.log("mirrored session state \(fromState.rawValue) → \(toState.rawValue)")
        stateChanges.continuation.yield(SessionStateChange(newState: toState, date: date))
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
        Logger.shared.error("session failed: \(error)")
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {
        Logger.shared.log("the watch's session disconnected: \(String(describing: error))")
    }

    /// What the watch sent while the app was suspended or not running comes in one array, in order.
    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        Task { @MainActor in
            do {
                for element in data { try handleReceivedData(element) }
            } catch {
                Logger.shared.error("could not read what the watch sent: \(error)")
            }
        }
    }
}

/// The elapsed time at a date, for the timer.
struct WorkoutElapsedTime: Codable {
    var timeInterval: TimeInterval
    var date: Date
}
