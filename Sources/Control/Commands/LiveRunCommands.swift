import JSONText

// MARK: - The live run, on both devices: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let liveRunCommands: [any ControlCommand.Type] = [RunStart.self, RunSample.self, RunStatus.self, RunStop.self, RunReplay.self]

    /// `run-start`: start a live run. Its target, which `run-replay` takes too (`GPWSTarget`'s ranges; a
    /// test checks they agree).
    package struct RunStart: RunTarget {
        package typealias Reply = RunStatusReply
        @Argument(.choice(["pace", "heart-rate", "heartRate"]), "what the run flies to") package var mode = "pace"
        @Argument(.number(120...1200), "the target pace, seconds per km (default 360)") package var targetPace: Double?
        @Argument(.number(40...220), "the heart-rate zone's bottom, bpm (with zoneHigh)") package var zoneLow: Double?
        @Argument(.number(40...220), "the heart-rate zone's top, bpm (with zoneLow)") package var zoneHigh: Double?
        package static let spec = ControlCommandSpec(
            Self.self, "run-start", both,
            errors: [.invalid("zoneLow is not below zoneHigh, or only one is given"), .failure("a run is in progress, or the device cannot start one")],
            "start a live run")
        package init() {}
    }

    /// What `run-start` and `run-replay` both take: the run's target.
    package protocol RunTarget: ControlCommand {
        var mode: String { get set }
        var targetPace: Double? { get set }
        var zoneLow: Double? { get set }
        var zoneHigh: Double? { get set }
    }

    /// `run-sample`: feed the live run samples, all or none.
    package struct RunSample: ControlCommand {
        package typealias Reply = RunStatusReply
        @Argument(.array, "[[t, distanceM, paceSecPerKm, hr], …]") package var samples: JSONValue
        package static let spec = ControlCommandSpec(
            Self.self, "run-sample", both,
            errors: [.invalid("a sample is malformed or breaks the run's order: the batch is refused whole"), .failure("no run in progress")],
            "feed the live run samples")
        package init() {}
    }

    /// `run-status`: the live run.
    package struct RunStatus: ControlCommand {
        package typealias Reply = RunStatusReply
        package static let spec = ControlCommandSpec(Self.self, "run-status", both, "the live run")
        package init() {}
    }

    /// `run-stop`: stop the live run, saving it as a flight.
    package struct RunStop: ControlCommand {
        package typealias Reply = RunStopReply
        package static let spec = ControlCommandSpec(
            Self.self, "run-stop", both, errors: [.failure("no run in progress")], "stop the live run, saving it as a flight")
        package init() {}
    }

    /// `run-replay`: a generated run, played through the live run: `run-start`'s target and the generator's.
    package struct RunReplay: RunTarget {
        package typealias Reply = RunStopReply
        @Argument(.choice(["pace", "heart-rate", "heartRate"]), "what the run flies to") package var mode = "pace"
        @Argument(.number(120...1200), "the target pace, seconds per km (default 360)") package var targetPace: Double?
        @Argument(.number(40...220), "the heart-rate zone's bottom, bpm (with zoneHigh)") package var zoneLow: Double?
        @Argument(.number(40...220), "the heart-rate zone's top, bpm (with zoneLow)") package var zoneHigh: Double?
        @Argument(.int(0...Int.max), "seed the run generator") package var seed: Int?
        @Argument(.number(0.2...100), "the run's distance (default random 3-12)") package var distanceKm: Double?
        package static let spec = ControlCommandSpec(
            Self.self, "run-replay", both, errors: [.failure("a run is in progress, or the device cannot start one")], "replay a generated run")
        package init() {}

        /// The run it starts: its target, as `run-start` would take it.
        package var start: RunStart {
            RunStart {
                $0.mode = mode
                $0.targetPace = targetPace
                $0.zoneLow = zoneLow
                $0.zoneHigh = zoneHigh
            }
        }
    }
}
