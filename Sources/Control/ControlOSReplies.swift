import JSONText

// MARK: - The OS's notification centre, as the app's process and the tests ask it

/// `notification-add` (a test's notification): the id added, and the ids the 64 cap dropped.
public struct NotificationAddReply: ControlReply {
    public var added: String
    public var dropped: [String]
    public init(added: String, dropped: [String]) {
        self.added = added
        self.dropped = dropped
    }
}

/// `os-notifications-replace`: the ids the 64 cap dropped.
public struct NotificationsReplaceReply: ControlReply {
    public var dropped: [String]
    public init(dropped: [String]) { self.dropped = dropped }
}

/// `os-notifications-remove-delivered`: done.
public struct RemoveDeliveredReply: ControlReply {
    public var removed: Bool
    public init() { removed = true }
}

/// The device clock as the OS tells the running app: `os-attach-app`'s reply, then an event each time it
/// changes. The app's client keeps it, so that reading device time costs no round trip.
public struct OSClockEvent: ControlReply {
    /// `clock`.
    public var event: String
    /// `running` or `frozen`.
    public var mode: String
    public var offsetSeconds: Double
    /// Seconds since 1970.
    public var now: Double
    public init(mode: String, offsetSeconds: Double, now: Double) {
        self.event = "clock"
        self.mode = mode
        self.offsetSeconds = offsetSeconds
        self.now = now
    }
}

// MARK: - Several watches

/// `switch-watch`: the active watch now, and whether this switched it; when it did, the watch that was
/// active before (null: none) and who switched (the app's session, or phone-os while the app is down).
public struct SwitchWatchReply: ControlReply {
    public var switched: Bool
    public var activeWatch: String
    public var watchHome: String
    public var previousWatch: String?
    public var by: String?
    /// One sentence for people.
    public var message: String

    public init(switched: Bool, activeWatch: String, watchHome: String, previousWatch: String? = nil, by: String? = nil, message: String) {
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
    public func encode(to encoder: any Encoder) throws {
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
public struct StoreLimitReply: ControlReply {
    public var pages: Int64
    public init(pages: Int64) { self.pages = pages }
}

/// `inbox-space-limit`: the bytes a file arriving may take now (0: no limit).
public struct InboxSpaceLimitReply: ControlReply {
    public var bytes: Int64
    public init(bytes: Int64) { self.bytes = bytes }
}

/// `receive-hold`: whether the device has stopped reading the link.
public struct ReceiveHoldReply: ControlReply {
    public var held: Bool
    public init(held: Bool) { self.held = held }
}

/// `workout-fault`: how the watch now answers a workout start (`refuse`, `ignore` or `none`).
public struct WorkoutFaultReply: ControlReply {
    public var workoutStart: String
    public init(workoutStart: String) { self.workoutStart = workoutStart }
}

/// `test-run-state`: whether the phone now pretends a run is in progress.
public struct TestRunStateReply: ControlReply {
    public var running: Bool
    public init(running: Bool) { self.running = running }
}

/// One workout in a device's Health store (HealthKit's `HKWorkout` as the OS keeps it): `health`'s
/// listing, and what the app's `HKHealthStore` hands its OS to save (`os-health-save`).
public struct HealthWorkoutItem: ControlRecord {
    /// The workout's `uuid`, upper case: the store keeps each once.
    public var uuid: String
    /// `HKWorkoutActivityType`'s name: `running`, `walking`, `cycling`, `other`.
    public var activityType: String
    /// Seconds since 1970.
    public var startDate: Double
    public var endDate: Double
    public var duration: Double
    /// String values only (HealthKit's metadata keys, e.g. `HKExternalUUID`).
    public var metadata: [String: String]
    /// When the OS stored it, on the device clock (the listing only).
    public var savedAt: Double?

    public init(
        uuid: String, activityType: String, startDate: Double, endDate: Double, duration: Double, metadata: [String: String], savedAt: Double? = nil
    ) {
        self.uuid = uuid
        self.activityType = activityType
        self.startDate = startDate
        self.endDate = endDate
        self.duration = duration
        self.metadata = metadata
        self.savedAt = savedAt
    }
}

/// `health`: the device's Health store, oldest saved first.
public struct HealthReply: ControlReply {
    public var workouts: [HealthWorkoutItem]
    public init(workouts: [HealthWorkoutItem]) { self.workouts = workouts }
}

/// `os-health-save`: whether the workout was stored now (`false`: a workout with its uuid already was).
public struct HealthSaveReply: ControlReply {
    public var inserted: Bool
    public init(inserted: Bool) { self.inserted = inserted }
}

/// The workout session running on a device, as its OS keeps it for `recoverActiveWorkoutSession`
/// (`os-health-session`'s reply, `os-health-session-set`'s argument).
public struct HealthSessionItem: ControlRecord {
    /// `HKWorkoutActivityType`'s name.
    public var activityType: String
    /// `HKWorkoutSessionLocationType`'s raw value.
    public var locationType: Int64
    /// Seconds since 1970.
    public var startDate: Double
    public init(activityType: String, locationType: Int64, startDate: Double) {
        self.activityType = activityType
        self.locationType = locationType
        self.startDate = startDate
    }
}

/// `os-health-session`: the running session, or none.
public struct HealthSessionReply: ControlReply {
    @NullIfNil public var session: HealthSessionItem?
    public init(session: HealthSessionItem?) { self.session = session }
}
