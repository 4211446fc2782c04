import Connectivity
import JSONText

// MARK: - The air between the devices (the link's conditions), set on the watch: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let linkConditionCommands: [any ControlCommand.Type] = [LinkSet.self, LinkShow.self, LinkSchedule.self]

    static let appHoldsTheLink = ControlErrorSpec.failure(
        "watch-os, once it has launched the watch app: the app holds the link (reason appHoldsTheLink; the CLI asks the app)")

    /// `link-set`: the link's conditions, `LinkConditions`' own ranges.
    package enum LinkSet: ControlCommand {
        package typealias Reply = LinkConditionsReply
        package static let latency = ControlArgument<Int?>("latencyMs", .int(LinkConditions.latencyRange), "each frame's latency, each way, in ms")
        package static let jitter = ControlArgument<Int?>("jitterMs", .int(LinkConditions.jitterRange), "the latency varies by up to this, either way, in ms")
        package static let loss = ControlArgument<Double?>(
            "loss", .number(LinkConditions.lossRange), "the chance a frame is lost (the link is cut and reconnects)")
        package static let bandwidth = ControlArgument<Int?>(
            "bandwidthKbps", .int(LinkConditions.bandwidthRange), "the capacity each way, kbit/s (0: unlimited)")
        package static let range = ControlArgument<String?>("range", .choice(["near", "wifi", "out"]), "near (Bluetooth), wifi (the relay), out")
        package static let reset = ControlArgument<Bool>("reset", .bool, default: false, "start from clear air (what is not named is cleared)")
        package static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the draws of jitter and loss")
        package static let spec = ControlCommandSpec(
            Self.self, "link-set", [.watch, .watchOS], arguments: [latency, jitter, loss, bandwidth, range, reset, seed],
            errors: [.failure("the conditions could not be saved in the watch's home (nothing changed)"), appHoldsTheLink],
            "set the link's conditions: latency, jitter, loss, bandwidth, range (what is not named stays; a schedule running stops)")
    }

    /// `link-show`: the link's conditions and what the air has done.
    package enum LinkShow: ControlCommand {
        package typealias Reply = LinkConditionsReply
        package static let spec = ControlCommandSpec(
            Self.self, "link-show", [.watch, .watchOS], "the link's conditions, what the air has done, the schedule running")
    }

    /// `link-schedule`: a timeline of conditions, the steps as `LinkSchedule.parse` reads them.
    package enum LinkSchedule: ControlCommand {
        package typealias Reply = LinkConditionsReply
        package static let steps = ControlArgument<JSONValue>(
            "steps", .array, required: true, "[{at, latencyMs?, jitterMs?, loss?, bandwidthKbps?, range?, reset?}, …]")
        package static let seed = ControlArgument<Int?>("seed", .int(0...Int.max), "seed the draws of jitter and loss (default: random, in the reply)")
        package static let spec = ControlCommandSpec(
            Self.self, "link-schedule", [.watch, .watchOS], arguments: [steps, seed],
            errors: [.invalid("a step is malformed, out of range or out of order (docs/link-conditions.md)"), appHoldsTheLink],
            "play a timeline of link conditions, from now, with seeded draws (replaces a schedule running)")
    }
}
