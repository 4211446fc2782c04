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

    /// The counterpart's frames are taken as they come (`--unsafe-trust-counterpart`, the lanes' rules
    /// before issue 51): HealthKit's mirroring then caps an acknowledgement rather than refuse it.
    package var trustsCounterpart: Bool { core.trustsCounterpart }

    /// A `workout` frame broke its lane's rule (HealthKit's mirroring reads the frame synchronously inside
    /// `receiveWorkoutFrame`, on the session's thread): the link that brought it closes with the logged
    /// `link.protocol-violation`, as for the session's own lanes.
    package func workoutProtocolViolation(_ why: String) {
        guard let channel else { return logger.error("link.protocol-violation", ["reason": why]) }
        protocolViolation(channel, why)
    }

    func receiveWorkoutFrame(_ payload: [UInt8], from source: LinkChannel) {
        guard let event = try? PropertyListCodec.decodeDictionary(payload), event["kind"]?.stringValue != nil else {
            protocolViolation(source, "a workout frame that is not a dictionary with a kind")
            return
        }
        onWorkoutEvent?(event)
    }
}
