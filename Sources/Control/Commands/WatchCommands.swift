// MARK: - The watch's runs and its faults: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let watchCommands: [any ControlCommand.Type] = [Record.self, FailNext.self, WorkoutFault.self]

    /// `record`: finished runs, queued for the phone. `FlightLimits`' time range for `endingAt` (a test
    /// checks they agree).
    package struct Record: ControlCommand {
        package typealias Reply = RecordReply
        @Argument(.int(1...1_000_000), "how many runs", cli: .option(help: "how many runs (1 to 1000000; default 1)")) package var count = 1
        @Argument(
            .number(0...1000), "each run's distance (default random 3-12)",
            cli: .option("distance", "KM", help: "each run's distance in km (default: random, 3 to 12)"))
        package var distanceKm: Double?
        @Argument(.int(0...Int.max), "seed the run generator", cli: .option(nil, "S", help: "seed the run generator, for repeatable runs")) package var seed:
            Int?
        @Argument(.int(1...1_000_000), "the whole series' length, when this is a chunk of it (at least count)", cli: .hidden) package var seriesTotal: Int?
        @Argument(.int(0...999_999), "where this chunk starts in the series (at most seriesTotal - count)", cli: .hidden) package var seriesStart: Int?
        @Argument(.number(978_307_200...4_102_444_800), "the newest run ends here, seconds since 1970 (default: the device clock)", cli: .hidden)
        package var endingAt: Double?
        /// How many runs `runway watch record` asks for in one request: more are recorded a chunk at a
        /// time, each chunk one transaction (bounded memory on both sides).
        package static let chunk = 10_000
        package static let spec = ControlCommandSpec(
            Self.self, "record", [.watch],
            errors: [.invalid("seriesTotal below count, or seriesStart past seriesTotal - count"), .failure("the watch app is not installed")],
            "record runs and queue them for the phone")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["record"]) { _, _ in
            """
            Records N finished runs on the watch (default 1), queued for transfer to the phone. Works while the
            phone is down. Up to 10,000 runs are one outbox transaction (all or nothing); more are recorded in
            chunks of 10,000, each its own transaction, so memory stays bounded — on a terminal with a progress
            line (count, rate, time left) on stderr. Prints the new flight ids as they are recorded, one per line
            (a JSON array with --json). A chunk that fails stops the recording: what was recorded is said, exit 1.
            """
        }
        package init() {}
    }

    /// `fail-next`: fault injection, the next userInfo transfers fail.
    package struct FailNext: ControlCommand {
        package typealias Reply = FailNextReply
        @Argument(.int(0...1_000_000), "how many transfers fail; 0 clears it", cli: .positional("N")) package var count: Int
        @Argument(
            .intChoice([7017, 7014, 7015]), "the WCError: transferTimedOut, deliveryFailed or insufficientSpace",
            cli: .option(help: "the WCError code: 7017 (default), 7014 or 7015"))
        package var code = 7017
        package static let spec = ControlCommandSpec(Self.self, "fail-next", [.watch], test: true, "the next N userInfo transfers fail with an error")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .link,
            [
                .top(["link", "fail-next"], .watch, alias: true) { _, _ in
                    """
                    FAULT INJECTION: the watch's next N userInfo transfers finish with that error (default 7017
                    transferTimedOut; 7014 deliveryFailed, 7015 insufficientSpace) in didFinish(error:) and leave
                    the outstanding list; RunWay's watch app queues each run again. 0 clears it. Needs a watch-agent
                    started with --enable-test-commands.
                    """
                }
            ], repliesInJSON: false, oneLineErrors: true)
        package init() {}
    }

    /// `workout-fault`: fault injection, how the watch answers the next workout start.
    package struct WorkoutFault: ControlCommand {
        package typealias Reply = WorkoutFaultReply
        @Argument(
            .choice(["refuse", "ignore", "none"]), "how the next startWorkout is answered",
            cli: .positional("refuse|ignore|none") { _ in "the workout-start fault must be refuse, ignore or none" })
        package var mode: String
        package static let spec = ControlCommandSpec(
            Self.self, "workout-fault", [.watch], test: true, "make the watch refuse or ignore a workout start")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway,
            [
                .device(["fault", "workout-start"], on: .watch) { _, _ in
                    """
                    FAULT INJECTION: how the watch answers the phone's next startWorkout: refuse (workoutFailed), ignore (no
                    answer at all), or none (start the workout, the default). Reproduces the two ways mirroring fails. The
                    watch must have been started with --enable-test-commands.
                    """
                }
            ], repliesInJSON: false)
        package init() {}
    }
}
