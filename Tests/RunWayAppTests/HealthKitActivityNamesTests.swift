import Control
import OSServices
import Testing

@testable import HealthKit

/// A workout's activity type crosses to the OS by name: every `HKWorkoutActivityType` case's name is
/// the OS's list (`HealthWorkoutItem.activityTypes`), one for one and in raw order, and the OS's Health
/// store takes a workout of any of them (before, it refused all but four: `functionalStrengthTraining`
/// could not be saved).
@Suite struct HealthKitActivityNamesTests {
    @Test func everyCaseIsANameTheOSKeeps() {
        #expect(HKWorkoutActivityType.every.map(\.name) == HealthWorkoutItem.activityTypes)
        #expect(HKWorkoutActivityType.every.count == 84, "1 to 84 but 81, and 3000")
        for type in HKWorkoutActivityType.every { #expect(HKWorkoutActivityType(name: type.name) == type) }
    }

    @Test func theOSStoreTakesAStrengthWorkout() {
        let workout = HealthWorkoutItem(
            uuid: "6F9619FF-8B86-D011-B42D-00C04FC964FF", activityType: HKWorkoutActivityType.functionalStrengthTraining.name,
            startDate: 1_800_000_000, endDate: 1_800_000_600, duration: 540, metadata: [:])
        #expect(HealthStore.problem(with: workout) == nil)
        var unknown = workout
        unknown.activityType = "quidditch"
        #expect(HealthStore.problem(with: unknown) == "unknown activity type quidditch")
    }
}
