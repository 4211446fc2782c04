import Foundation
import HealthKit
import Testing
import WatchKit

/// A watchOS workout manager compiles unchanged against HealthKit, and in a process that is not an app
/// on a simulated device it behaves as HealthKit does on a device without Health: the session and its
/// builder run, pauses leave the elapsed time, and the finish fails with `errorHealthDataUnavailable`.
@Suite struct HealthKitCompatibilityTests {
    @Test func aWatchOSWorkoutManagerRunsWithNoDevice() throws {
        #expect(!HKHealthStore.isHealthDataAvailable())
        let manager = RunWorkoutManager()
        var granted: Bool?
        manager.requestAuthorization { granted = $0 }
        #expect(granted == false, "no device: nothing to authorize against")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try manager.startWorkout(at: start)
        manager.record(heartRate: 150, metres: 400, from: start, to: start.addingTimeInterval(120))
        manager.record(heartRate: 156, metres: 410, from: start.addingTimeInterval(120), to: start.addingTimeInterval(240))
        #expect(manager.heartRate == 156)
        #expect(abs(manager.distanceMetres - 810) < 0.001)
        manager.session?.pause()
        manager.session?.resume()
        #expect(manager.events == 2)
        var finished: Error?
        manager.endWorkout(at: start.addingTimeInterval(300)) { _, error in finished = error }
        #expect(manager.states == [.running, .paused, .running, .ended])
        let error = try #require(finished as? HKError)
        #expect(error.code == .errorHealthDataUnavailable)
        #expect((finished! as NSError).domain == HKError.errorDomain)
        var mirrored: Error?
        manager.session?.startMirroringToCompanionDevice { _, error in mirrored = error }
        #expect((mirrored as? HKError)?.code == .errorHealthDataUnavailable, "no device: no companion to mirror to")
        var sent: Bool?
        manager.sendToPhone(Data("hello".utf8)) { sent = $0 }
        #expect(sent == false)
    }

    /// The async forms fail as the completion forms do with no device.
    @Test func theAsyncMirroringCallsThrowHealthKitsErrorWithNoDevice() async throws {
        let manager = RunWorkoutManager()
        try manager.startWorkout(at: Date(timeIntervalSince1970: 1_800_000_000))
        await #expect(throws: HKError.self) { try await manager.mirrorToPhone() }
        await #expect(throws: HKError.self) { try await manager.sendToPhone(Data([1])) }
        let phone = PhoneWorkoutMirror()
        await #expect(throws: HKError.self) { try await phone.startWatchWorkout() }
        try await phone.send(Data([1]))
        #expect(phone.mirrored == nil && phone.received.isEmpty)
    }

    /// The delegate's `handle(_ workoutConfiguration:)` starts the session (called here as watch-os's
    /// WatchKit would, on the main actor).
    @Test @MainActor func theDelegateStartsTheWorkoutThePhoneStarted() {
        let delegate = RunWorkoutAppDelegate()
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        delegate.handle(configuration)
        #expect(delegate.started == [.cycling])
        #expect(delegate.manager.session?.state == .running)
    }
}
