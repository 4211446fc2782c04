import Connectivity
import JSONText

// MARK: - The air between the devices (the link's conditions), set on the watch: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let linkConditionCommands: [any ControlCommand.Type] = [LinkSet.self, LinkShow.self, LinkSchedule.self]

    static let appHoldsTheLink = ControlErrorSpec.failure(
        "watch-os, once it has launched the watch app: the app holds the link (reason appHoldsTheLink; the CLI asks the app)")

    /// `link-set`: the link's conditions, `LinkConditions`' own ranges.
    package struct LinkSet: ControlCommand {
        package typealias Reply = LinkConditionsReply
        @Argument(.int(LinkConditions.latencyRange), "each frame's latency, each way, in ms") package var latencyMs: Int?
        @Argument(.int(LinkConditions.jitterRange), "the latency varies by up to this, either way, in ms") package var jitterMs: Int?
        @Argument(.number(LinkConditions.lossRange), "the chance a frame is lost (the link is cut and reconnects)") package var loss: Double?
        @Argument(.int(LinkConditions.bandwidthRange), "the capacity each way, kbit/s (0: unlimited)") package var bandwidthKbps: Int?
        @Argument(.choice(["near", "wifi", "out"]), "near (Bluetooth), wifi (the relay), out") package var range: String?
        @Argument(.bool, "start from clear air (what is not named is cleared)") package var reset = false
        @Argument(.int(0...Int.max), "seed the draws of jitter and loss") package var seed: Int?
        package static let spec = ControlCommandSpec(
            Self.self, "link-set", [.watch, .watchOS],
            errors: [.failure("the conditions could not be saved in the watch's home (nothing changed)"), appHoldsTheLink],
            "set the link's conditions: latency, jitter, loss, bandwidth, range (what is not named stays; a schedule running stops)")
        package init() {}
    }

    /// `link-show`: the link's conditions and what the air has done.
    package struct LinkShow: ControlCommand {
        package typealias Reply = LinkConditionsReply
        package static let spec = ControlCommandSpec(
            Self.self, "link-show", [.watch, .watchOS], "the link's conditions, what the air has done, the schedule running")
        package init() {}
    }

    /// `link-schedule`: a timeline of conditions, the steps as `LinkSchedule.parse` reads them.
    package struct LinkSchedule: ControlCommand {
        package typealias Reply = LinkConditionsReply
        @Argument(.array, "[{at, latencyMs?, jitterMs?, loss?, bandwidthKbps?, range?, reset?}, …]") package var steps: JSONValue
        @Argument(.int(0...Int.max), "seed the draws of jitter and loss (default: random, in the reply)") package var seed: Int?
        package static let spec = ControlCommandSpec(
            Self.self, "link-schedule", [.watch, .watchOS],
            errors: [.invalid("a step is malformed, out of range or out of order (docs/link-conditions.md)"), appHoldsTheLink],
            "play a timeline of link conditions, from now, with seeded draws (replaces a schedule running)")
        package init() {}
    }
}
