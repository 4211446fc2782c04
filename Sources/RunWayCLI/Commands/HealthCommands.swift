import Connectivity
import Control
import JSONText
import Posix

/// `runway phone health` and `runway watch health`: the device's Health store, kept by its OS.
enum HealthCommands {
    static let all = [command(.phone), command(.watch)]

    static func command(_ role: DeviceRole) -> CLI.Command {
        CLI.Command(
            path: [role.rawValue, "health"],
            synopsis: "--home \(role == .phone ? "P" : "W") [--json]",
            summary: """
                The \(role.rawValue)'s Health store: every workout an app saved through HealthKit (HKHealthStore.save,
                HKLiveWorkoutBuilder.finishWorkout), oldest saved first, each kept once per uuid. RunWay saves each
                finished run once, on the device whose workout session recorded it (docs/runs.md).
                """,
            specs: [CLI.homeSpec, CLI.jsonSpec],
            positionals: 0,
            run: { parsed in
                let result = try CLI.client(parsed, role).send(HealthRequest.Workouts())
                if parsed.has("json") { Output.out(result.json.text); return 0 }
                var lines = ["workouts (\(result.workouts.count))"]
                for workout in result.workouts {
                    let minutes = Int(workout.duration) / 60, seconds = Int(workout.duration) % 60
                    let seconds2 = seconds < 10 ? "0\(seconds)" : "\(seconds)"
                    lines.append("  \(workout.uuid)  \(workout.activityType)  \(Timestamp.iso8601(workout.startDate))  \(minutes):\(seconds2)")
                }
                Output.out(lines.joined(separator: "\n"))
                return 0
            })
    }
}
