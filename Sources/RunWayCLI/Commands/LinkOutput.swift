import Control
import JSONText
import Posix

// MARK: - `runway link set|show|schedule` (docs/link-conditions.md): the air between the devices

extension Render {
    /// Each change to the link prints the conditions after it.
    static let link: [Render] = [
        .of(ControlCommands.LinkSet.self) { reply, _, _ in LinkText.render(reply) },
        .of(ControlCommands.LinkShow.self) { reply, _, _ in LinkText.render(reply) },
        .of(ControlCommands.LinkSchedule.self) { reply, _, _ in LinkText.render(reply) },
    ]
}

extension ControlCommands.LinkSet: CLIPrepared {
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws {
        guard !arguments.isEmpty else {
            throw ControlError.invalid("link set needs at least one of --latency, --jitter, --loss, --bandwidth, --range, --reset, --seed")
        }
    }
}

/// FILE's steps, checked here (a malformed one changes nothing, exit 2), and its seed unless `--seed` says one.
extension ControlCommands.LinkSchedule: CLIPrepared {
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws {
        guard let path = context.parsed.positionals.first else { throw ControlError.invalid("link schedule needs FILE, the schedule") }
        let bytes: [UInt8]
        do { bytes = try Filesystem.readFile(path) } catch { throw ControlError.invalid("link schedule: cannot read \(OneLine.quote(path)): \(error)") }
        let schedule = try LinkSchedule.parse(file: bytes)
        arguments["steps"] = schedule.stepsJSON
        if arguments["seed"] == nil, let seed = schedule.seed { arguments["seed"] = .integer(Int64(seed)) }
    }
}

enum LinkText {
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
