import JSONText

// MARK: - The live run, on both devices: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let liveRunCommands: [any ControlCommand.Type] = [RunStart.self, RunSample.self, RunStatus.self, RunStop.self, RunReplay.self]

    /// `run-start`: start a live run. Its target, which `run-replay` takes too (`GPWSTarget`'s ranges; a
    /// test checks they agree).
    package enum RunStart: ControlCommand {
        package typealias Reply = RunStatusReply
        package static let mode = ControlArgument<String>(
            "mode", .choice(["pace", "heart-rate", "heartRate"]), default: "pace", "what the run flies to")
        package static let targetPace = ControlArgument<Double?>("targetPace", .number(120...1200), "the target pace, seconds per km (default 360)")
        package static let zoneLow = ControlArgument<Double?>("zoneLow", .number(40...220), "the heart-rate zone's bottom, bpm (with zoneHigh)")
        package static let zoneHigh = ControlArgument<Double?>("zoneHigh", .number(40...220), "the heart-rate zone's top, bpm (with zoneLow)")
        static let target: [any ControlArgumentDeclaration] = [mode, targetPace, zoneLow, zoneHigh]
        package static let spec = ControlCommandSpec(
            Self.self, "run-start", both, arguments: target,
            errors: [.invalid("zoneLow is not below zoneHigh, or only one is given"), .failure("a run is in progress, or the device cannot start one")],
            "start a live run")
    }

    /// `run-sample`: feed the live run samples, all or none.
    package enum RunSample: ControlCommand {
        package typealias Reply = RunStatusReply
        package static let samples = ControlArgument<JSONValue>("samples", .array, required: true, "[[t, distanceM, paceSecPerKm, hr], …]")
        package static let spec = ControlCommandSpec(
            Self.self, "run-sample", both, arguments: [samples],
            errors: [.invalid("a sample is malformed or breaks the run's order: the batch is refused whole"), .failure("no run in progress")],
            "feed the live run samples")
    }

    /// `run-status`: the live run.
    package enum RunStatus: ControlCommand {
        package typealias Reply = RunStatusReply
        package static let spec = ControlCommandSpec(Self.self, "run-status", both, "the live run")
    }

    /// `run-stop`: stop the live run, saving it as a flight.
    package enum RunStop: ControlCommand {
        package typealias Reply = RunStopReply
        package static let spec = ControlCommandSpec(
            Self.self, "run-stop", both, errors: [.failure("no run in progress")], "stop the live run, saving it as a flight")
    }

    /// `run-replay`: a generated run, played through the live run: `run-start`'s target and the generator's.
    package enum RunReplay: ControlCommand {
        package typealias Reply = RunStopReply
        package static let mode = RunStart.mode
        package static let targetPace = RunStart.targetPace
        package static let zoneLow = RunStart.zoneLow
        package static let zoneHigh = RunStart.zoneHigh
        package static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the run generator")
        package static let distanceKm = ControlArgument<Double?>("distanceKm", .number(0.2...100), "the run's distance (default random 3-12)")
        package static let spec = ControlCommandSpec(
            Self.self, "run-replay", both, arguments: RunStart.target + [seed, distanceKm],
            errors: [.failure("a run is in progress, or the device cannot start one")], "replay a generated run")
    }
}
