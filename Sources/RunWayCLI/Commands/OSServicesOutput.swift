import Connectivity
import Control
import JSONText
import Posix

// MARK: - The OS's services, on either device: the notification centre, the Health store

extension NotificationRequest.List: CLIOutput {
    static func render(_ reply: NotificationsReply, of command: Self, _ context: DerivedCLI.Context) -> String {
        var lines = ["pending (\(reply.pending.count) of at most \(reply.pendingLimit))"]
        lines += reply.pending.map { "  " + NotificationText.line($0, at: $0.fireAt) }
        lines.append("delivered (\(reply.delivered.count))")
        lines += reply.delivered.map { "  " + NotificationText.line($0, at: $0.deliveredAt) }
        return lines.joined(separator: "\n")
    }
}

extension NotificationRequest.Open: CLIOutput {
    static func render(_ reply: NotificationOpenReply, of command: Self, _ context: DerivedCLI.Context) -> String {
        "opened \(reply.opened): the app hears \(reply.actionIdentifier)"
    }
}

extension HealthRequest.Workouts: CLIOutput {
    static func render(_ reply: HealthReply, of command: Self, _ context: DerivedCLI.Context) -> String {
        var lines = ["workouts (\(reply.workouts.count))"]
        for workout in reply.workouts {
            let minutes = Int(workout.duration) / 60, seconds = Int(workout.duration) % 60
            lines.append("  \(workout.uuid)  \(workout.activityType)  \(Timestamp.iso8601(workout.startDate))  \(minutes):\(seconds < 10 ? "0" : "")\(seconds)")
        }
        return lines.joined(separator: "\n")
    }
}

enum NotificationText {
    /// `2026-10-08 16:00  runway.reminder.7d  일주일째 …`
    static func line(_ item: NotificationItem, at date: String?) -> String {
        "\(date.flatMap(Timestamp.parseISO8601).map(minutes) ?? "?")  \(item.id)  \(item.body)"
    }

    /// `2026-10-08 16:00` in local time.
    static func minutes(_ seconds: Double) -> String { String(TimeText.localDateTime(seconds).prefix(16)) }
}
