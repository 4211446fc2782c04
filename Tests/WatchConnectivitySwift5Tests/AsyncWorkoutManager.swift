// A workout manager in HealthKit's async form, as apps written for watchOS 10 write one: authorization
// awaited, the session's live builder begun, laps added as workout events, the workout ended and
// finished with `try await`, the live statistics archived for the phone's mirror. Compiled unchanged in
// Swift 5 and 6 modes with MemberImportVisibility.

import Foundation
import HealthKit

@MainActor
final class AsyncWorkoutManager: NSObject, ObservableObject {
    let healthStore = HKHealthStore()
    private(set) var session: HKWorkoutSession?
    private(set) var builder: HKLiveWorkoutBuilder?
    @Published private(set) var laps = 0

    static let sharedTypes: Set<HKSampleType> = [
        HKQuantityType.workoutType(),
        HKQuantityType(.heartRate),
        HKQuantityType(.activeEnergyBurned),
        HKQuantityType(.distanceWalkingRunning),
        HKQuantityType(.runningPower),
        HKQuantityType(.runningSpeed),
    ]

    func requestAuthorization() async throws {
        var read: Set<HKObjectType> = [HKObjectType.activitySummaryType(), HKQuantityType(.vo2Max), HKQuantityType(.restingHeartRate)]
        read.formUnion(Self.sharedTypes)
        try await healthStore.requestAuthorization(toShare: Self.sharedTypes, read: read)
    }

    func start(_ activity: HKWorkoutActivityType, indoors: Bool, at start: Date) async throws {
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = activity
        configuration.locationType = indoors ? .indoor : .outdoor
        let session = try HKWorkoutSession(healthStore: healthStore, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        builder.dataSource = HKLiveWorkoutDataSource(healthStore: healthStore, workoutConfiguration: configuration)
        self.session = session
        self.builder = builder
        session.startActivity(with: start)
        try await builder.beginCollection(at: start)
    }

    func record(watts: Double, metresPerSecond: Double, from start: Date, to end: Date) async throws {
        let power = HKQuantitySample(
            type: HKQuantityType(.runningPower), quantity: HKQuantity(unit: .watt(), doubleValue: watts), start: start, end: end)
        let speed = HKQuantitySample(
            type: HKQuantityType(.runningSpeed), quantity: HKQuantity(unit: HKUnit.meter().unitDivided(by: .second()), doubleValue: metresPerSecond),
            start: start, end: end)
        let distance = HKQuantitySample(
            type: HKQuantityType(.distanceWalkingRunning),
            quantity: HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: metresPerSecond * end.timeIntervalSince(start) / 1000),
            start: start, end: end)
        try await builder?.add([power, speed, distance])
    }

    func lap(at date: Date) async throws {
        let lap = HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: date, duration: 0), metadata: nil)
        try await builder?.addWorkoutEvents([lap])
        laps += 1
    }

    /// Active minutes at `date`, as a complication shows them.
    func activeMinutes(at date: Date) -> Double { (builder?.elapsedTime(at: date) ?? 0) / 60 }

    /// The average power, in watts, for the phone's mirror: archived as HealthKit's own value.
    func archivedAveragePower() throws -> Data? {
        guard let statistics = builder?.statistics(for: HKQuantityType(.runningPower)) else { return nil }
        return try NSKeyedArchiver.archivedData(withRootObject: statistics, requiringSecureCoding: true)
    }

    func end(at date: Date) async throws -> HKWorkout? {
        session?.end()
        try await builder?.endCollection(at: date)
        return try await builder?.finishWorkout()
    }
}

/// What the phone's mirror does with what the watch archived.
enum MirroredStatistics {
    static func averageWatts(from data: Data) throws -> Double? {
        guard let statistics = try NSKeyedUnarchiver.unarchivedObject(ofClass: HKStatistics.self, from: data) else { return nil }
        return statistics.averageQuantity()?.doubleValue(for: .watt())
    }
}
