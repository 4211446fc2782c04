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
        @Argument(
            .int(LinkConditions.latencyRange), "each frame's latency, each way, in ms",
            cli: .option("latency", "MS", help: "each frame's latency each way, 0-60000 ms"))
        package var latencyMs: Int?
        @Argument(
            .int(LinkConditions.jitterRange), "the latency varies by up to this, either way, in ms",
            cli: .option("jitter", "MS", help: "the latency varies by up to this, 0-60000 ms"))
        package var jitterMs: Int?
        @Argument(
            .number(LinkConditions.lossRange), "the chance a frame is lost (the link is cut and reconnects)",
            cli: .option(nil, "P", help: "the chance a frame is lost, 0 to 1"))
        package var loss: Double?
        @Argument(
            .int(LinkConditions.bandwidthRange), "the capacity each way, kbit/s (0: unlimited)",
            cli: .option("bandwidth", "KBPS", help: "the capacity each way, kbit/s (0: unlimited)"))
        package var bandwidthKbps: Int?
        @Argument(.choice(["near", "wifi", "out"]), "near (Bluetooth), wifi (the relay), out", cli: .option(help: "near, wifi or out"))
        package var range: String?
        @Argument(.bool, "start from clear air (what is not named is cleared)", cli: .option(help: "start from clear air")) package var reset = false
        @Argument(.int(0...Int.max), "seed the draws of jitter and loss", cli: .option(nil, "S", help: "seed the draws of jitter and loss")) package var seed:
            Int?
        package static let spec = ControlCommandSpec(
            Self.self, "link-set", [.watch, .watchOS],
            errors: [.failure("the conditions could not be saved in the watch's home (nothing changed)"), appHoldsTheLink],
            "set the link's conditions: latency, jitter, loss, bandwidth, range (what is not named stays; a schedule running stops)")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .link,
            [
                .top(["link", "set"], .watch, alias: true) { _, _ in
                    """
                    Sets the link's conditions on a running pair: each frame's latency each way (ms), its jitter (ms,
                    either way), the chance a frame is lost (0 to 1: the link is cut and the watch reconnects, nothing
                    is lost), the capacity each way (kbit/s, 0 unlimited), and the range: near (Bluetooth), wifi (the
                    relay: +60 ms, ±20 ms, at most 1000 kbit/s) or out (disconnected). What is not named stays;
                    --reset starts from clear air. Kept in the watch's home across restarts; stops a schedule.
                    """
                }
            ], oneLineErrors: true)
        package init() {}
    }

    /// `link-show`: the link's conditions and what the air has done.
    package struct LinkShow: ControlCommand {
        package typealias Reply = LinkConditionsReply
        package static let spec = ControlCommandSpec(
            Self.self, "link-show", [.watch, .watchOS], "the link's conditions, what the air has done, the schedule running")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .link,
            [
                .top(["link", "show"], .watch, alias: true) { _, _ in
                    "The link's conditions as set and as frames meet them, whether it is connected, what the air has done, and the schedule playing."
                }
            ])
        package init() {}
    }

    /// `link-schedule`: a timeline of conditions, the steps as `LinkSchedule.parse` reads them.
    package struct LinkSchedule: ControlCommand {
        package typealias Reply = LinkConditionsReply
        @Argument(.array, "[{at, latencyMs?, jitterMs?, loss?, bandwidthKbps?, range?, reset?}, …]", cli: .hidden) package var steps: JSONValue
        @Argument(
            .int(0...Int.max), "seed the draws of jitter and loss (default: random, in the reply)",
            cli: .option(nil, "S", help: "seed the draws (overrides the file's; default: random, shown)"))
        package var seed: Int?
        package static let spec = ControlCommandSpec(
            Self.self, "link-schedule", [.watch, .watchOS],
            errors: [.invalid("a step is malformed, out of range or out of order (docs/link-conditions.md)"), appHoldsTheLink],
            "play a timeline of link conditions, from now, with seeded draws (replaces a schedule running)")
        /// FILE, a schedule as `LinkSchedule.parse` reads it: its steps, and its seed unless `--seed` says one.
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .link,
            [
                .top(["link", "schedule"], .watch, alias: true) { _, _ in
                    """
                    Plays a timeline of link conditions from now (FILE: {"seed": S, "steps": [{"at": MS, "latencyMs": …,
                    "range": …}, …]}, docs/link-conditions.md), each step a change as runway link set makes one. The
                    same file and seed draw the same jitter and loss. A malformed file changes nothing (exit 2).
                    """
                }
            ], synopsis: "FILE HOME [--seed S] [--json]", oneLineErrors: true, positionals: ["FILE"])
        package init() {}
    }
}
