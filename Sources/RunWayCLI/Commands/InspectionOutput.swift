import Control
import JSONText
import Posix

// MARK: - What a device holds, read: each command's reply for a person

extension Render {
    /// A heading with its count, then a row a transfer.
    static let inspection: [Render] = [
        .of(ControlCommands.Files.self) { reply, _, _ in
            (["outstanding (\(reply.outstanding.count))"]
                + reply.outstanding.map { "  \($0.transferId)  \($0.name)  \($0.completedBytes) of \($0.bytes) bytes there  sha256 \($0.sha256)" }
                + ["received (\(reply.received.count))"]
                + reply.received.map { "  \($0.transferId)  \($0.name)  \($0.bytes) bytes  sha256 \($0.sha256)  \($0.path)" }).joined(separator: "\n")
        },
        .of(ControlCommands.Received.self) { reply, _, _ in
            reply.userInfos.isEmpty ? "nothing received" : reply.userInfos.map { JSONValue.object($0).text }.joined(separator: "\n")
        },
        .of(ControlCommands.Transfers.self) { reply, _, _ in
            (["\(reply.outstandingUserInfoTransfers) outstanding"]
                + reply.outstanding.map {
                    "  \($0.transferId)\($0.onTheWire ? " (on the wire)" : "")  \($0.bytes) bytes  keys: \($0.keys.joined(separator: ","))"
                })
                .joined(separator: "\n")
        },
        .of(ControlCommands.Quarantine.self) { reply, _, _ in
            (["\(reply.quarantined) quarantined"]
                + reply.transfers.map { "  \($0.id)  transfer \($0.transferId)  \($0.quarantinedAt)  \($0.bytes) bytes  \($0.reason)" }).joined(separator: "\n")
        },
    ]
}

/// `runway phone|watch events [--follow]`: the recent calls, then, following, each as it comes, until the
/// daemon closes the connection (a line per call, or one JSON object per line).
extension ControlCommands.Events: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        if command.follow { restoreDefaultSignals([SIGINT, SIGTERM]) }
        let client = try context.client()
        let recent = try client.send(command).value.arrayValue ?? []
        for event in recent { print(event, json: context.json) }
        guard command.follow else {
            if !context.json, recent.isEmpty { Output.out("no delegate calls yet") }
            return 0
        }
        while let event = try client.nextEvent() { print(event, json: context.json) }
        // Like `runway phone ui`: the daemon stopped (or detached a follower that did not read).
        Output.err("-- the \(context.device.rawValue) closed the connection --")
        return 0
    }

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
        func add(_ key: String) {
            guard let value = event[key], value != .null else { return }
            let text: String
            switch value {
            case let .string(s): text = s
            case let .array(items): text = items.map { $0.stringValue ?? $0.text }.joined(separator: ",")
            default: text = value.text
            }
            parts.append("\(key)=\(text)")
        }
        switch call {
        case "didReceiveUserInfo":
            for key in ["seq", "bytes", "outcome", "reason", "keys"] { add(key) }
        case "didFinishUserInfoTransfer":
            add("seq")
            if event["replayed"]?.boolValue == true { parts.append("replayed") }
            if let error = event["error"], error != .null {
                parts.append("error=\(error["code"]?.intValue ?? 0) \(error["name"]?.stringValue ?? "")")
            } else {
                parts.append("delivered")
            }
        case "didCommitReceivedTransfers":
            for key in ["count", "firstSeq", "lastSeq"] { add(key) }
        case "didReceiveApplicationContext":
            add("bytes")
            add("context")
            if event["context"] == nil { add("keys") }
        case "didReceiveMessage":
            for key in ["bytes", "repliedAtOnce", "message"] { add(key) }
            if event["message"] == nil { add("keys") }
        case "os.log":
            for key in ["type", "subsystem", "category", "message"] { add(key) }
        default:
            for key in (event.objectValue ?? [:]).keys.sorted() where !["index", "at", "call"].contains(key) { add(key) }
        }
        return "\(time)  \(call)" + (parts.isEmpty ? "" : "  " + parts.joined(separator: " "))
    }
}
