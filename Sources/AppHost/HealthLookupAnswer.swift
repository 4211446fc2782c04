import Control
import OSServices
import PropertyLists

/// The watch's Health store as the phone reads it (issue 51): HealthKit's data is synced between the
/// watch and the phone on Apple's devices; here the phone's `HKSampleQuery` reads the watch's store over
/// the link at query time instead (docs/protocol.md's differences table). Two `workout` frames, system
/// traffic like `startWatchApp`:
///
/// - `{kind: healthLookup, id, key?, values?}` from the phone: the workouts whose metadata `key` is one of
///   `values` (all of them without a key), at most `HealthLookupAnswer.maximumWorkouts`, newest saved first;
/// - `{kind: healthLookupResult, id, workouts: [{uuid, activityType, startDate, endDate, duration,
///   metadata}]}` from whoever holds the watch's link: the watch app's process (its OS's store through its
///   channel), or watch-os while the app is not running — deleted included, since a deleted app's saved
///   workouts stay in the watch's Health, as on watchOS.
///
/// Pure but for the reading, which the caller does: the same rule on both holders.
package enum HealthLookupAnswer {
    package static let lookupKind = "healthLookup"
    package static let resultKind = "healthLookupResult"
    /// The most one answer carries (a frame must stay well under the link's limit).
    package static let maximumWorkouts = 100
    /// The most values one look-up names, and their length.
    package static let maximumValues = 100
    package static let maximumValueBytes = 200

    /// What a look-up asks: its id, and the metadata key and values (nil: every workout).
    package struct Question: Equatable, Sendable {
        package var id: String
        package var key: String?
        package var values: [String]?
        package init(id: String, key: String?, values: [String]?) {
            self.id = id
            self.key = key
            self.values = values
        }

        /// The look-up's frame.
        package var event: UserInfo {
            var event: UserInfo = ["kind": .string(HealthLookupAnswer.lookupKind), "id": .string(id)]
            if let key { event["key"] = .string(key) }
            if let values { event["values"] = .array(values.map(PropertyListValue.string)) }
            return event
        }
    }

    /// The look-up `event` asks, or nil if it is not one (or is out of its ranges: then nothing is answered,
    /// and the asker's time-out says so).
    package static func question(_ event: UserInfo) -> Question? {
        guard event["kind"]?.stringValue == lookupKind, let id = event["id"]?.stringValue, !id.isEmpty, id.utf8.count <= 64 else { return nil }
        let key = event["key"]?.stringValue
        let values = array(event["values"])?.compactMap(\.stringValue)
        if let key, key.isEmpty || key.utf8.count > maximumValueBytes { return nil }
        if let values, values.count > maximumValues || values.contains(where: { $0.utf8.count > maximumValueBytes }) { return nil }
        return Question(id: id, key: key, values: values)
    }

    /// The answer to `question` from `workouts` (the store's, oldest saved first).
    package static func answer(_ question: Question, workouts: [HealthWorkoutItem]) -> UserInfo {
        let wanted = question.values.map(Set.init)
        var found: [PropertyListValue] = []
        for workout in workouts.reversed() where found.count < maximumWorkouts {
            if let key = question.key {
                guard let value = workout.metadata[key], wanted?.contains(value) ?? true else { continue }
            }
            found.append(.dictionary(encode(workout)))
        }
        return ["kind": .string(resultKind), "id": .string(question.id), "workouts": .array(found)]
    }

    private static func array(_ value: PropertyListValue?) -> [PropertyListValue]? {
        if case .array(let items) = value { items } else { nil }
    }

    static func encode(_ workout: HealthWorkoutItem) -> UserInfo {
        [
            "uuid": .string(workout.uuid), "activityType": .string(workout.activityType), "startDate": .real(workout.startDate),
            "endDate": .real(workout.endDate), "duration": .real(workout.duration),
            "metadata": .dictionary(workout.metadata.mapValues(PropertyListValue.string)),
        ]
    }

    /// The workouts of an answer (each checked as the Health store checks a save; others left out), and
    /// its id; nil if `event` is not an answer.
    package static func result(_ event: UserInfo) -> (id: String, workouts: [HealthWorkoutItem])? {
        guard event["kind"]?.stringValue == resultKind, let id = event["id"]?.stringValue else { return nil }
        var workouts: [HealthWorkoutItem] = []
        for value in (array(event["workouts"]) ?? []).prefix(maximumWorkouts) {
            guard let item = value.dictionaryValue, let uuid = item["uuid"]?.stringValue, let type = item["activityType"]?.stringValue,
                let start = item["startDate"]?.doubleValue, let end = item["endDate"]?.doubleValue, let duration = item["duration"]?.doubleValue
            else { continue }
            let metadata = (item["metadata"]?.dictionaryValue ?? [:]).compactMapValues(\.stringValue)
            let workout = HealthWorkoutItem(uuid: uuid, activityType: type, startDate: start, endDate: end, duration: duration, metadata: metadata)
            if HealthStore.problem(with: workout) == nil { workouts.append(workout) }
        }
        return (id, workouts)
    }
}

extension DeviceHost {
    /// On the watch: answers the phone's Health look-ups from the OS's store (through the app's channel to
    /// it), on the link the app's session holds. Registered at start-up, whatever the app.
    func answerHealthLookups() {
        guard configuration.role == .watch else { return }
        systemWorkoutHandlers.append { [unowned self] event in
            guard event["kind"]?.stringValue == HealthLookupAnswer.lookupKind else { return false }
            guard let question = HealthLookupAnswer.question(event), let channel = osChannel else {
                logger.warning("health.lookup-refused", ["why": "malformed, or no Health store"])
                return true
            }
            do {
                let workouts = try channel.call(HealthRequest.Workouts()).workouts
                _ = session?.sendWorkoutEvent(HealthLookupAnswer.answer(question, workouts: workouts))
                logger.info("health.lookup-answered", ["id": question.id, "values": question.values?.count ?? -1])
            } catch {
                logger.warning("health.lookup-failed", ["id": question.id, "error": "\(error)"])
            }
            return true
        }
    }
}
