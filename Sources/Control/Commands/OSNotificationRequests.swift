import JSONText

// MARK: - The notification centre, kept by the OS: each call one type (`ControlCommand`), answered as an `OSRequest`

/// What an app's `UNUserNotificationCenter` (and a test) asks of its device's notification centre,
/// wherever the OS runs: each call one type, whose stored properties are its arguments (`Codable`: what
/// `OSChannel` carries). The OS answers each
/// (`OSServices/NotificationRequests.swift`). Deliveries come the other way, told to the running app
/// (`NotificationItem`, an `OSEvent`).
package enum NotificationRequest {
    /// This family, in the catalogue's order (`ControlCommands.osServiceCommands`).
    package static let commands: [any ControlCommand.Type] = [
        List.self, Add.self, Replace.self, RemoveDelivered.self, Open.self, TakeResponses.self,
    ]

    /// `notifications`: the pending requests, by fire date, and the delivered notifications (`runway
    /// phone|watch notifications` too).
    package struct List: ControlCommand {
        package typealias Reply = NotificationsReply
        package static let spec = ControlCommandSpec(Self.self, "notifications", ControlCommands.os, "the notification centre: pending and delivered")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.os, ["notifications"]) { device, _ in
            """
            The \(device)'s notification centre: pending requests (at most 64) by fire date, and the delivered
            ones (the last 1000) in delivery order, in local time (TZ). Delivery happens when the \(device)'s clock
            reaches a fire date (runway clock), with deliveredAt = fireAt even if the \(device) was down then.
            """
        }
        package init() {}
    }

    /// TEST ONLY (`notification-add`): a notification `inSeconds` of device time ahead, so the centre's
    /// rules (the 64 cap, replacement, future-only) can be exercised through the binaries.
    package struct Add: ControlCommand {
        package typealias Reply = NotificationAddReply
        @Argument(.string(bytes: 1...200), "the notification's id") package var id: String
        @Argument(.number(-1e10...1e10), "it fires this many seconds of device time from now") package var inSeconds: Double
        @Argument(.string(bytes: 0...ControlCommands.textBytes), "its text (default: the id)") package var body: String?
        package static let spec = ControlCommandSpec(
            Self.self, "notification-add", ControlCommands.os, errors: [.invalid("the notification would fire now or in the past")],
            "add a notification: for the tests of the centre's rules")
        package init() {}
    }

    /// `os-notifications-replace`: removes `remove`, then adds `add`, in one transaction; the reply names
    /// the ids the 64 cap dropped.
    package struct Replace: ControlCommand {
        package typealias Reply = NotificationsReplaceReply
        @Argument(.array, "ids of pending requests to remove") package var remove: [String] = []
        @Argument(.array, "[{id, fireAt (seconds since 1970), title, body, language}, …]") package var add: [Pending] = []
        package static let spec = ControlCommandSpec(
            Self.self, "os-notifications-replace", [.phoneOS, .watchOS], errors: [.invalid("a request is malformed, or would fire now or in the past")],
            "the app's notification centre: remove pending requests, then add these, in one transaction")
        package init() {}
    }

    /// `os-notifications-remove-delivered`: forgets delivered notifications: these, or all (nil).
    package struct RemoveDelivered: ControlCommand {
        package typealias Reply = RemoveDeliveredReply
        @Argument(.array, "the ids to forget (default: all)") package var ids: [String]?
        package static let spec = ControlCommandSpec(
            Self.self, "os-notifications-remove-delivered", [.phoneOS, .watchOS], "forget delivered notifications (these, or all)")
        package init() {}
    }

    /// `notification-open`: the simulated user opens (taps) a delivered notification (`runway phone|watch
    /// notifications open ID`). It leaves the delivered list, the OS brings the app to the foreground
    /// (launching it if it is not running), and the app's `UNUserNotificationCenterDelegate` hears
    /// `didReceive` with a response whose action is `UNNotificationDefaultActionIdentifier`.
    package struct Open: ControlCommand {
        package typealias Reply = NotificationOpenReply
        @Argument(.string(bytes: 1...200), "the delivered notification's id", cli: .positional("ID")) package var id: String
        package static let spec = ControlCommandSpec(
            Self.self, "notification-open", ControlCommands.os, errors: [.failure("no delivered notification has this id (runway … notifications lists them)")],
            "the user opens a delivered notification: the app comes to the foreground and its delegate hears didReceive")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.os, ["notifications", "open"]) { device, _ in
            """
            The user opens (taps) the delivered notification ID: it leaves the delivered list, the \(device)'s app
            comes to the foreground (launched if it is not running), and its UNUserNotificationCenterDelegate
            hears userNotificationCenter(_:didReceive:withCompletionHandler:) with the default action
            (UNNotificationDefaultActionIdentifier). Exit 1 if no delivered notification has that id.
            """
        }
        package init() {}
    }

    /// `os-notification-responses`: the running app takes the user's responses the OS holds for it (each
    /// is handed once; those of an app that ended before taking them are dropped, as on iOS).
    package struct TakeResponses: ControlCommand {
        package typealias Reply = NotificationResponsesReply
        package static let spec = ControlCommandSpec(
            Self.self, "os-notification-responses", [.phoneOS, .watchOS], "the app takes the user's responses to its notifications (each once)")
        package init() {}
    }

    /// A pending request, as `UNNotificationRequest` with a date trigger holds it (the OS's centre calls it
    /// `UserNotificationCenter.Request`); as the app sends it, `{id, fireAt (seconds), title, body,
    /// language}` — when it was added is the OS's to say.
    package struct Pending: Equatable, Sendable, Codable {
        package var id: String
        package var fireAt: Double
        package var title: String
        package var body: String
        package var language: String
        package var addedAt: Double = 0

        package init(id: String, fireAt: Double, title: String, body: String, language: String) {
            self.id = id
            self.fireAt = fireAt
            self.title = title
            self.body = body
            self.language = language
        }

        private enum CodingKeys: String, CodingKey { case id, fireAt, title, body, language }
    }
}

// MARK: - The user's responses

/// `notification-open`'s reply: the notification opened, and the app's state the OS left it in.
package struct NotificationOpenReply: ControlReply {
    package var opened: String
    package var actionIdentifier: String
    package init(opened: String, actionIdentifier: String) {
        self.opened = opened
        self.actionIdentifier = actionIdentifier
    }
}

/// The user's response to a delivered notification, as the OS holds it for the app: the notification as
/// the centre's listing gives it, and the action (`com.apple.UNNotificationDefaultActionIdentifier`).
package struct NotificationResponseItem: ControlRecord {
    package var notification: NotificationItem
    package var actionIdentifier: String
    package init(notification: NotificationItem, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }
}

/// `os-notification-responses`: the responses held for the app, in the order the user gave them.
package struct NotificationResponsesReply: ControlReply {
    package var responses: [NotificationResponseItem]
    package init(responses: [NotificationResponseItem]) { self.responses = responses }
}

/// The OS tells the running app that a response waits for it (it then takes them: `TakeResponses`).
package struct NotificationResponseWaiting: ControlRecord {
    package var id: String
    package init(id: String) { self.id = id }
}

extension NotificationResponseItem {
    /// Apple's action identifiers (`UNNotificationDefaultActionIdentifier`, `…Dismiss…`).
    package static let defaultAction = "com.apple.UNNotificationDefaultActionIdentifier"
    package static let dismissAction = "com.apple.UNNotificationDismissActionIdentifier"
}
