import Connectivity
import Control
import JSONText
import Posix

/// `runway link set|show|schedule` (docs/link-conditions.md): the air between the devices, which the
/// watch applies on its connection. Also under `runway watch link …`.
enum LinkConditionCommands {
    static var commands: [CLI.Command] { [set, show, schedule] }

    static let set = CLI.Command(
        path: ["link", "set"],
        synopsis: "[--latency MS] [--jitter MS] [--loss P] [--bandwidth KBPS] [--range near|wifi|out] [--reset] [--seed S] --home W [--json]",
        summary: """
            Sets the link's conditions on a running pair: each frame's latency each way (ms), its jitter (ms,
            either way), the chance a frame is lost (0 to 1: the link is cut and the watch reconnects, nothing
            is lost), the capacity each way (kbit/s, 0 unlimited), and the range: near (Bluetooth), wifi (the
            relay: +60 ms, ±20 ms, at most 1000 kbit/s) or out (disconnected). What is not named stays;
            --reset starts from clear air. Kept in the watch's home across restarts; stops a schedule.
            """,
        specs: [
            .option("latency", "MS", "each frame's latency each way, 0-60000 ms"), .option("jitter", "MS", "the latency varies by up to this, 0-60000 ms"),
            .option("loss", "P", "the chance a frame is lost, 0 to 1"), .option("bandwidth", "KBPS", "the capacity each way, kbit/s (0: unlimited)"),
            .option("range", "R", "near, wifi or out"), .flag("reset", "start from clear air"), .option("seed", "S", "seed the draws of jitter and loss"),
            CLI.homeSpec, CLI.jsonSpec,
        ],
        positionals: 0,
        run: { parsed in
            var request = ControlCommands.LinkSet()
            var named = false
            if let value = try whole(parsed, "latency", LinkConditions.latencyRange) { request.latencyMs = value; named = true }
            if let value = try whole(parsed, "jitter", LinkConditions.jitterRange) { request.jitterMs = value; named = true }
            if let value = try whole(parsed, "bandwidth", LinkConditions.bandwidthRange) {
                request.bandwidthKbps = value
                named = true
            }
            if let text = parsed.value("loss") {
                guard let loss = Double(text), loss.isFinite, LinkConditions.lossRange.contains(loss) else {
                    throw ControlError.invalid("link set: --loss must be a number from 0 to 1, not \(OneLine.quote(text))")
                }
                request.loss = loss
                named = true
            }
            if let text = parsed.value("range") {
                guard LinkRange(rawValue: text) != nil else {
                    throw ControlError.invalid("link set: --range must be near, wifi or out, not \(OneLine.quote(text))")
                }
                request.range = text
                named = true
            }
            if parsed.has("reset") { request.reset = true; named = true }
            if let seed = try whole(parsed, "seed", 0...Int.max) { request.seed = seed; named = true }
            guard named else {
                throw ControlError.invalid("link set needs at least one of --latency, --jitter, --loss, --bandwidth, --range, --reset, --seed")
            }
            return try reply(parsed, CLI.client(parsed, .watch).send(request))
        })

    static let show = CLI.Command(
        path: ["link", "show"],
        synopsis: "--home W [--json]",
        summary: "The link's conditions as set and as frames meet them, whether it is connected, what the air has done, and the schedule playing.",
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            try reply(parsed, CLI.client(parsed, .watch).send(ControlCommands.LinkShow()))
        })

    static let schedule = CLI.Command(
        path: ["link", "schedule"],
        synopsis: "FILE [--seed S] --home W [--json]",
        summary: """
            Plays a timeline of link conditions from now (FILE: {"seed": S, "steps": [{"at": MS, "latencyMs": …,
            "range": …}, …]}, docs/link-conditions.md), each step a change as runway link set makes one. The
            same file and seed draw the same jitter and loss. A malformed file changes nothing (exit 2).
            """,
        specs: [.option("seed", "S", "seed the draws (overrides the file's; default: random, shown)"), CLI.homeSpec, CLI.jsonSpec],
        positionals: 1,
        run: { parsed in
            guard let path = parsed.positionals.first else { throw ControlError.invalid("link schedule needs FILE, the schedule") }
            let bytes: [UInt8]
            do { bytes = try Filesystem.readFile(path) } catch { throw ControlError.invalid("link schedule: cannot read \(OneLine.quote(path)): \(error)") }
            let schedule = try LinkSchedule.parse(file: bytes)
            let seed = try whole(parsed, "seed", 0...Int.max) ?? schedule.seed.map { Int($0) }
            let request = ControlCommands.LinkSchedule {
                $0.steps = schedule.stepsJSON
                if let seed { $0.seed = seed }
            }
            return try reply(parsed, CLI.client(parsed, .watch).send(request))
        })

    /// Runs the same commands under `runway watch link …`.
    static func aliases() -> [CLI.Command] {
        commands.map { original in
            CLI.Command(
                path: ["watch"] + original.path, synopsis: original.synopsis,
                summary: "The same as runway \(original.path.joined(separator: " ")). " + original.summary,
                specs: original.specs, positionals: original.positionals, run: original.run)
        }
    }

    /// A whole-number option, its refusal one line (exit 2).
    static func whole(_ parsed: ParsedArguments, _ name: String, _ range: ClosedRange<Int>) throws -> Int? {
        guard let text = parsed.value(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ControlError.invalid("link: --\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(OneLine.quote(text))")
        }
        return value
    }

    static func reply(_ parsed: ParsedArguments, _ reply: LinkConditionsReply) -> Int32 {
        if parsed.has("json") {
            Output.out(reply.json.text)
        } else {
            Output.out(render(reply))
        }
        return 0
    }

    /// `near, latency 50 ms ± 20 ms, loss 20%, unlimited — connected; 812 frames, 31 lost`.
    static func render(_ reply: LinkConditionsReply) -> String {
        let c = reply.conditions, shape = c.shape
        var lines: [String] = []
        if c.range == .out {
            lines.append("range     out (disconnected: runway link set --range near)")
        } else {
            lines.append("range     \(c.range.rawValue)\(c.range == .wifi ? " (the relay)" : "")")
            lines.append("latency   \(shape.latencyMilliseconds) ms ± \(shape.jitterMilliseconds) ms")
            lines.append("loss      \(percent(shape.loss))")
            lines.append("bandwidth \(shape.bandwidthKbps == 0 ? "unlimited" : "\(shape.bandwidthKbps) kbit/s")")
        }
        lines.append("link      \(reply.connected ? "connected" : "not connected")")
        lines.append("air       \(reply.framesCarried) frames entered, \(reply.framesLost) lost (seed \(reply.seed))")
        lines.append("in flight \(reply.bytesInAir) bytes now, at most \(reply.mostBytesInAir)")
        if reply.scheduleSteps > 0 {
            let next = reply.scheduleNextInMs.map { ", next in \($0) ms" } ?? ", ended"
            lines.append("schedule  \(reply.scheduleApplied) of \(reply.scheduleSteps) steps applied\(next)")
        }
        return lines.joined(separator: "\n")
    }

    static func percent(_ loss: Double) -> String {
        let value = (loss * 1000).rounded() / 10
        return value == value.rounded() ? "\(Int(value))%" : "\(value)%"
    }
}
