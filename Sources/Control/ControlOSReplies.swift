import JSONText

// MARK: - The OS's notification centre, as the app's process and the tests ask it

/// `notification-add` (a test's notification): the id added, and the ids the 64 cap dropped.
package struct NotificationAddReply: ControlReply {
    package var added: String
    package var dropped: [String]
    package init(added: String, dropped: [String]) {
        self.added = added
        self.dropped = dropped
    }
}

/// `os-notifications-replace`: the ids the 64 cap dropped.
package struct NotificationsReplaceReply: ControlReply {
    package var dropped: [String]
    package init(dropped: [String]) { self.dropped = dropped }
}

/// `os-notifications-remove-delivered`: done.
package struct RemoveDeliveredReply: ControlReply {
    package var removed: Bool
    package init() { removed = true }
}

/// The device clock as the OS tells the running app: `os-attach-app`'s reply, then an event each time it
/// changes. The app's client keeps it, so that reading device time costs no round trip.
package struct OSClockEvent: ControlReply {
    /// `clock`.
    package var event: String
    /// `running` or `frozen`.
    package var mode: String
    package var offsetSeconds: Double
    /// Seconds since 1970.
    package var now: Double
    package init(mode: String, offsetSeconds: Double, now: Double) {
        self.event = "clock"
        self.mode = mode
        self.offsetSeconds = offsetSeconds
        self.now = now
    }
}

// MARK: - Several watches

/// `switch-watch`: the active watch now, and whether this switched it; when it did, the watch that was
/// active before (null: none) and who switched (the app's session, or phone-os while the app is down).
package struct SwitchWatchReply: ControlReply {
    package var switched: Bool
    package var activeWatch: String
    package var watchHome: String
    package var previousWatch: String?
    package var by: String?
    /// One sentence for people.
    package var message: String

    package init(switched: Bool, activeWatch: String, watchHome: String, previousWatch: String? = nil, by: String? = nil, message: String) {
        self.switched = switched
        self.activeWatch = activeWatch
        self.watchHome = watchHome
        self.previousWatch = previousWatch
        self.by = by
        self.message = message
    }

    private enum CodingKeys: String, CodingKey { case switched, activeWatch, watchHome, previousWatch, by, message }

    /// Written by hand for one field: a switch says `previousWatch` always (null when no watch was active),
    /// an answer that switched nothing never; `@NullIfNil` cannot leave a member out.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(switched, forKey: .switched)
        try container.encode(activeWatch, forKey: .activeWatch)
        try container.encode(watchHome, forKey: .watchHome)
        try container.encode(message, forKey: .message)
        guard switched else { return }
        try container.encodeIfPresent(by, forKey: .by)
        if let previousWatch { try container.encode(previousWatch, forKey: .previousWatch) } else { try container.encodeNil(forKey: .previousWatch) }
    }
}

// MARK: - Fault injection (test commands)

/// `store-limit`: the store's cap in pages now (0: none).
package struct StoreLimitReply: ControlReply {
    package var pages: Int64
    package init(pages: Int64) { self.pages = pages }
}

/// `inbox-space-limit`: the bytes a file arriving may take now (0: no limit).
package struct InboxSpaceLimitReply: ControlReply {
    package var bytes: Int64
    package init(bytes: Int64) { self.bytes = bytes }
}

/// `receive-hold`: whether the device has stopped reading the link.
package struct ReceiveHoldReply: ControlReply {
    package var held: Bool
    package init(held: Bool) { self.held = held }
}

/// `workout-fault`: how the watch now answers a workout start (`refuse`, `ignore` or `none`).
package struct WorkoutFaultReply: ControlReply {
    package var workoutStart: String
    package init(workoutStart: String) { self.workoutStart = workoutStart }
}

/// `test-run-state`: whether the phone now pretends a run is in progress.
package struct TestRunStateReply: ControlReply {
    package var running: Bool
    package init(running: Bool) { self.running = running }
}
