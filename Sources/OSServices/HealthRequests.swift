import Control

// MARK: - The Health store's answers

/// What the OS does with each call of an app's `HKHealthStore` (`HealthRequest`, declared with its
/// command in `Control/Commands/OSHealthRequests.swift`), wherever the OS runs.
extension HealthRequest.Save: OSRequest {
    package func answer(by os: SystemServices) throws -> HealthSaveReply {
        let inserted = try os.health.save(workout, at: os.clock.now)
        os.logger.notice("health.workout-saved", ["uuid": workout.uuid, "inserted": inserted, "activityType": workout.activityType])
        return HealthSaveReply(inserted: inserted)
    }
}

extension HealthRequest.Workouts: OSRequest {
    package func answer(by os: SystemServices) throws -> HealthReply { HealthReply(workouts: try os.health.workouts()) }
}

extension HealthRequest.Authorize: OSRequest {
    package func answer(by os: SystemServices) throws -> HealthSaveReply {
        try os.health.authorize(share: share, read: read, at: os.clock.now)
        os.logger.info("health.authorized", ["share": share.count, "read": read.count])
        return HealthSaveReply(inserted: true)
    }
}

extension HealthRequest.Session: OSRequest {
    package func answer(by os: SystemServices) throws -> HealthSessionReply { HealthSessionReply(session: try os.health.activeSession()) }
}

extension HealthRequest.SetSession: OSRequest {
    package func answer(by os: SystemServices) throws -> HealthSessionReply {
        try os.health.setActiveSession(session)
        return HealthSessionReply(session: session)
    }
}

extension HealthStore.InvalidWorkout: OSRefusal {}
