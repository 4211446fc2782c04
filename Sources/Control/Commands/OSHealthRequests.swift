import JSONText

// MARK: - The Health store (HealthKit), kept by the OS: each call one type (`ControlCommand`), answered as an `OSRequest`

/// What an app's `HKHealthStore` asks of its device's Health store, wherever the OS runs: each call one
/// type, whose stored properties are its arguments (`Codable`: what `OSChannel` carries). The OS answers each (`OSServices/HealthRequests.swift`).
package enum HealthRequest {
    /// This family, in the catalogue's order (`ControlCommands.osServiceCommands`).
    package static let commands: [any ControlCommand.Type] = [Workouts.self, Save.self, Authorize.self, Session.self, SetSession.self]

    /// `health`: every kept workout, oldest saved first (`runway phone|watch health` too).
    package struct Workouts: ControlCommand {
        package typealias Reply = HealthReply
        package static let spec = ControlCommandSpec(
            Self.self, "health", ControlCommands.os, "the device's Health store: every saved workout, oldest saved first")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.os, ["health"]) { device, _ in
            """
            The \(device)'s Health store: every workout an app saved through HealthKit (HKHealthStore.save,
            HKLiveWorkoutBuilder.finishWorkout), oldest saved first, each kept once per uuid. RunWay saves each
            finished run once, on the device whose workout session recorded it (docs/runs.md).
            """
        }
        package init() {}
    }

    /// `os-health-save`: a workout saved once per uuid; the reply says whether it was stored now.
    package struct Save: ControlCommand {
        package typealias Reply = HealthSaveReply
        @Argument(.object, "{uuid, activityType, startDate, endDate, duration (seconds), metadata {key: string}}") package var workout: HealthWorkoutItem
        package static let spec = ControlCommandSpec(
            Self.self, "os-health-save", [.phoneOS, .watchOS], errors: [.invalid("the workout is malformed")],
            "the app's HKHealthStore: save a workout (once per uuid)")
        package init() {}
    }

    /// `os-health-authorize`: the types the user allowed the app to share and read.
    package struct Authorize: ControlCommand {
        package typealias Reply = HealthSaveReply
        @Argument(.array, "the type identifiers to share") package var share: [String] = []
        @Argument(.array, "the type identifiers to read") package var read: [String] = []
        package static let spec = ControlCommandSpec(
            Self.self, "os-health-authorize", [.phoneOS, .watchOS], "the app's HKHealthStore: record the types the user allowed it to share and read")
        package init() {}
    }

    /// `os-health-session`: the workout session running on the device (kept across the app's deaths), or none.
    package struct Session: ControlCommand {
        package typealias Reply = HealthSessionReply
        package static let spec = ControlCommandSpec(
            Self.self, "os-health-session", [.phoneOS, .watchOS],
            "the app's HKHealthStore: the workout session running on the device, for recoverActiveWorkoutSession")
        package init() {}
    }

    /// `os-health-session-set`: a workout session started (`session`) or ended (nil).
    package struct SetSession: ControlCommand {
        package typealias Reply = HealthSessionReply
        @Argument(.object, "{activityType, locationType, startDate}; left out: none runs") package var session: HealthSessionItem?
        package static let spec = ControlCommandSpec(
            Self.self, "os-health-session-set", [.phoneOS, .watchOS], errors: [.invalid("the session is malformed")],
            "the app's HKHealthStore: a workout session started (the session) or ended (none)")
        package init() {}
    }
}

// MARK: - Its replies and records

extension HealthWorkoutItem {
    /// Every `HKWorkoutActivityType` case's name, as the OS keeps a workout's type (HealthKit's enum maps
    /// each case to its name here: HealthKitSurfaceTests checks the two lists are one).
    package static let activityTypes: [String] = [
        "americanFootball", "archery", "australianFootball", "badminton", "baseball", "basketball", "bowling", "boxing", "climbing", "cricket",
        "crossTraining", "curling", "cycling", "dance", "danceInspiredTraining", "elliptical", "equestrianSports", "fencing", "fishing",
        "functionalStrengthTraining", "golf", "gymnastics", "handball", "hiking", "hockey", "hunting", "lacrosse", "martialArts", "mindAndBody",
        "mixedMetabolicCardioTraining", "paddleSports", "play", "preparationAndRecovery", "racquetball", "rowing", "rugby", "running", "sailing",
        "skatingSports", "snowSports", "soccer", "softball", "squash", "stairClimbing", "surfingSports", "swimming", "tableTennis", "tennis",
        "trackAndField", "traditionalStrengthTraining", "volleyball", "walking", "waterFitness", "waterPolo", "waterSports", "wrestling", "yoga",
        "barre", "coreTraining", "crossCountrySkiing", "downhillSkiing", "flexibility", "highIntensityIntervalTraining", "jumpRope", "kickboxing",
        "pilates", "snowboarding", "stairs", "stepTraining", "wheelchairWalkPace", "wheelchairRunPace", "taiChi", "mixedCardio", "handCycling",
        "discSports", "fitnessGaming", "cardioDance", "socialDance", "pickleball", "cooldown", "swimBikeRun", "transition", "underwaterDiving",
        "other",
    ]
}

/// One workout in a device's Health store (HealthKit's `HKWorkout` as the OS keeps it): `health`'s
/// listing, and what the app's `HKHealthStore` hands its OS to save (`os-health-save`).
package struct HealthWorkoutItem: ControlRecord {
    /// The workout's `uuid`, upper case: the store keeps each once.
    package var uuid: String
    /// `HKWorkoutActivityType`'s case name (`running`, `functionalStrengthTraining`: `activityTypes`).
    package var activityType: String
    /// Seconds since 1970.
    package var startDate: Double
    package var endDate: Double
    package var duration: Double
    /// String values only (HealthKit's metadata keys, e.g. `HKExternalUUID`).
    package var metadata: [String: String]
    /// When the OS stored it, on the device clock (the listing only).
    package var savedAt: Double?

    package init(
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
package struct HealthReply: ControlReply {
    package var workouts: [HealthWorkoutItem]
    package init(workouts: [HealthWorkoutItem]) { self.workouts = workouts }
}

/// `os-health-save`: whether the workout was stored now (`false`: a workout with its uuid already was).
package struct HealthSaveReply: ControlReply {
    package var inserted: Bool
    package init(inserted: Bool) { self.inserted = inserted }
}

/// The workout session running on a device, as its OS keeps it for `recoverActiveWorkoutSession`
/// (`os-health-session`'s reply, `os-health-session-set`'s argument).
package struct HealthSessionItem: ControlRecord {
    /// `HKWorkoutActivityType`'s name.
    package var activityType: String
    /// `HKWorkoutSessionLocationType`'s raw value.
    package var locationType: Int64
    /// Seconds since 1970.
    package var startDate: Double
    /// `HKWorkoutSessionState`'s raw value: running (2), paused (4) or stopped (6); none is running.
    package var state: Int64?
    package init(activityType: String, locationType: Int64, startDate: Double, state: Int64? = nil) {
        self.activityType = activityType
        self.locationType = locationType
        self.startDate = startDate
        self.state = state
    }
}

/// `os-health-session`: the running session, or none.
package struct HealthSessionReply: ControlReply {
    @NullIfNil package var session: HealthSessionItem?
    package init(session: HealthSessionItem?) { self.session = session }
}
