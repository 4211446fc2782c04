import Posix
import Connectivity
import Control
import JSONText
import TerminalViews

/// `runway watch ...`
enum WatchCommands {
    static let record = CLI.Command(
        path: ["watch", "record"],
        synopsis: "--home W [--count N] [--distance KM] [--seed S] [--json]",
        summary: """
            Records N finished runs on the watch (default 1), queued for transfer to the phone. Works while the
            phone is down. Up to 10,000 runs are one outbox transaction (all or nothing); more are recorded in
            chunks of 10,000, each its own transaction, so memory stays bounded — on a terminal with a progress
            line (count, rate, time left) on stderr. Prints the new flight ids as they are recorded, one per line
            (a JSON array with --json). A chunk that fails stops the recording: what was recorded is said, exit 1.
            """,
        specs: [
            CLI.homeSpec,
            .option("count", "N", "how many runs (1 to 1000000; default 1)"),
            .option("distance", "KM", "each run's distance in km (default: random, 3 to 12)"),
            .option("seed", "S", "seed the run generator, for repeatable runs"),
            CLI.jsonSpec,
        ],
        positionals: 0,
        run: { parsed in
            let count = try parsed.integer("count", default: 1, range: 1...1_000_000)!
            let distance = try parsed.number("distance", range: 0...1000)
            let seed = try parsed.integer("seed", range: 0...Int.max)
            let json = parsed.has("json")
            let client = try CLI.client(parsed, .watch)
            let progress = count > recordChunk && !json && isatty(2) != 0 ? Progress(total: count) : nil
            var recorded = 0
            var endingAt: Double?
            if json { Output.writeBytes(1, Array("[".utf8)) }
            while recorded < count {
                let chunk = min(recordChunk, count - recorded)
                var request = ControlCommands.Record()
                request.count = chunk
                request.distanceKm = distance
                if recorded == 0 { request.seed = seed }
                if count > chunk {
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
                        "recorded \(recorded) of \(count) runs (in chunks of \(recordChunk), each committed) before: \(error.message)",
                        exitStatus: error.exitStatus)
                }
                endingAt = result.endingAt
                let ids = result.ids
                if json {
                    let text = (recorded > 0 ? "," : "") + ids.map { "\"\($0)\"" }.joined(separator: ",")
                    Output.writeBytes(1, Array(text.utf8))
                } else if !ids.isEmpty {
                    Output.out(ids.joined(separator: "\n"))
                }
                recorded += chunk
                progress?.update(recorded)
            }
            progress?.finish()
            if json { Output.writeBytes(1, Array("]\n".utf8)) }
            return 0
        })

    /// More runs than this are recorded in chunks (each one transaction): bounded memory on both sides.
    static let recordChunk = ControlCommands.Record.chunk

    /// `  120,000 / 300,000 runs   8,150/s   22 s left` on stderr, redrawn in place.
    final class Progress {
        let total: Int
        let started = monotonicSeconds()
        init(total: Int) { self.total = total }

        func update(_ done: Int) {
            let elapsed = max(0.001, monotonicSeconds() - started)
            let rate = Double(done) / elapsed
            let left = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
            Output.write(2, "\r  \(grouped(done)) / \(grouped(total)) runs   \(grouped(Int(rate)))/s   \(left) s left   ")
        }

        func finish() { Output.write(2, "\n") }

        static func monotonicSeconds() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        private func monotonicSeconds() -> Double { Self.monotonicSeconds() }

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

    static let status = CLI.Command(
        path: ["watch", "status"],
        synopsis: "--home W [--json]",
        summary: """
            The watch's state in sections: SESSION (activation, pairing, the two devices), LINK (connected or out of
            range, reachable), OUTBOX (userInfo transfers not yet delivered, on the wire, acknowledged), INBOX, APP
            (versions, the watch app installed and in the foreground, its language — the phone's, from the
            application context, or the watch's own system's) and OS (the process). --json prints the daemon's
            status object as it is.
            """,
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try CLI.client(parsed, .watch).send(ControlCommands.Status()).json
            if parsed.has("json") {
                Output.out(result.text)
            } else {
                Output.out(DeviceStatusText.render(result))
            }
            return 0
        })
}

/// `runway link down|up`, also as `runway watch link down|up` (the link is the watch's to take down).
enum LinkCommands {
    static func command(_ state: String) -> CLI.Command {
        CLI.Command(
            path: ["link", state],
            synopsis: "--home W",
            summary: state == "down"
                ? "Takes the watch out of range: the link drops and stays down; transfers keep queueing on the watch, nothing is lost."
                : "Brings the watch back in range: it reconnects to the phone and the queued transfers flow again.",
            specs: [CLI.homeSpec],
            positionals: 0,
            run: { parsed in
                _ = try CLI.client(parsed, .watch).send(ControlCommands.Link { $0.state = state })
                Output.out("link \(state)")
                return 0
            })
    }
}

extension LinkCommands {
    /// `runway watch link …`: the same commands under the watch, where a user looks for them first.
    static func aliases() -> [CLI.Command] {
        [command("down"), command("up"), failNext].map { original in
            CLI.Command(
                path: ["watch"] + original.path, synopsis: original.synopsis,
                summary: "The same as runway \(original.path.joined(separator: " ")). " + original.summary,
                specs: original.specs, positionals: original.positionals, run: original.run)
        }
    }

    /// `runway link fail-next N [--code 7017|7014|7015]` (fault injection, `--enable-test-commands`).
    static let failNext = CLI.Command(
        path: ["link", "fail-next"],
        synopsis: "N [--code 7017|7014|7015] --home W",
        summary: """
            FAULT INJECTION: the watch's next N userInfo transfers finish with that error (default 7017
            transferTimedOut; 7014 deliveryFailed, 7015 insufficientSpace) in didFinish(error:) and leave
            the outstanding list; RunWay's watch app queues each run again. 0 clears it. Needs a watch-agent
            started with --enable-test-commands.
            """,
        specs: [CLI.homeSpec, .option("code", "C", "the WCError code: 7017 (default), 7014 or 7015")],
        positionals: 1,
        run: { parsed in
            // Bad values are one line (exit 2), not the usage text.
            guard let text = parsed.positionals.first else { throw ControlError.invalid("link fail-next needs N, the number of transfers to fail") }
            guard let count = Int(text), (0...1_000_000).contains(count) else {
                throw ControlError.invalid("link fail-next: N must be a whole number from 0 to 1000000, not \(OneLine.quote(text))")
            }
            let codeText = parsed.value("code") ?? "7017"
            guard let code = Int(codeText), [7017, 7014, 7015].contains(code) else {
                throw ControlError.invalid("link fail-next: --code must be 7017, 7014 or 7015, not \(OneLine.quote(codeText))")
            }
            let reply = try CLI.client(parsed, .watch).send(
                ControlCommands.FailNext {
                    $0.count = count
                    $0.code = code
                })
            Output.out("the next \(count) transfer(s) fail with \(code) \(reply.name)")
            return 0
        })
}

/// A status object as aligned `key: value` lines.
enum StatusText {
    static func render(_ status: JSONValue) -> String {
        guard let fields = status.objectValue else { return status.text }
        let width = (fields.keys.map(TextWidth.of).max() ?? 0) + 2
        return fields.keys.sorted().map { key in
            let value = fields[key]!
            return (key + ":").padding(width) + (value.stringValue ?? value.text)
        }.joined(separator: "\n")
    }
}
