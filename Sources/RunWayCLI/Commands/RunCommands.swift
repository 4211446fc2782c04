import Connectivity
import Control
import JSONText
import Posix
import RunWayDomain

/// `runway watch run start|sample|status|stop|replay`: a live run, sample by sample, with GPWS.
enum RunCLI {
    static func commands(_ device: DeviceRole) -> [CLI.Command] {
        let name = device.rawValue, home = device == .phone ? "P" : "W"
        return [
            CLI.Command(
                path: [name, "run", "start"],
                synopsis: "--home \(home) [--mode pace|heart-rate] [--target-pace M:SS] [--target-hr LOW-HIGH] [--json]",
                summary: device == .phone
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
                    """,
                specs: [CLI.homeSpec, modeSpec, paceSpec, zoneSpec, CLI.jsonSpec],
                positionals: 0,
                run: { parsed in
                    let result = try call(parsed, device, try target(parsed, ControlCommands.RunStart()))
                    var text = "started \(result.runId ?? "") (\(result.mode ?? "") \(result.target ?? ""))"
                    if let mirroring = result.mirroring {
                        text += "; mirroring \(mirroring.state) (assumed started: \(mirroring.assumedStarted ? "yes" : "no"))"
                    }
                    Output.out(parsed.has("json") ? result.json.text : text)
                    return 0
                }),
            CLI.Command(
                path: [name, "run", "sample"],
                synopsis: "--home \(home) (--t S --distance-m M --pace M:SS|0 --hr BPM | --json-file F) [--json]",
                summary: """
                    Feeds sensor readings to the run in progress: one sample, or --json-file with an array
                    [[t, distanceM, paceSecPerKm, hr], ...] (the shape `runway phone flight --json` prints). t counts
                    seconds from the run's start and must increase; distance must not decrease; pace is 0 (stationary)
                    or 2:00-20:00 per km; hr is 0 (no reading) or 30-250. A bad batch is refused whole (exit 2) and the
                    run is unchanged. GPWS decides once per sample; --json adds the decision trace
                    [{"t","stationary","decided","gpws","alert"}, ...].
                    """,
                specs: [
                    CLI.homeSpec, .option("t", "S", "seconds since the run's start"), .option("distance-m", "M", "metres run so far"),
                    .option("pace", "M:SS|0", "the pace now, per km (0: stationary)"), .option("hr", "BPM", "heart rate (0: no reading)"),
                    .option("json-file", "F", "a JSON array of [t, distanceM, paceSecPerKm, hr] (- for stdin)"), CLI.jsonSpec,
                ],
                positionals: 0,
                run: { parsed in
                    let samples = try samples(parsed)
                    let result = try call(
                        parsed, device, ControlCommands.RunSample { $0.samples = samples })
                    if parsed.has("json") {
                        Output.out(result.json.text)
                    } else {
                        let alerts = (result.trace ?? []).compactMap(\.alert)
                        Output.out("gpws \(result.gpws ?? "")" + (alerts.isEmpty ? "" : "; alerts: " + alerts.joined(separator: ", ")))
                    }
                    return 0
                }),
            CLI.Command(
                path: [name, "run", "status"],
                synopsis: "--home \(home) [--json]",
                summary:
                    "The run in progress: state running|idle, run id, mode and target, elapsed time, distance, pace, heart rate, GPWS status, alerts, startOrigin.",
                specs: [CLI.homeSpec, CLI.jsonSpec],
                positionals: 0,
                run: { parsed in
                    let result = try call(parsed, device, ControlCommands.RunStatus()).json
                    Output.out(parsed.has("json") ? result.text : StatusText.render(result))
                    return 0
                }),
            CLI.Command(
                path: [name, "run", "stop"],
                synopsis: "--home \(home) [--json]",
                summary: device == .phone
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
                    """,
                specs: [CLI.homeSpec, CLI.jsonSpec],
                positionals: 0,
                run: { parsed in
                    let result = try call(parsed, device, ControlCommands.RunStop())
                    if parsed.has("json") {
                        Output.out(result.json.text)
                    } else if device == .phone, result.saved == "saved" {
                        let id = result.id
                        // The post-run summary (#26): the same figures as the Logbook's, with no delete.
                        let flight = try call(parsed, .phone, ControlCommands.Flight { $0.id = id }).value
                        Output.out(FlightSummaryText.render(flight, calendar: .current()))
                    } else {
                        Output.out(result.id)
                    }
                    return 0
                }),
            CLI.Command(
                path: [name, "run", "replay"],
                synopsis: "--home \(home) [--seed S] [--distance KM] [--mode pace|heart-rate] [--target-pace M:SS] [--target-hr LOW-HIGH] [--json]",
                summary: """
                    Runs a generated run (FlightGenerator: warm-up, drift, 0-2 stops with the heart rate falling) through
                    the live engine as one batch, then stops it: the flight is queued like any other. --json prints the
                    stop's result with the per-sample decision trace.
                    """,
                specs: [
                    CLI.homeSpec, .option("seed", "S", "seed the run generator"),
                    .option("distance", "KM", "the run's distance (0.2 to 100; default random 3-12)"),
                    modeSpec, paceSpec, zoneSpec, CLI.jsonSpec,
                ],
                positionals: 0,
                run: { parsed in
                    var request = try target(parsed, ControlCommands.RunReplay())
                    request.seed = try parsed.integer("seed", range: 0...Int.max)
                    request.distanceKm = try parsed.number("distance", range: 0.2...100)
                    let result = try call(parsed, device, request)
                    Output.out(parsed.has("json") ? result.json.text : "\(result.id) alerts=\(result.alerts)")
                    return 0
                }),
        ]
    }

    /// `runway watch fault workout-start refuse|ignore|none` (for tests: the two ways mirroring fails).
    static let workoutFault = CLI.Command(
        path: ["watch", "fault", "workout-start"],
        synopsis: "refuse|ignore|none --home W",
        summary: """
            FAULT INJECTION: how the watch answers the phone's next startWorkout: refuse (workoutFailed), ignore (no
            answer at all), or none (start the workout, the default). Reproduces the two ways mirroring fails. The
            watch must have been started with --enable-test-commands.
            """,
        specs: [CLI.homeSpec],
        positionals: 1,
        run: { parsed in
            guard let mode = parsed.positionals.first, ["refuse", "ignore", "none"].contains(mode) else {
                throw ControlError.invalid("the workout-start fault must be refuse, ignore or none")
            }
            _ = try call(parsed, .watch, ControlCommands.WorkoutFault { $0.mode = mode })
            Output.out("workout-start fault: \(mode)")
            return 0
        })

    static let modeSpec = ArgumentSpec.option("mode", "MODE", "pace (default) or heart-rate")
    static let paceSpec = ArgumentSpec.option("target-pace", "M:SS", "the target pace per km (2:00 to 20:00; default 6:00)")
    static let zoneSpec = ArgumentSpec.option("target-hr", "LOW-HIGH", "the heart-rate zone (40 <= LOW < HIGH <= 220; default 140-160)")

    /// Sends `request` to the device's daemon, checked against the catalogue first.
    static func call(_ parsed: ParsedArguments, _ device: DeviceRole, _ request: ControlRequest) throws -> JSONValue {
        try CLI.client(parsed, device).send(request)
    }

    /// Sends `command` to the device's daemon, checked first; its reply.
    static func call<Command: ControlCommand>(_ parsed: ParsedArguments, _ device: DeviceRole, _ command: Command) throws -> Command.Reply {
        try CLI.client(parsed, device).send(command)
    }

    /// `request` (`run-start` or `run-replay`) with `--mode`, `--target-pace`, `--target-hr` as its
    /// target's arguments; a bad one is one line, exit 2.
    static func target<Command: ControlCommands.RunTarget>(_ parsed: ParsedArguments, _ request: Command) throws -> Command {
        var request = request
        if let mode = parsed.value("mode") {
            guard mode == "pace" || mode == "heart-rate" else { throw ControlError.invalid("--mode must be pace or heart-rate, not \(OneLine.quote(mode))") }
            request.mode = mode
        }
        if let text = parsed.value("target-pace") {
            guard let pace = GPWSTarget.parsePace(text) else {
                throw ControlError.invalid("--target-pace must be M:SS from 2:00 to 20:00, not \(OneLine.quote(text))")
            }
            request.targetPace = pace
        }
        if let text = parsed.value("target-hr") {
            guard let zone = GPWSTarget.parseZone(text) else {
                throw ControlError.invalid("--target-hr must be LOW-HIGH with 40 <= LOW < HIGH <= 220, not \(OneLine.quote(text))")
            }
            request.zoneLow = zone.low
            request.zoneHigh = zone.high
        }
        return request
    }

    /// One sample from the options, or the array in `--json-file`.
    static func samples(_ parsed: ParsedArguments) throws -> JSONValue {
        let single = ["t", "distance-m", "pace", "hr"].filter { parsed.value($0) != nil }
        if let path = parsed.value("json-file") {
            guard single.isEmpty else { throw ControlError.invalid("give either --json-file or --t/--distance-m/--pace/--hr, not both") }
            let bytes: [UInt8]
            do { bytes = path == "-" ? try SessionCLI.readStandardInput() : try Filesystem.readFile(path) } catch {
                throw ControlError.invalid("cannot read \(path): \(error)")
            }
            guard let json = try? JSONValue(parsing: bytes), let rows = json.arrayValue else {
                throw ControlError.invalid("\(path) must hold a JSON array of [t, distanceM, paceSecPerKm, hr]")
            }
            // Their shape here, before connecting (the daemon checks them against the run).
            do { _ = try LiveRun.batch(rows) } catch { throw ControlError.invalid("\(path): \(error.description)") }
            return json
        }
        guard single.count == 4 else { throw ControlError.invalid("a sample needs --t, --distance-m, --pace and --hr (or --json-file)") }
        func number(_ name: String) throws -> Double {
            guard let value = parsed.value(name).flatMap(Double.init), value.isFinite else {
                throw ControlError.invalid("--\(name) must be a number, not \(OneLine.quote(parsed.value(name) ?? ""))")
            }
            return value
        }
        let paceText = parsed.value("pace")!
        let pace: Double
        if paceText == "0" {
            pace = 0
        } else {
            guard let parsedPace = GPWSTarget.parsePace(paceText) else {
                throw ControlError.invalid("--pace must be 0 or M:SS from 2:00 to 20:00, not \(OneLine.quote(paceText))")
            }
            pace = parsedPace
        }
        return .array([.array([.number(try number("t")), .number(try number("distance-m")), .number(pace), .number(try number("hr"))])])
    }
}
