import Foundation
import HealthKit
import Testing

/// HealthKit as workout apps use it, with no device (the Health store is the device's OS's; the
/// builder's arithmetic and the values' archiving are the app's own).
@Suite struct HealthKitSurfaceTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// The async forms, as an app awaits them: the builder begins, collects and counts laps; the finish
    /// fails as HealthKit does on a device without Health (errorHealthDataUnavailable).
    @Test @MainActor func theAsyncWorkoutManagerRunsAndFailsToSaveWithNoHealthStore() async throws {
        let manager = AsyncWorkoutManager()
        await #expect(throws: HKError.self) { try await manager.requestAuthorization() }
        try await manager.start(.functionalStrengthTraining, indoors: true, at: start)
        #expect(manager.session?.workoutConfiguration.activityType == .functionalStrengthTraining)
        try await manager.record(watts: 250, metresPerSecond: 3.5, from: start, to: start.addingTimeInterval(600))
        try await manager.record(watts: 270, metresPerSecond: 3.8, from: start.addingTimeInterval(600), to: start.addingTimeInterval(1200))
        try await manager.lap(at: start.addingTimeInterval(600))
        #expect(manager.laps == 1)
        #expect(manager.activeMinutes(at: start.addingTimeInterval(1200)) == 20)
        let archived = try #require(try manager.archivedAveragePower())
        #expect(try MirroredStatistics.averageWatts(from: archived) == 260, "the mirror reads what the watch archived")
        await #expect(throws: HKError.self) { _ = try await manager.end(at: start.addingTimeInterval(1200)) }
    }

    /// Apple, HKWorkoutBuilder.elapsedTime(at:): "The elapsed time … This calculation takes into account
    /// the start date, end date, and any pause or resume events added to the builder."
    @Test func elapsedTimeLeavesOutPausesAndStopsAtTheEnd() async throws {
        let builder = HKWorkoutBuilder(healthStore: HKHealthStore(), configuration: HKWorkoutConfiguration(), device: .local())
        #expect(builder.elapsedTime(at: start) == 0, "not begun")
        try await builder.beginCollection(at: start)
        func event(_ type: HKWorkoutEventType, _ seconds: TimeInterval) -> HKWorkoutEvent {
            HKWorkoutEvent(type: type, dateInterval: DateInterval(start: start.addingTimeInterval(seconds), duration: 0), metadata: nil)
        }
        try await builder.addWorkoutEvents([event(.pause, 100), event(.resume, 160), event(.lap, 200), event(.pause, 300)])
        #expect(builder.elapsedTime(at: start.addingTimeInterval(130)) == 100, "paused since 100")
        #expect(builder.elapsedTime(at: start.addingTimeInterval(250)) == 190)
        #expect(builder.elapsedTime(at: start.addingTimeInterval(400)) == 240, "paused again at 300, never resumed")
        try await builder.addWorkoutEvents([event(.resume, 320)])
        try await builder.endCollection(at: start.addingTimeInterval(500))
        #expect(builder.elapsedTime(at: start.addingTimeInterval(900)) == 420, "the end, less 60 s and 20 s of pauses")
        #expect(builder.workoutEvents.map(\.type) == [.pause, .resume, .lap, .pause, .resume])
        await #expect(throws: HKError.self) { try await builder.add([]) }
    }

    /// A live builder turns its session's pause and resume into workout events.
    @Test func aLiveBuildersSessionPausesBecomeEvents() throws {
        let store = HKHealthStore()
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .running
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        session.startActivity(with: start)
        builder.beginCollection(withStart: start) { _, _ in }
        session.pause()
        session.resume()
        #expect(builder.workoutEvents.map(\.type) == [.pause, .resume])
        #expect((builder as HKWorkoutBuilder).startDate == start, "a live builder is a workout builder")
    }

    @Test func unitsConvertWithinADimension() {
        let tenK = HKQuantity(unit: .meterUnit(with: .kilo), doubleValue: 10)
        #expect(tenK.doubleValue(for: .meter()) == 10_000)
        #expect(abs(tenK.doubleValue(for: .mile()) - 6.213_711_922) < 1e-9)
        #expect(HKQuantity(unit: .kilocalorie(), doubleValue: 1).doubleValue(for: .jouleUnit(with: .kilo)) == 4.184)
        #expect(HKQuantity(unit: .largeCalorie(), doubleValue: 2).doubleValue(for: .kilocalorie()) == 2)
        #expect(HKUnit(from: "count/min") == HKUnit.count().unitDivided(by: .minute()))
        #expect(HKUnit.count().unitDivided(by: .minute()).unitString == "count/min")
        #expect(HKUnit(from: "m/s") == HKUnit.meter().unitDivided(by: .second()))
        let vo2 = HKUnit(from: "mL/(kg*min)")
        #expect(vo2.unitString == "mL/(kg*min)")
        #expect(
            HKQuantity(unit: vo2, doubleValue: 50).is(
                compatibleWith: HKUnit.literUnit(with: .milli).unitDivided(by: HKUnit.gramUnit(with: .kilo).unitMultiplied(by: .minute()))))
        #expect(HKQuantity(unit: .watt(), doubleValue: 1).doubleValue(for: .meter()).isNaN, "no conversion across dimensions")
        #expect(HKQuantityType(.runningPower).is(compatibleWith: .watt()))
        #expect(!HKQuantityType(.heartRate).is(compatibleWith: .meter()))
        #expect(HKQuantityType(.heartRate).aggregationStyle == .discreteTemporallyWeighted)
        #expect(HKQuantityType(.stepCount).aggregationStyle == .cumulative)
        #expect(HKQuantity(unit: .minute(), doubleValue: 1).compare(HKQuantity(unit: .second(), doubleValue: 61)) == .orderedAscending)
    }

    @Test func everyActivityTypeHasApplesRawValue() {
        #expect(HKWorkoutActivityType.functionalStrengthTraining.rawValue == 20)
        #expect(HKWorkoutActivityType.highIntensityIntervalTraining.rawValue == 63)
        #expect(HKWorkoutActivityType.underwaterDiving.rawValue == 84)
        #expect(HKWorkoutActivityType(rawValue: 81) == nil, "Apple has no 81")
        #expect(HKWorkoutActivityType.other.rawValue == 3000)
    }

    /// Archived with NSKeyedArchiver (secure coding), as a watch app sends them to the phone's mirror,
    /// and read back equal by corelibs Foundation's NSKeyedUnarchiver.
    @Test func healthKitValuesArchiveAndComeBack() throws {
        func roundTrip<T: NSObject & NSSecureCoding>(_ value: T) throws -> T? {
            let data = try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
            return try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data)
        }
        let quantity = HKQuantity(unit: HKUnit.count().unitDivided(by: .minute()), doubleValue: 152)
        #expect(try roundTrip(quantity) == quantity)
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .swimming
        configuration.locationType = .indoor
        configuration.swimmingLocationType = .pool
        configuration.lapLength = HKQuantity(unit: .meter(), doubleValue: 25)
        let back = try #require(try roundTrip(configuration))
        #expect(back == configuration && back.lapLength?.doubleValue(for: .meter()) == 25)
        let lap = HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: start, duration: 30), metadata: nil)
        #expect(try roundTrip(lap) == lap)
        #expect(try roundTrip(HKUnit(from: "mL/(kg*min)")) == HKUnit(from: "mL/(kg*min)"))
        #expect(try roundTrip(HKQuantityType(.heartRate)) == HKQuantityType(.heartRate))
    }
}
