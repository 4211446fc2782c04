import Control
import Posix

/// `runway watch record`: more runs than one request's chunk are recorded a chunk at a time, each its
/// own transaction (bounded memory on both sides), the ids printed as they come.
extension ControlCommands.Record: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let count = command.count
        let json = context.json
        let client = try context.client()
        let progress = count > chunk && !json && isatty(2) != 0 ? Progress(total: count) : nil
        var recorded = 0
        var endingAt: Double?
        if json { Output.writeBytes(1, Array("[".utf8)) }
        while recorded < count {
            let size = min(chunk, count - recorded)
            var request = command
            request.count = size
            if recorded > 0 { request.seed = nil }
            if count > size {
                request.seriesTotal = count
                request.seriesStart = recorded
                request.endingAt = endingAt
            }
            let result: RecordReply
            do {
                result = try client.send(request)
            } catch let error as ControlError where recorded > 0 {
                progress?.finish()
                if json { Output.writeBytes(1, Array("]\n".utf8)) }
                throw ControlError(
                    "recorded \(recorded) of \(count) runs (in chunks of \(chunk), each committed) before: \(error.message)", exitStatus: error.exitStatus)
            }
            endingAt = result.endingAt
            if json {
                Output.writeBytes(1, Array(((recorded > 0 ? "," : "") + result.ids.map { "\"\($0)\"" }.joined(separator: ",")).utf8))
            } else if !result.ids.isEmpty {
                Output.out(result.ids.joined(separator: "\n"))
            }
            recorded += size
            progress?.update(recorded)
        }
        progress?.finish()
        if json { Output.writeBytes(1, Array("]\n".utf8)) }
        return 0
    }

    /// `  120,000 / 300,000 runs   8,150/s   22 s left` on stderr, redrawn in place.
    final class Progress {
        let total: Int
        let started = monotonicNow()
        init(total: Int) { self.total = total }

        func update(_ done: Int) {
            let elapsed = max(0.001, monotonicNow() - started)
            let rate = Double(done) / elapsed
            let left = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
            Output.write(2, "\r  \(grouped(done)) / \(grouped(total)) runs   \(grouped(Int(rate)))/s   \(left) s left   ")
        }

        func finish() { Output.write(2, "\n") }

        func grouped(_ n: Int) -> String {
            let digits = Array(String(n))
            var out = ""
            for (index, digit) in digits.enumerated() {
                if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
                out.append(digit)
            }
            return out
        }
    }

}

extension Render {
    static let faults: [Render] = [
        .of(ControlCommands.FailNext.self) { reply, command, _ in "the next \(command.count) transfer(s) fail with \(command.code) \(reply.name)" },
        .of(ControlCommands.WorkoutFault.self) { _, command, _ in "workout-start fault: \(command.mode)" },
    ]
}
