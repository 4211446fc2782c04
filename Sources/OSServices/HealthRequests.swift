import Control

/// What an app's `HKHealthStore` asks of its device's Health store, wherever the OS runs: each call
/// declared once (`OSRequest`), carried by the app's `OSChannel`.
package enum HealthRequest {
    package static let all: [any OSRequest.Type] = [Save.self, Workouts.self, Authorize.self, Session.self, SetSession.self]

    /// Saves a workout once per uuid; the reply says whether it was stored now.
    package struct Save: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.osHealthSave }
        package var workout: HealthWorkoutItem
        package init(workout: HealthWorkoutItem) { self.workout = workout }

        package func answer(by os: SystemServices) throws -> HealthSaveReply {
            let inserted = try os.health.save(workout, at: os.clock.now)
            os.logger.notice("health.workout-saved", ["uuid": workout.uuid, "inserted": inserted, "activityType": workout.activityType])
            return HealthSaveReply(inserted: inserted)
        }
    }

    /// Every kept workout, oldest saved first (`runway phone|watch health` too).
    package struct Workouts: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.health }
        package init() {}
        package func answer(by os: SystemServices) throws -> HealthReply { HealthReply(workouts: try os.health.workouts()) }
    }

    /// Records the types the user allowed the app to share and read.
    package struct Authorize: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.osHealthAuthorize }
        package var share: [String]
        package var read: [String]
        package init(share: [String], read: [String]) {
            self.share = share
            self.read = read
        }

        package func answer(by os: SystemServices) throws -> HealthSaveReply {
            try os.health.authorize(share: share, read: read, at: os.clock.now)
            os.logger.info("health.authorized", ["share": share.count, "read": read.count])
            return HealthSaveReply(inserted: true)
        }
    }

    /// The workout session running on the device (kept across the app's deaths), or none.
    package struct Session: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.osHealthSession }
        package init() {}
        package func answer(by os: SystemServices) throws -> HealthSessionReply { HealthSessionReply(session: try os.health.activeSession()) }
    }

    /// A workout session started (`session`) or ended (nil).
    package struct SetSession: OSRequest {
        package static var command: ControlCommandSpec { ControlCommands.osHealthSessionSet }
        package var session: HealthSessionItem?
        package init(session: HealthSessionItem?) { self.session = session }

        package func answer(by os: SystemServices) throws -> HealthSessionReply {
            try os.health.setActiveSession(session)
            return HealthSessionReply(session: session)
        }
    }
}

extension HealthStore.InvalidWorkout: OSRefusal {}
