// MARK: - The watch's runs and its faults: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let watchCommands: [any ControlCommand.Type] = [Record.self, FailNext.self, WorkoutFault.self]

    /// `record`: finished runs, queued for the phone. `FlightLimits`' time range for `endingAt` (a test
    /// checks they agree).
    package struct Record: ControlCommand {
        package typealias Reply = RecordReply
        @Argument(.int(1...1_000_000), "how many runs") package var count = 1
        @Argument(.number(0...1000), "each run's distance (default random 3-12)") package var distanceKm: Double?
        @Argument(.int(0...Int.max), "seed the run generator") package var seed: Int?
        @Argument(.int(1...1_000_000), "the whole series' length, when this is a chunk of it (at least count)") package var seriesTotal: Int?
        @Argument(.int(0...999_999), "where this chunk starts in the series (at most seriesTotal - count)") package var seriesStart: Int?
        @Argument(.number(978_307_200...4_102_444_800), "the newest run ends here, seconds since 1970 (default: the device clock)")
        package var endingAt: Double?
        /// How many runs `runway watch record` asks for in one request: more are recorded a chunk at a
        /// time, each chunk one transaction (bounded memory on both sides).
        package static let chunk = 10_000
        package static let spec = ControlCommandSpec(
            Self.self, "record", [.watch],
            errors: [.invalid("seriesTotal below count, or seriesStart past seriesTotal - count"), .failure("the watch app is not installed")],
            "record runs and queue them for the phone")
        package init() {}
    }

    /// `fail-next`: fault injection, the next userInfo transfers fail.
    package struct FailNext: ControlCommand {
        package typealias Reply = FailNextReply
        @Argument(.int(0...1_000_000), "how many transfers fail; 0 clears it") package var count: Int
        @Argument(.intChoice([7017, 7014, 7015]), "the WCError: transferTimedOut, deliveryFailed or insufficientSpace") package var code = 7017
        package static let spec = ControlCommandSpec(Self.self, "fail-next", [.watch], test: true, "the next N userInfo transfers fail with an error")
        package init() {}
    }

    /// `workout-fault`: fault injection, how the watch answers the next workout start.
    package struct WorkoutFault: ControlCommand {
        package typealias Reply = WorkoutFaultReply
        @Argument(.choice(["refuse", "ignore", "none"]), "how the next startWorkout is answered") package var mode: String
        package static let spec = ControlCommandSpec(
            Self.self, "workout-fault", [.watch], test: true, "make the watch refuse or ignore a workout start")
        package init() {}
    }
}
