// MARK: - The watch's runs and its faults: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let watchCommands: [any ControlCommand.Type] = [Record.self, FailNext.self, WorkoutFault.self]

    /// `record`: finished runs, queued for the phone. `FlightLimits`' time range for `endingAt` (a test
    /// checks they agree).
    package enum Record: ControlCommand {
        package typealias Reply = RecordReply
        package static let count = ControlArgument<Int>("count", .int(1...1_000_000), default: 1, "how many runs")
        package static let distanceKm = ControlArgument<Double?>("distanceKm", .number(0...1000), "each run's distance (default random 3-12)")
        package static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the run generator")
        package static let seriesTotal = ControlArgument<Int?>(
            "seriesTotal", .int(1...1_000_000), "the whole series' length, when this is a chunk of it (at least count)")
        package static let seriesStart = ControlArgument<Int?>(
            "seriesStart", .int(0...999_999), "where this chunk starts in the series (at most seriesTotal - count)")
        package static let endingAt = ControlArgument<Double?>(
            "endingAt", .number(978_307_200...4_102_444_800), "the newest run ends here, seconds since 1970 (default: the device clock)")
        /// How many runs `runway watch record` asks for in one request: more are recorded a chunk at a
        /// time, each chunk one transaction (bounded memory on both sides).
        package static let chunk = 10_000
        package static let spec = ControlCommandSpec(
            Self.self, "record", [.watch], arguments: [count, distanceKm, seed, seriesTotal, seriesStart, endingAt],
            errors: [.invalid("seriesTotal below count, or seriesStart past seriesTotal - count"), .failure("the watch app is not installed")],
            "record runs and queue them for the phone")
    }

    /// `fail-next`: fault injection, the next userInfo transfers fail.
    package enum FailNext: ControlCommand {
        package typealias Reply = FailNextReply
        package static let count = ControlArgument<Int>("count", .int(0...1_000_000), required: true, "how many transfers fail; 0 clears it")
        package static let code = ControlArgument<Int>(
            "code", .intChoice([7017, 7014, 7015]), default: 7017, "the WCError: transferTimedOut, deliveryFailed or insufficientSpace")
        package static let spec = ControlCommandSpec(
            Self.self, "fail-next", [.watch], test: true, arguments: [count, code], "the next N userInfo transfers fail with an error")
    }

    /// `workout-fault`: fault injection, how the watch answers the next workout start.
    package enum WorkoutFault: ControlCommand {
        package typealias Reply = WorkoutFaultReply
        package static let mode = ControlArgument<String>(
            "mode", .choice(["refuse", "ignore", "none"]), required: true, "how the next startWorkout is answered")
        package static let spec = ControlCommandSpec(
            Self.self, "workout-fault", [.watch], test: true, arguments: [mode], "make the watch refuse or ignore a workout start")
    }
}
