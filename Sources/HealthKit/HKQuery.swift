import AppHost
import Control
import Foundation
import PropertyLists

/// A query of the Health store (HealthKit's `HKQuery`): run it with `HKHealthStore.execute(_:)`.
open class HKQuery: NSObject, @unchecked Sendable {
    /// The type of the objects it finds.
    public let objectType: HKObjectType?
    /// The type of the samples it finds.
    public var sampleType: HKSampleType? { objectType as? HKSampleType }
    /// Which objects it keeps (nil: every one of its type).
    public let predicate: NSPredicate?

    init(objectType: HKObjectType?, predicate: NSPredicate?) {
        self.objectType = objectType
        self.predicate = predicate
        super.init()
    }

    /// The objects whose metadata holds `key` with one of `allowedValues` (Apple: strings, numbers or dates;
    /// compared here by their text).
    open class func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
        HKMetadataPredicate(key: key, values: allowedValues.map { "\($0)" })
    }

    /// The objects whose metadata holds `key`.
    open class func predicateForObjects(withMetadataKey key: String) -> NSPredicate { HKMetadataPredicate(key: key, values: nil) }
}

/// No limit on a query's results (HealthKit's `HKObjectQueryNoLimit`).
public let HKObjectQueryNoLimit: Int = 0

/// The samples of one type a predicate keeps, at most `limit` (HealthKit's `HKSampleQuery`), handed to
/// `resultsHandler` once, on the device's thread, after `execute(_:)` returns.
///
/// The Health store holds workouts only, so a query of another type finds none. On the phone the results
/// are the phone's workouts and the paired watch's: on Apple's devices the watch's Health data syncs to
/// the phone; here the phone reads the watch's store over the link when the query runs
/// (`HealthLookupAnswer`), so a query made while the watch is out of reach fails with
/// `errorHealthDataUnavailable` rather than answer with part of the data (docs/protocol.md's
/// differences). `sortDescriptors` are not applied (corelibs Foundation has no key-value coding): the
/// results come oldest saved first.
open class HKSampleQuery: HKQuery, @unchecked Sendable {
    public let limit: Int
    public let sortDescriptors: [NSSortDescriptor]?
    let resultsHandler: @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void
    private let lock = NSLock()
    private var stopped = false

    public init(
        sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
        resultsHandler: @escaping @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void
    ) {
        self.limit = limit
        self.sortDescriptors = sortDescriptors
        self.resultsHandler = resultsHandler
        super.init(objectType: sampleType, predicate: predicate)
    }

    /// `HKHealthStore.stop(_:)`: its handler is not called after this.
    func stop() { lock.withLock { stopped = true } }

    /// Hands the results (or the error) to the handler, once, unless stopped.
    func finish(_ samples: [HKSample]?, _ error: (any Error)?) {
        let deliver = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if deliver { resultsHandler(self, samples, error) }
    }

    /// The workouts of `items` this query keeps, at most `limit`.
    func kept(_ items: [HealthWorkoutItem]) -> [HKSample] {
        guard sampleType?.identifier == HKObjectType.workoutType().identifier else { return [] }
        var samples: [HKSample] = []
        var seen: Set<String> = []
        for item in items where seen.insert(item.uuid).inserted {
            let workout = HKHealthStore.workout(item)
            guard predicate.map({ $0.evaluate(with: workout) }) ?? true else { continue }
            samples.append(workout)
            if limit > 0, samples.count == limit { break }
        }
        return samples
    }

    /// What the watch is asked for this query: the metadata predicate's key and values, else every workout.
    var lookup: (key: String?, values: [String]?) {
        guard let metadata = predicate as? HKMetadataPredicate else { return (nil, nil) }
        return (metadata.key, metadata.values.map { Array($0.prefix(HealthLookupAnswer.maximumValues)) })
    }
}

/// `predicateForObjects(withMetadataKey:…)`: kept as its key and values, so the watch's store can be asked
/// for them.
final class HKMetadataPredicate: NSPredicate {
    let key: String
    let values: [String]?

    init(key: String, values: [String]?) {
        self.key = key
        self.values = values
        super.init(value: true)
    }

    required init?(coder: NSCoder) { nil }

    override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
        guard let value = (object as? HKObject)?.metadata?[key] else { return false }
        guard let values else { return true }
        return values.contains("\(value)")
    }
}

extension HKHealthStore {
    /// A kept workout as HealthKit hands it back.
    static func workout(_ item: HealthWorkoutItem) -> HKWorkout {
        HKWorkout(
            activityType: HKWorkoutActivityType(name: item.activityType) ?? .other, start: Date(timeIntervalSince1970: item.startDate),
            end: Date(timeIntervalSince1970: item.endDate), duration: item.duration, uuid: UUID(uuidString: item.uuid) ?? UUID(),
            metadata: item.metadata)
    }

    /// Runs `query`: this store's workouts and, on a phone with a paired watch, the watch's (above).
    func run(_ query: HKSampleQuery) {
        let local: [HealthWorkoutItem]
        switch call(HealthRequest.Workouts()) {
        case .success(let reply): local = reply.workouts
        case .failure(let error):
            return deliver { query.finish(nil, error) }
        }
        guard fixed == nil, let host = DeviceHost.current ?? DeviceHost.fromEnvironment(), host.configuration.role == .phone else {
            return deliver { query.finish(query.kept(local), nil) }
        }
        // Whether a watch is paired is known once the session is activated: before, the query cannot say
        // it has every workout (a phone with no watch paired answers from its own store).
        let (activated, paired) = host.mailbox.sync { (host.session?.activationState == .activated, host.session?.isPaired ?? false) }
        guard activated else {
            let error = HKError(.errorHealthDataUnavailable, message: "the paired watch's Health data cannot be read before the session is activated")
            return deliver { query.finish(nil, error) }
        }
        guard paired, let lookups = HealthLookups.shared() else { return deliver { query.finish(query.kept(local), nil) } }
        let (key, values) = query.lookup
        lookups.ask(key: key, values: values) { result in
            switch result {
            case .success(let watch): query.finish(query.kept(local + watch), nil)
            case .failure(let error): query.finish(nil, error)
            }
        }
    }

    /// Runs `body` on the device's thread after the caller returns (on the calling thread without a device).
    private func deliver(_ body: @escaping @Sendable () -> Void) {
        guard fixed == nil, let host = DeviceHost.current ?? DeviceHost.fromEnvironment() else { return body() }
        host.mailbox.post(body)
    }
}

/// The phone's look-ups of the watch's Health store in flight: each sent once as a `healthLookup` frame,
/// answered by whoever holds the watch's link (`HealthLookupAnswer`), failed with
/// `errorHealthDataUnavailable` when the link is down or no answer came within `timeoutMilliseconds`.
/// Lives on the device's thread.
final class HealthLookups: @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: HealthLookups?

    static func shared() -> HealthLookups? {
        if let existing = lock.withLock({ made }) { return existing }
        guard let host = DeviceHost.current ?? DeviceHost.fromEnvironment() else { return nil }
        return host.mailbox.sync {
            if let existing = lock.withLock({ made }) { return existing }
            let lookups = HealthLookups(host: host)
            lock.withLock { made = lookups }
            return lookups
        }
    }

    static let timeoutMilliseconds: UInt64 = 5000
    private let host: DeviceHost
    private var waiting: [String: (Result<[HealthWorkoutItem], HKError>) -> Void] = [:]

    private init(host: DeviceHost) {
        self.host = host
        host.systemWorkoutHandlers.append { [unowned self] event in
            guard let (id, workouts) = HealthLookupAnswer.result(event) else { return false }
            waiting.removeValue(forKey: id)?(.success(workouts))
            return true
        }
    }

    /// Asks the watch for its workouts whose metadata `key` is one of `values` (all without a key).
    func ask(key: String?, values: [String]?, _ completion: @escaping (Result<[HealthWorkoutItem], HKError>) -> Void) {
        host.mailbox.post { [self] in
            let question = HealthLookupAnswer.Question(id: UUID().uuidString, key: key, values: values)
            guard host.session?.sendWorkoutEvent(question.event) == true else {
                return completion(.failure(HKError(.errorHealthDataUnavailable, message: "the paired watch's Health data cannot be read: it is out of reach")))
            }
            waiting[question.id] = completion
            _ = host.loop.schedule(afterMilliseconds: Self.timeoutMilliseconds) { [weak self] in
                let error = HKError(
                    .errorHealthDataUnavailable, message: "the paired watch did not answer for its Health data within \(Self.timeoutMilliseconds) ms")
                self?.waiting.removeValue(forKey: question.id)?(.failure(error))
            }
        }
    }
}
