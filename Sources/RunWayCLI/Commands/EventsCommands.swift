import Connectivity
import Control
import JSONText
import Posix

/// `runway {phone|watch} events [--follow] [--limit N] [--json]`: the session's delegate calls, as the
/// app was told them (`DelegateTrace` in the daemon).
enum EventsCLI {
    static func command(_ device: DeviceRole) -> CLI.Command {
        let name = device.rawValue, home = device == .phone ? "P" : "W"
        return CLI.Command(
            path: [name, "events"], synopsis: "--home \(home) [--follow] [--limit N] [--json]",
            summary: """
                The delegate calls the \(name)'s session made, oldest first: activationDidComplete, didReceiveUserInfo
                (seq, keys, size, outcome), didCommitReceivedTransfers, didFinishUserInfoTransfer (seq, error),
                didReceiveApplicationContext, didReceiveMessage, sessionReachabilityDidChange,
                sessionWatchStateDidChange — and the app's os.Logger messages (os.log) where they came among them.
                Shows the last N (default 100; the daemon keeps the last 1024 since it started). With --follow, then each new call as it happens, until Ctrl-C or the daemon stops.
                --json prints one JSON object per line (ndjson), flushed per event; payloads in typed JSON.
                """,
            specs: [
                CLI.homeSpec, .flag("follow", "keep printing calls as they happen"),
                .option("limit", "N", "how many recent calls to show first (0 to 1024, default 100)"), CLI.jsonSpec,
            ],
            positionals: 0,
            run: { parsed in try run(parsed, device) })
    }

    static func run(_ parsed: ParsedArguments, _ device: DeviceRole) throws -> Int32 {
        let limit = try parsed.integer("limit", default: 100, range: 0...1024)!
        let follow = parsed.has("follow"), json = parsed.has("json")
        if follow { restoreDefaultSignals([SIGINT, SIGTERM]) }
        let client = try CLI.client(parsed, device)
        let recent = try client.send(
            ControlCommands.Events {
                $0.limit = limit
                $0.follow = follow
            })
        for event in recent.value.arrayValue ?? [] { print(event, json: json) }
        guard follow else {
            if !json, recent.value.arrayValue?.isEmpty ?? true { Output.out("no delegate calls yet") }
            return 0
        }
        while let event = try client.nextEvent() { print(event, json: json) }
        // Like `runway phone ui`: the daemon stopped (or detached a follower that did not read).
        Output.err("-- the \(name(device)) closed the connection --")
        return 0
    }

    static func name(_ device: DeviceRole) -> String { device == .phone ? "phone" : "watch" }

    /// One line per call, written at once (no buffering: a follower sees each as it happens).
    static func print(_ event: JSONValue, json: Bool) {
        Output.out(json ? event.text : line(event))
    }

    /// `07:00:01.250  didReceiveUserInfo  seq=5 bytes=812 accepted keys=distance,id,…`
    static func line(_ event: JSONValue) -> String {
        let at = event["at"]?.stringValue ?? ""
        let time = at.count >= 23 ? String(at.dropFirst(11).prefix(12)) : at
        let call = event["call"]?.stringValue ?? "?"
        var parts: [String] = []
        func add(_ key: String, _ label: String? = nil) {
            guard let value = event[key], value != .null else { return }
            let text: String
            switch value {
            case let .string(s): text = s
            case let .array(items): text = items.map { $0.stringValue ?? $0.text }.joined(separator: ",")
            default: text = value.text
            }
            parts.append("\(label ?? key)=\(text)")
        }
        switch call {
        case "didReceiveUserInfo":
            add("seq"); add("bytes"); add("outcome"); add("reason"); add("keys")
        case "didFinishUserInfoTransfer":
            add("seq")
            if event["replayed"]?.boolValue == true { parts.append("replayed") }
            if let error = event["error"], error != .null {
                parts.append("error=\(error["code"]?.intValue ?? 0) \(error["name"]?.stringValue ?? "")")
            } else {
                parts.append("delivered")
            }
        case "didCommitReceivedTransfers":
            add("count"); add("firstSeq"); add("lastSeq")
        case "didReceiveApplicationContext":
            add("bytes"); add("context")
            if event["context"] == nil { add("keys") }
        case "didReceiveMessage":
            add("bytes"); add("repliedAtOnce"); add("message")
            if event["message"] == nil { add("keys") }
        case "os.log":
            add("type"); add("subsystem"); add("category"); add("message")
        default:
            for key in (event.objectValue ?? [:]).keys.sorted() where !["index", "at", "call"].contains(key) { add(key) }
        }
        return "\(time)  \(call)" + (parts.isEmpty ? "" : "  " + parts.joined(separator: " "))
    }
}
