import Control
import JSONText
import Posix
import TerminalViews

/// `runway timeline record` samples a pair's two counts into a file while a scenario runs;
/// `runway timeline show` draws it in the terminal and as SVG (docs/views.md).
enum TimelineCommands {
    static let record = CLI.Command(
        path: ["timeline", "record"],
        synopsis: "[NAME] [--phone P --watch W] --out FILE [--interval-ms N] [--until-drained] [--max-seconds N] [--json]",
        summary: """
            Samples the pair every interval — each daemon up or down and its pid, the watch's outbox depth, the
            phone's stored count — one JSON line per sample in FILE (a header line first), so an interrupted
            recording keeps every sample it took and a long one is never held in memory. A daemon killed and
            relaunched shows as down then up (or, between two samples, as a new pid). Stops on Ctrl-C or SIGTERM,
            after --max-seconds (default 3600), or with --until-drained at the first sample, after the watch's outbox
            was non-empty, in which it is empty and the phone answers. Draw it with `runway timeline show FILE`.
            """,
        specs: PairPoll.homeSpecs + [
            .option("out", "FILE", "where to write the samples (replaced)"),
            .option("interval-ms", "N", "how often to sample (10 to 60000; default 100)"),
            .flag("until-drained", "stop once the watch's outbox has emptied"),
            .option("max-seconds", "N", "stop after this long at the latest (1 to 86400; default 3600)"),
            CLI.jsonSpec, CLI.pairSpec,
        ],
        positionals: 1,
        run: { parsed in
            let interval = try parsed.integer("interval-ms", default: 100, range: 10...60_000)!
            let limit = Double(try parsed.integer("max-seconds", default: 3600, range: 1...86_400)!)
            let out = try parsed.required("out")
            let pair = try PairPoll.pair(parsed)
            try PairPoll.checkHomes(pair)
            let file: FileDescriptor
            do throws(SystemError) { file = try FileDescriptor.open(out, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644) } catch {
                throw ControlError.invalid("cannot write \(out): \(String(cString: strerror(error.errno)))")
            }
            defer { file.close() }
            // Signals as events between two samples: the file always ends with a whole line.
            let signals = try SignalSource([SIGINT, SIGTERM, SIGHUP])
            let header = Timeline.headerLine(
                pair: pair.name, intervalMilliseconds: interval, phone: pair.phone, watch: pair.watch,
                startedAt: Timestamp.iso8601(Double(time(nil))))
            try file.writeAll(Array((header + "\n").utf8))
            let start = monotonicNow()
            var count = 0, sawQueue = false, marks = 0
            var previous: Timeline.Sample?
            while true {
                let now = monotonicNow()
                let poll = PairPoll.take(pair)
                let sample = Timeline.Sample(
                    seconds: now - start, watch: poll.watch.sample(count: "outstandingUserInfoTransfers"),
                    phone: poll.phone.sample(count: "flights"))
                try file.writeAll(Array((Timeline.sampleLine(sample) + "\n").utf8))
                count += 1
                if let previous {
                    marks += Transition.between(previous.watch, sample.watch).count + Transition.between(previous.phone, sample.phone).count
                }
                previous = sample
                if (sample.watch.count ?? 0) > 0 { sawQueue = true }
                if parsed.has("until-drained") && sawQueue && sample.watch.count == 0 && sample.phone.up { break }
                if sample.seconds >= limit { break }
                let wait = Double(interval) / 1000 - (monotonicNow() - now)
                if try signals.descriptor.waitUntil(.readable, timeoutMilliseconds: Int32(max(0, wait * 1000))) {
                    if !signals.drain().isEmpty { break }
                }
            }
            let seconds = previous?.seconds ?? 0
            Output.out(
                parsed.has("json")
                    ? JSONValue.object(["out": .string(out), "samples": .integer(Int64(count)), "seconds": .number(seconds), "marks": .integer(Int64(marks))])
                        .text
                    : "timeline: \(count) samples over \(String(format1: seconds)) s in \(out), \(marks) mark(s); draw it with runway timeline show \(out)"
            )
            return 0
        })

    static let show = CLI.Command(
        path: ["timeline", "show"],
        synopsis: "FILE [--svg OUT] [--width N] [--height N] [--ascii] [--json]",
        summary: """
            Draws a timeline recorded by `runway timeline record`: the watch's outbox depth (●) and the phone's
            stored count (■) on one axis over time, a dotted column where a daemon went down (✕) or came up (▲),
            the marks in words and the final counts. --svg also writes the picture as an SVG file. --json prints
            the marks and final counts instead. A file that is not a timeline is exit 2, naming the line.
            """,
        specs: [
            .option("svg", "OUT", "also write the picture as SVG to OUT"),
            .option("width", "N", "the chart's width in columns (10 to 500; default: the terminal's)"),
            .option("height", "N", "the chart's height in rows (3 to 100; default 12)"),
            Terminal.asciiSpec, CLI.jsonSpec,
        ],
        positionals: 1,
        run: { parsed in
            guard let path = parsed.positionals.first else { throw UsageError("the timeline FILE is required (runway timeline record --out FILE)") }
            let width = try parsed.integer("width", default: max(10, min(500, (Terminal.isTerminal ? Terminal.size().columns : 80) - 10)), range: 10...500)!
            let height = try parsed.integer("height", default: 12, range: 3...100)!
            let timeline = try load(path)
            if let svg = parsed.value("svg") {
                do {
                    try Filesystem.writeAtomically(Array(TimelineSVG.render(timeline).utf8), to: svg, mode: 0o644)
                } catch {
                    throw ControlError.invalid("cannot write \(svg): \(error)")
                }
            }
            if parsed.has("json") {
                Output.out(summaryJSON(timeline, svg: parsed.value("svg")).text)
            } else {
                Output.out(
                    TimelineChart.render(
                        timeline, width: width, height: height,
                        style: Terminal.glyphStyle(ascii: parsed.has("ascii"))
                    ).joined(separator: "\n"))
                if let svg = parsed.value("svg") { Output.out("svg: \(svg)") }
            }
            return 0
        })

    /// At most 64 MiB (about 800,000 samples): a bigger file is refused, not read.
    static func load(_ path: String) throws -> Timeline {
        guard let status = Filesystem.status(of: path), Filesystem.kind(of: path) == .regular else {
            throw ControlError.invalid("\(path): no such timeline file")
        }
        guard status.st_size <= 64 << 20 else { throw ControlError.invalid("\(path): too large for a timeline (over 64 MiB)") }
        let bytes: [UInt8]
        do { bytes = try Filesystem.readFile(path) } catch { throw ControlError.invalid("\(path): \(error)") }
        do {
            return try Timeline.parse(String(decoding: bytes, as: UTF8.self))
        } catch {
            throw ControlError.invalid("\(path): \(error.description)")
        }
    }

    static func summaryJSON(_ timeline: Timeline, svg: String?) -> JSONValue {
        var fields: [String: JSONValue] = [
            "pair": .string(timeline.pair), "seconds": .number(timeline.duration), "samples": .integer(Int64(timeline.samples.count)),
            "marks": .array(
                timeline.marks.map { mark in
                    .object([
                        "t": .number(mark.seconds), "device": .string(mark.device), "transition": .string(mark.transition.rawValue),
                        "pid": mark.pid.map { .integer(Int64($0)) } ?? .null,
                    ])
                }),
            "final": .object([
                "watchOutbox": timeline.finalWatchOutbox.map { .integer(Int64($0)) } ?? .null,
                "phoneStored": timeline.finalPhoneStored.map { .integer(Int64($0)) } ?? .null,
            ]),
        ]
        if let svg { fields["svg"] = .string(svg) }
        return .object(fields)
    }
}
