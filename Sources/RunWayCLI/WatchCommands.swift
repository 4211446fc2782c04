import Connectivity
import Devices
import JSONText

/// `runway watch ...`
enum WatchCommands {
    static let record = CLI.Command(
        path: ["watch", "record"],
        synopsis: "--home W [--count N] [--distance KM] [--seed S] [--json]",
        summary: """
        Records N finished runs on the watch (default 1), each a flight queued for transfer to the phone
        in one outbox transaction. Works while the phone is down. Prints the new flight ids, one per line
        (a JSON array with --json).
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
            var arguments: [String: JSONValue] = ["count": .integer(Int64(count))]
            if let distance { arguments["distanceKm"] = .number(distance) }
            if let seed { arguments["seed"] = .integer(Int64(seed)) }
            let result = try CLI.client(parsed, .watch).call(ControlRequest(command: "record", arguments: arguments))
            let ids = result["ids"]?.arrayValue ?? []
            if parsed.has("json") {
                Output.out(JSONValue.array(ids).text)
            } else {
                Output.out(ids.compactMap(\.stringValue).joined(separator: "\n"))
            }
            return 0
        })

    static let status = CLI.Command(
        path: ["watch", "status"],
        synopsis: "--home W [--json]",
        summary: "The watch's state: paired, reachable, outstanding userInfo transfers, and its language (the phone's, from the application context; languageSource phone or watch-system).",
        specs: [CLI.homeSpec, CLI.jsonSpec],
        positionals: 0,
        run: { parsed in
            let result = try CLI.client(parsed, .watch).call(ControlRequest(command: "status"))
            if parsed.has("json") {
                Output.out(result.text)
            } else {
                Output.out(StatusText.render(result))
            }
            return 0
        })
}

/// `runway link down|up`
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
                _ = try CLI.client(parsed, .watch).call(ControlRequest(command: "link", arguments: ["state": .string(state)]))
                Output.out("link \(state)")
                return 0
            })
    }
}

/// A status object as aligned `key: value` lines.
enum StatusText {
    static func render(_ status: JSONValue) -> String {
        guard let fields = status.objectValue else { return status.text }
        let width = (fields.keys.map(\.count).max() ?? 0) + 1
        return fields.keys.sorted().map { key in
            let value = fields[key]!
            let text = value.stringValue ?? value.text
            return key + ":" + String(repeating: " ", count: width - key.count + 1) + text
        }.joined(separator: "\n")
    }
}
