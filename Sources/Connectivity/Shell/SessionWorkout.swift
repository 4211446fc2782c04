import Posix
import PropertyLists

// MARK: - Workout traffic: the system's, not the app's

extension Session {
    /// Sends a `workout` frame (HealthKit's side channel for a mirrored workout: `startWorkout` from the
    /// phone's `startWatchApp(toHandle:)`, the watch's `workoutStarted`/`workoutFailed`, `stopWorkout`).
    /// Not a userInfo and not a message: nothing is queued, nothing is retried. False if the link is down.
    @discardableResult
    package func sendWorkoutEvent(_ event: UserInfo) -> Bool {
        guard let channel, activationState == .activated else { return false }
        channel.send(Frame(.workout, PropertyListCodec.encode(event)).encoded)
        logger.debug("link.workout-sent", ["kind": event["kind"]?.stringValue ?? "?"])
        return true
    }

    func receiveWorkoutFrame(_ payload: [UInt8], from source: LinkChannel) {
        guard let event = try? PropertyListCodec.decodeDictionary(payload), event["kind"]?.stringValue != nil else {
            protocolViolation(source, "a workout frame that is not a dictionary with a kind")
            return
        }
        onWorkoutEvent?(event)
    }
}
