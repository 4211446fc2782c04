import Control
import Posix

// MARK: - The OS's services, on either device: the notification centre, the Health store

extension Render {
    static let osServices: [Render] = [
        .of(NotificationRequest.List.self) { reply, _, _ in
            (["pending (\(reply.pending.count) of at most \(reply.pendingLimit))"] + reply.pending.map { "  " + NotificationText.line($0, at: $0.fireAt) }
                + ["delivered (\(reply.delivered.count))"] + reply.delivered.map { "  " + NotificationText.line($0, at: $0.deliveredAt) })
                .joined(separator: "\n")
        },
        .of(NotificationRequest.Open.self) { reply, _, _ in "opened \(reply.opened): the app hears \(reply.actionIdentifier)" },
        .of(HealthRequest.Workouts.self) { reply, _, _ in
            (["workouts (\(reply.workouts.count))"]
                + reply.workouts.map { workout in
                    let minutes = Int(workout.duration) / 60, seconds = Int(workout.duration) % 60
                    return
                        "  \(workout.uuid)  \(workout.activityType)  \(Timestamp.iso8601(workout.startDate))  \(minutes):\(seconds < 10 ? "0" : "")\(seconds)"
                }).joined(separator: "\n")
        },
    ]
}

enum NotificationText {
    /// `2026-10-08 16:00  runway.reminder.7d  일주일째 …`
    static func line(_ item: NotificationItem, at date: String?) -> String {
        "\(date.flatMap(Timestamp.parseISO8601).map(minutes) ?? "?")  \(item.id)  \(item.body)"
    }

    /// `2026-10-08 16:00` in local time.
    static func minutes(_ seconds: Double) -> String { String(TimeText.localDateTime(seconds).prefix(16)) }
}
