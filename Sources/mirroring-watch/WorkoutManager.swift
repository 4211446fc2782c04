// The watch's workout model, in the idioms of Apple's sample "Building a multidevice workout app" (read
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
    /// Set once the ended workout is saved: the summary shows it.
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
    var builder: HKLiveWorkoutBuilder?

    /// State changes, newest kept: a task consumes them one at a time, so the end of a workout is not
    /// overtaken by the next change (actors do not run their tasks first in, first out).
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
        sessionState = change.newState
        // The phone shows the elapsed time from the date of each change.
        let elapsed = session?.associatedWorkoutBuilder().elapsedTime(at: change.date) ?? 0
        if let data = try? JSONEncoder().encode(WorkoutElapsedTime(timeInterval: elapsed, date: change.date)) {
            await sendData(data)
        }
        // Stopped (here, by the phone's mirror): end collecting, save the workout, then end the session.
        guard change.newState == .stopped, let builder else { return }
        let finished: HKWorkout?
        do {
            try await builder.endCollection(at: change.date)
            finished = try await builder.finishWorkout()
            session?.end()
        } catch {
            Logger.shared.error("could not end the workout: \(error)")
            return
        }
        workout = finished
    }
}

// MARK: - The session

extension WorkoutManager {
    func resetWorkout() {
        builder = nil
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
            Logger.shared.error("could not send to the mirror: \(error)")
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
        Logger.shared.log("session state \(fromState.rawValue) → \(toState.rawValue)")
        stateChanges.continuation.yield(SessionStateChange(newState: toState, date: date))
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didFailWithError error: any Error) {
        Logger.shared.error("session failed: \(error)")
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {
        Logger.shared.log("the mirror disconnected: \(String(describing: error))")
    }

    nonisolated func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        Task { @MainActor in
            do {
                for element in data { try handleReceivedData(element) }
            } catch {
                Logger.shared.error("could not read what the phone sent: \(error)")
            }
        }
    }
}

/// The elapsed time at a date, for the other device's timer.
struct WorkoutElapsedTime: Codable {
    var timeInterval: TimeInterval
    var date: Date
}
