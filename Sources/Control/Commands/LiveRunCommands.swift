import JSONText

// MARK: - The live run, on both devices: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let liveRunCommands: [any ControlCommand.Type] = [RunStart.self, RunSample.self, RunStatus.self, RunStop.self, RunReplay.self]

    /// `run-start`: start a live run. Its target, which `run-replay` takes too (`GPWSTarget`'s ranges; a
    /// test checks they agree).
    package struct RunStart: RunTarget {
        package typealias Reply = RunStatusReply
        @ArgumentGroup package var target = RunTargetArguments()
        package static let spec = ControlCommandSpec(
            Self.self, "run-start", both,
            errors: [.invalid("zoneLow is not below zoneHigh, or only one is given"), .failure("a run is in progress, or the device cannot start one")],
            "start a live run")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["run", "start"], oneLineErrors: true) { device, _ in
            device == "phone"
                ? """
                Starts a run led by the phone (startOrigin local). If a watch is paired with the RunWay app installed,
                the phone calls startWatchApp(toHandle:) whatever the watch app's state, and the watch is asked to
                start its workout (startWorkout); the status then shows what RunWay assumed (assumedStarted) next to
                what happened (mirroring.state: requested, confirmed, failed, unconfirmed after 10 s). Heart-rate mode
                needs the APPLE WATCH row READY (exit 1 naming the row otherwise); pace mode runs without a watch.
                Exit 1 if a run is already in progress; exit 2 on a bad target (as for the watch).
                """
                : """
                Starts a live run on the watch (startOrigin local), run id a UUID v7 from the device clock. Pace
                mode flies to --target-pace (default 6:00, ±15 s/km); heart-rate mode (a Mission Flight) to the zone
                --target-hr (default 140-160). Exit 1 if a run is already in progress or the watch app is not
                installed; exit 2 on a pace outside 2:00-20:00 or a zone outside 40 <= LOW < HIGH <= 220.
                """
        }
        package init() {}
    }

    /// What `run-start` and `run-replay` both take: the run's target, declared once (`RunTargetArguments`).
    package protocol RunTarget: ControlCommand {
        var target: RunTargetArguments { get set }
    }

    /// The run's target, as `run-start` and `run-replay` take it: the arguments of both, declared here once.
    package struct RunTargetArguments: Codable, Sendable {
        @Argument(
            .choice(["pace", "heart-rate", "heartRate"]), "what the run flies to",
            cli: .option(nil, "pace|heart-rate", values: ["pace", "heart-rate"], help: "pace (default) or heart-rate"))
        package var mode = "pace"
        @Argument(
            .number(120...1200), "the target pace, seconds per km (default 360)",
            cli: .option("target-pace", "M:SS", syntax: .pace, help: "the target pace per km (2:00 to 20:00; default 6:00)"))
        package var targetPace: Double?
        @Argument(
            .number(40...220), "the heart-rate zone's bottom, bpm (with zoneHigh)",
            cli: .option("target-hr", "LOW-HIGH", syntax: .zoneLow, help: "the heart-rate zone (40 <= LOW < HIGH <= 220; default 140-160)"))
        package var zoneLow: Double?
        @Argument(.number(40...220), "the heart-rate zone's top, bpm (with zoneLow)", cli: .option("target-hr", syntax: .zoneHigh)) package var zoneHigh:
            Double?
        package init() {}
    }

    /// `run-sample`: feed the live run samples, all or none.
    package struct RunSample: ControlCommand {
        package typealias Reply = RunStatusReply
        @Argument(.array, "[[t, distanceM, paceSecPerKm, hr], …]", cli: .hidden) package var samples: JSONValue
        package static let spec = ControlCommandSpec(
            Self.self, "run-sample", both,
            errors: [.invalid("a sample is malformed or breaks the run's order: the batch is refused whole"), .failure("no run in progress")],
            "feed the live run samples")
        /// One sample from `--t`, `--distance-m`, `--pace` and `--hr`, or the array in `--json-file`.
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway, ["run", "sample"],
            options: [
                .option("t", "S", "seconds since the run's start"), .option("distance-m", "M", "metres run so far"),
                .option("pace", "M:SS|0", "the pace now, per km (0: stationary)"), .option("hr", "BPM", "heart rate (0: no reading)"),
                .option("json-file", "F", "a JSON array of [t, distanceM, paceSecPerKm, hr] (- for stdin)"),
            ], synopsis: "HOME (--t S --distance-m M --pace M:SS|0 --hr BPM | --json-file F) [--json]"
        ) { _, _ in
            """
            Feeds sensor readings to the run in progress: one sample, or --json-file with an array
            [[t, distanceM, paceSecPerKm, hr], ...] (the shape `runway phone flight --json` prints). t counts
            seconds from the run's start and must increase; distance must not decrease; pace is 0 (stationary)
            or 2:00-20:00 per km; hr is 0 (no reading) or 30-250. A bad batch is refused whole (exit 2) and the
            run is unchanged. GPWS decides once per sample; --json adds the decision trace
            [{"t","stationary","decided","gpws","alert"}, ...].
            """
        }
        package init() {}
    }

    /// `run-status`: the live run.
    package struct RunStatus: ControlCommand {
        package typealias Reply = RunStatusReply
        package static let spec = ControlCommandSpec(Self.self, "run-status", both, "the live run")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["run", "status"]) { _, _ in
            "The run in progress: state running|idle, run id, mode and target, elapsed time, distance, pace, heart rate, GPWS status, alerts, startOrigin."
        }
        package init() {}
    }

    /// `run-stop`: stop the live run, saving it as a flight.
    package struct RunStop: ControlCommand {
        package typealias Reply = RunStopReply
        package static let spec = ControlCommandSpec(
            Self.self, "run-stop", both, errors: [.failure("no run in progress")], "stop the live run, saving it as a flight")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.runway, ["run", "stop"]) { device, _ in
            device == "phone"
                ? """
                RunWay's saveRunningData(): saves the run in progress to the Logbook (runs under 0.1 km are not kept),
                reschedules the reminders, prints the post-run summary (no delete here: deleting is for past flights,
                from `runway phone flight ID`), and tells a mirroring watch to end its workout without transferring
                it. Its guard is "a run is in progress": with none, exit 1 and nothing is saved (a second stop).
                """
                : """
                Stops the run in progress and queues its flight (with its alerts) for the phone through the durable
                outbox, as `watch record` does; prints the flight id. A run the phone leads is the phone's to save: the
                watch ends it without transferring it. Exit 1 if no run is in progress (nothing saved).
                """
        }
        package init() {}
    }

    /// `run-replay`: a generated run, played through the live run: `run-start`'s target and the generator's.
    package struct RunReplay: RunTarget {
        package typealias Reply = RunStopReply
        @ArgumentGroup package var target = RunTargetArguments()
        @Argument(.int(0...Int.max), "seed the run generator", cli: .option(nil, "S", help: "seed the run generator")) package var seed: Int?
        @Argument(
            .number(0.2...100), "the run's distance (default random 3-12)",
            cli: .option("distance", "KM", help: "the run's distance (0.2 to 100; default random 3-12)"))
        package var distanceKm: Double?
        package static let spec = ControlCommandSpec(
            Self.self, "run-replay", both, errors: [.failure("a run is in progress, or the device cannot start one")], "replay a generated run")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .runway,
            [
                .device(["run", "replay"], on: .watch) { _, _ in
                    """
                    Runs a generated run (FlightGenerator: warm-up, drift, 0-2 stops with the heart rate falling) through
                    the live engine as one batch, then stops it: the flight is queued like any other. --json prints the
                    stop's result with the per-sample decision trace.
                    """
                }
            ], oneLineErrors: true)
        package init() {}

        /// The run it starts: its target, as `run-start` would take it.
        package var start: RunStart {
            RunStart { $0.target = target }
        }
    }
}

/// The target's arguments read and set on the command itself (`run.mode`, `$0.targetPace = …`), as when
/// each command declared them.
extension ControlCommands.RunTarget {
    package var mode: String {
        get { target.mode }
        set { target.mode = newValue }
    }
    package var targetPace: Double? {
        get { target.targetPace }
        set { target.targetPace = newValue }
    }
    package var zoneLow: Double? {
        get { target.zoneLow }
        set { target.zoneLow = newValue }
    }
    package var zoneHigh: Double? {
        get { target.zoneHigh }
        set { target.zoneHigh = newValue }
    }
}
