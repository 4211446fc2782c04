import Control
import Foundation
import OSServices

/// Builds a workout (HealthKit's `HKWorkoutBuilder`): begin, collect samples, events and metadata, end,
/// then `finishWorkout` saves one `HKWorkout` to the device's Health store. `HKLiveWorkoutBuilder`, a
/// workout session's builder, is its subclass. Each call also has the `async` form Swift imports for it.
/// Completion handlers run on the calling thread before the call returns.
open class HKWorkoutBuilder: NSObject, @unchecked Sendable {
    public let workoutConfiguration: HKWorkoutConfiguration
    public let device: HKDevice?
    open private(set) var startDate: Date?
    open private(set) var endDate: Date?
    open private(set) var metadata: [String: Any] = [:]
    /// Pauses, resumes, laps, segments… in the order they were added.
    open private(set) var workoutEvents: [HKWorkoutEvent] = []
    let healthStore: HKHealthStore
    private var samples: [HKQuantitySample] = []
    private var finished = false

    public init(healthStore: HKHealthStore, configuration: HKWorkoutConfiguration, device: HKDevice?) {
        self.healthStore = healthStore
        workoutConfiguration = configuration
        self.device = device
        super.init()
    }

    // MARK: - Collecting

    open func beginCollection(withStart start: Date, completion: @escaping (Bool, (any Error)?) -> Void) {
        guard startDate == nil else {
            return completion(false, HKError(.errorInvalidArgument, message: "the builder has already begun collecting"))
        }
        startDate = start
        completion(true, nil)
    }

    /// Adds samples (the simulated device has no sensors: the app adds what it records). Quantity samples
    /// count in `statistics(for:)`.
    open func add(_ samples: [HKSample], completion: @escaping (Bool, (any Error)?) -> Void) {
        guard startDate != nil, endDate == nil, !finished else {
            return completion(false, HKError(.errorInvalidArgument, message: "samples are added between beginCollection and endCollection"))
        }
        let quantities = samples.compactMap { $0 as? HKQuantitySample }
        self.samples += quantities
        completion(true, nil)
        if !quantities.isEmpty { didCollect(Set(quantities.map(\.sampleType))) }
    }

    /// Adds events (a pause and its resume leave the elapsed time; a lap, a marker, a segment are kept).
    open func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent], completion: @escaping (Bool, (any Error)?) -> Void) {
        guard startDate != nil, !finished else {
            return completion(false, HKError(.errorInvalidArgument, message: "workout events are added after beginCollection"))
        }
        self.workoutEvents += workoutEvents
        completion(true, nil)
        if !workoutEvents.isEmpty { didCollectEvents() }
    }

    open func addMetadata(_ metadata: [String: Any], completion: @escaping (Bool, (any Error)?) -> Void) {
        guard !finished else { return completion(false, HKError(.errorInvalidArgument, message: "the workout is already finished")) }
        self.metadata.merge(metadata) { $1 }
        completion(true, nil)
    }

    open func endCollection(withEnd end: Date, completion: @escaping (Bool, (any Error)?) -> Void) {
        guard let startDate, endDate == nil, end >= startDate else {
            return completion(false, HKError(.errorInvalidArgument, message: "endCollection needs a begun collection and an end after its start"))
        }
        endDate = end
        completion(true, nil)
    }

    // MARK: - Reading

    /// The active time at `date`: from the start to `date` (or the end, if earlier), less the time
    /// between each pause and its resume (HealthKit: "the elapsed time … taking into account pause and
    /// resume events").
    open func elapsedTime(at date: Date) -> TimeInterval {
        guard let startDate else { return 0 }
        let until = min(date, endDate ?? date)
        guard until > startDate else { return 0 }
        var paused: TimeInterval = 0
        var pausedSince: Date?
        for event in workoutEvents.sorted(by: { $0.dateInterval.start < $1.dateInterval.start }) {
            let at = min(max(event.dateInterval.start, startDate), until)
            switch event.type {
            case .pause, .motionPaused:
                if pausedSince == nil { pausedSince = at }
            case .resume, .motionResumed:
                if let since = pausedSince {
                    paused += at.timeIntervalSince(since)
                    pausedSince = nil
                }
            default: break
            }
        }
        if let pausedSince { paused += until.timeIntervalSince(pausedSince) }
        return max(0, until.timeIntervalSince(startDate) - paused)
    }

    /// The statistics of `quantityType` over what was added, or nil when nothing was.
    open func statistics(for quantityType: HKQuantityType) -> HKStatistics? {
        let matching = samples.filter { $0.sampleType == quantityType }
        guard let startDate, !matching.isEmpty else { return nil }
        return HKStatistics(quantityType: quantityType, startDate: startDate, endDate: endDate ?? healthStore.deviceNow, samples: matching)
    }

    /// Every type's statistics.
    open var allStatistics: [HKQuantityType: HKStatistics] {
        var all: [HKQuantityType: HKStatistics] = [:]
        for type in Set(samples.map(\.quantityType)) { all[type] = statistics(for: type) }
        return all
    }

    // MARK: - Finishing

    /// Makes the workout and saves it to the device's Health store: its duration the elapsed time at its
    /// end, its distance and active energy the sums collected, its events. Its uuid is the metadata's
    /// `HKMetadataKeyExternalUUID` when that is a UUID: a finish repeated after a crash saves one workout.
    open func finishWorkout(completion: @escaping (HKWorkout?, (any Error)?) -> Void) {
        guard let startDate, let endDate else {
            return completion(nil, HKError(.errorInvalidArgument, message: "finishWorkout needs beginCollection and endCollection first"))
        }
        guard !finished else { return completion(nil, HKError(.errorInvalidArgument, message: "the workout is already finished")) }
        let distance = allStatistics.filter { $0.key.identifier.hasPrefix("HKQuantityTypeIdentifierDistance") }.values.compactMap { $0.sumQuantity() }
        let workout = HKWorkout(
            activityType: workoutConfiguration.activityType, start: startDate, end: endDate, duration: elapsedTime(at: endDate),
            uuid: HKWorkout.uuid(from: metadata), metadata: metadata,
            totalDistance: distance.isEmpty
                ? nil : HKQuantity(unit: .meter(), doubleValue: distance.reduce(0) { $0 + $1.doubleValue(for: .meter()) }),
            totalEnergyBurned: statistics(for: HKQuantityType(.activeEnergyBurned))?.sumQuantity(), events: workoutEvents)
        switch healthStore.call(HealthRequest.Save { $0.workout = HKHealthStore.item(workout) }) {
        case .success:
            finished = true
            completion(workout, nil)
        case let .failure(error):
            completion(nil, error)
        }
    }

    /// Forgets what was collected; nothing is saved.
    open func discardWorkout() {
        finished = true
    }

    // MARK: - For the live builder

    /// Samples of `types` were added.
    func didCollect(_ types: Set<HKSampleType>) {}
    /// Events were added.
    func didCollectEvents() {}

    // MARK: - As Swift's concurrency imports them

    open func beginCollection(at startDate: Date) async throws {
        try await Self.awaiting { done in self.beginCollection(withStart: startDate, completion: done) }
    }

    open func add(_ samples: [HKSample]) async throws {
        try await Self.awaiting { done in self.add(samples, completion: done) }
    }

    open func addWorkoutEvents(_ workoutEvents: [HKWorkoutEvent]) async throws {
        try await Self.awaiting { done in self.addWorkoutEvents(workoutEvents, completion: done) }
    }

    open func addMetadata(_ metadata: [String: Any]) async throws {
        nonisolated(unsafe) let metadata = metadata
        try await Self.awaiting { done in self.addMetadata(metadata, completion: done) }
    }

    open func endCollection(at endDate: Date) async throws {
        try await Self.awaiting { done in self.endCollection(withEnd: endDate, completion: done) }
    }

    open func finishWorkout() async throws -> HKWorkout? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HKWorkout?, any Error>) in
            finishWorkout { workout, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: workout) }
            }
        }
    }

    /// A `(Bool, Error?)` completion, awaited: throws its error.
    static func awaiting(_ call: (@escaping (Bool, (any Error)?) -> Void) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            call { success, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if success {
                    continuation.resume()
                } else {
                    continuation.resume(throwing: HKError(.errorInvalidArgument, message: "the builder refused the call"))
                }
            }
        }
    }
}
