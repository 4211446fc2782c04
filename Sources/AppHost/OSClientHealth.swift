import Control
import OSServices
import JSONText

/// The app's Health store when its OS runs in another process: `os-health-save`, `os-health-authorize`
/// and `health` on the OS's control socket, answered before the call returns.
extension OSClient: HealthService {
    @discardableResult
    func saveWorkout(_ workout: HealthWorkoutItem) throws -> Bool {
        let request = ControlCommands.osHealthSave.request { $0[ControlCommands.OSHealth.workout] = workout.json }
        do {
            return try send(request, as: HealthSaveReply.self).inserted
        } catch let error as ControlError where error.exitStatus == 2 {
            throw HealthStore.InvalidWorkout(description: error.message)
        }
    }

    func healthWorkouts() throws -> [HealthWorkoutItem] {
        try send(ControlRequest(ControlCommands.health), as: HealthReply.self).workouts
    }

    func activeWorkoutSession() throws -> HealthSessionItem? {
        try send(ControlRequest(ControlCommands.osHealthSession), as: HealthSessionReply.self).session
    }

    func setActiveWorkoutSession(_ session: HealthSessionItem?) throws {
        let request = ControlCommands.osHealthSessionSet.request { request in
            if let session { request[ControlCommands.OSHealth.session] = session.json }
        }
        do {
            _ = try send(request, as: HealthSessionReply.self)
        } catch let error as ControlError where error.exitStatus == 2 {
            throw HealthStore.InvalidWorkout(description: error.message)
        }
    }

    func authorizeHealth(share: [String], read: [String]) throws {
        let request = ControlCommands.osHealthAuthorize.request {
            $0[ControlCommands.OSHealth.share] = .array(share.map(JSONValue.string))
            $0[ControlCommands.OSHealth.read] = .array(read.map(JSONValue.string))
        }
        _ = try send(request, as: HealthSaveReply.self)
    }
}
