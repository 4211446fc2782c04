import Connectivity
import Control
import JSONText
import Posix

/// The session's generic commands, the same on both devices: `runway {watch|phone} transfer-userinfo |
/// received | context set|get | message | transfers | cancel`.
enum SessionCLI {
    static func commands(_ device: DeviceRole) -> [CLI.Command] {
        let name = device.rawValue
        let home = device == .phone ? "P" : "W"
        let other = device == .phone ? "watch" : "phone"
        return [
            CLI.Command(
                path: [name, "transfer-userinfo"], synopsis: "--home \(home) --json-file F [--json]",
                summary: """
                    Queues the JSON object in F (- for stdin) as a userInfo transfer to the \(other): durable before this
                    returns, delivered in order, at least once. Prints the transfer id; on error its code and name
                    (e.g. 7010 payloadUnsupportedTypes for a null, 7009 payloadTooLarge over 65,536 bytes), exit 1.
                    """,
                specs: [CLI.homeSpec, jsonFileSpec, CLI.jsonSpec], positionals: 0,
                run: { parsed in
                    let payload = try readJSONObject(parsed)
                    let reply = try call(
                        parsed, device, ControlCommands.TransferUserInfo { $0.payload = payload })
                    Output.out(parsed.has("json") ? reply.json.text : String(reply.transferId))
                    return 0
                }),
            CLI.Command(
                path: [name, "transfer-file"], synopsis: "PATH --home \(home) [--metadata JSON] [--json]",
                summary: """
                    Sends the file at PATH to the \(other) (transferFile): copied into the \(name)'s queue before this
                    returns (the file may then be changed or deleted), sent in chunks in order with other files,
                    checked end to end (SHA-256), resumed from the last chunk the \(other) made durable after either
                    side stops. --metadata is a JSON object (typed JSON) that travels with it. Prints the transfer
                    id, the size and the SHA-256. 7013 fileAccessDenied for a file missing, unreadable or not a
                    regular file; 7009 payloadTooLarge over 1 GiB (1,073,741,824 bytes) or metadata over 65,536
                    bytes; 7010 for metadata that is not a property list.
                    """,
                specs: [CLI.homeSpec, .option("metadata", "JSON", "a JSON object sent with the file (typed JSON)"), CLI.jsonSpec], positionals: 1,
                run: { parsed in
                    guard let path = parsed.positionals.first, !path.isEmpty else { throw UsageError("a file PATH is required") }
                    var request = ControlCommands.TransferFile()
                    request.path = Filesystem.absolutePath(path)
                    if let text = parsed.value("metadata") {
                        let json: JSONValue
                        do { json = try JSONValue(parsing: Array(text.utf8)) } catch { throw UsageError("--metadata is not valid JSON: \(error)") }
                        guard case .object = json else { throw UsageError("--metadata must be a JSON object, not \(kind(of: json))") }
                        if let problem = TypedJSON.problem(in: json) { throw ControlError.invalid("--metadata: \(problem)") }
                        request.metadata = json
                    }
                    let reply = try call(parsed, device, request)
                    Output.out(parsed.has("json") ? reply.json.text : "file transfer \(reply.transferId): \(reply.bytes) bytes, sha256 \(reply.sha256)")
                    return 0
                }),
            CLI.Command(
                path: [name, "files"], synopsis: "--home \(home) [--json]",
                summary: """
                    The \(name)'s file transfers: outstanding (queued or on their way, with the bytes the \(other) has made
                    durable) and received (where the RunWay app keeps them, Documents/Received in its container), each
                    with its size and SHA-256.
                    """,
                specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
                run: { parsed in
                    let result = try call(parsed, device, ControlCommands.Files())
                    if parsed.has("json") {
                        Output.out(result.json.text)
                        return 0
                    }
                    var lines = ["outstanding (\(result.outstanding.count))"]
                    for file in result.outstanding {
                        lines.append("  \(file.transferId)  \(file.name)  \(file.completedBytes) of \(file.bytes) bytes there  sha256 \(file.sha256)")
                    }
                    lines.append("received (\(result.received.count))")
                    for file in result.received {
                        lines.append("  \(file.transferId)  \(file.name)  \(file.bytes) bytes  sha256 \(file.sha256)  \(file.path)")
                    }
                    Output.out(lines.joined(separator: "\n"))
                    return 0
                }),
            CLI.Command(
                path: [name, "received"], synopsis: "--home \(home) [--json]",
                summary: "The userInfo dictionaries delivered to the \(name) app that are not flights, in arrival order (flights are in the phone's logbook).",
                specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
                run: { parsed in
                    let result = try call(parsed, device, ControlCommands.Received())
                    if parsed.has("json") {
                        Output.out(result.json.text)
                    } else {
                        Output.out(result.userInfos.isEmpty ? "nothing received" : result.userInfos.map { JSONValue.object($0).text }.joined(separator: "\n"))
                    }
                    return 0
                }),
            CLI.Command(
                path: [name, "context", "set"], synopsis: "--home \(home) --json-file F",
                summary:
                    "Replaces the application context the \(other) sees (latest value only, durable; an identical context is not delivered twice). At most 262,144 bytes.",
                specs: [CLI.homeSpec, jsonFileSpec, CLI.jsonSpec], positionals: 0,
                run: { parsed in
                    let payload = try readJSONObject(parsed)
                    let reply = try call(
                        parsed, device, ControlCommands.ContextSet { $0.payload = payload })
                    Output.out(parsed.has("json") ? reply.json.text : "context version \(reply.version)")
                    return 0
                }),
            CLI.Command(
                path: [name, "message"], synopsis: "--home \(home) (--json-file F | --data-file F [--out F]) [--no-reply] [--timeout MS] [--json]",
                summary: """
                    Sends the JSON object in F as an immediate message and prints the \(other)'s reply. Only while the
                    \(other) is reachable (else 7007 notReachable)\(device == .watch ? "; with the watch app in the foreground and the phone app not running, phone-os launches it for the message (a force-quit app is not: 7007)" : ""); 7012
                    messageReplyTimedOut if no reply comes in time (default 10000 ms). The apps reply with what they
                    received; a message with "replyDelayMs": N is answered N ms late, one with "noReply": true never.
                    --data-file F sends F's bytes as a data message (sendMessageData, at most 65,536 bytes, else 7009
                    payloadTooLarge): the apps answer with the same bytes, written to stdout as they are, or to
                    --out F (--json: {"reply":{"$data":…}}).
                    --no-reply sends it without a reply handler: the \(other)'s app hears didReceiveMessage (or
                    didReceiveMessageData) without a reply, and this prints "delivered" once it has (7014
                    deliveryFailed if not confirmed in time).
                    """,
                specs: [
                    CLI.homeSpec, jsonFileSpec, .option("data-file", "F", "send F's bytes as a data message (sendMessageData; - for stdin)"),
                    .option("out", "F", "write a data message's reply to F, not stdout"),
                    .flag("no-reply", "send it without a reply handler: wait only until it is delivered"),
                    .option("timeout", "MS", "how long to wait for the reply, or the delivery (default 10000)"), CLI.jsonSpec,
                ],
                positionals: 0,
                run: { parsed in
                    if parsed.value("data-file") != nil { return try sendData(parsed, device) }
                    if parsed.value("out") != nil { throw UsageError("--out is for a data message's reply: give --data-file F") }
                    var request = ControlCommands.Message()
                    request.payload = try readJSONObject(parsed)
                    request.timeoutMs = try parsed.integer("timeout", range: 1...600_000)
                    if parsed.has("no-reply") { request.replyExpected = false }
                    let reply = try call(parsed, device, request)
                    switch reply.outcome {
                    case .delivered: Output.out(parsed.has("json") ? reply.json.text : "delivered")
                    case let .reply(answer): Output.out(parsed.has("json") ? JSONValue.object(answer).text : JSONValue.object(answer).prettyText)
                    }
                    return 0
                }),
            CLI.Command(
                path: [name, "transfers"], synopsis: "--home \(home) [--limit N] [--json]",
                summary:
                    "The outstanding userInfo transfers (oldest first; every one isTransferring, as on Apple's, and whether it is on the wire — those cannot be cancelled; their keys and encoded size — not whole payloads) and the most recently finished ones.",
                specs: [CLI.homeSpec, .option("limit", "N", "list at most N (default 100)"), CLI.jsonSpec], positionals: 0,
                run: { parsed in
                    var request = ControlCommands.Transfers()
                    if let limit = try parsed.integer("limit", range: 1...100_000) { request.limit = limit }
                    let result = try call(parsed, device, request)
                    if parsed.has("json") {
                        Output.out(result.json.text)
                    } else {
                        var lines = ["\(result.outstandingUserInfoTransfers) outstanding"]
                        for item in result.outstanding {
                            lines.append(
                                "  \(item.transferId)\(item.onTheWire ? " (on the wire)" : "")  \(item.bytes) bytes  keys: \(item.keys.joined(separator: ","))")
                        }
                        Output.out(lines.joined(separator: "\n"))
                    }
                    return 0
                }),
            CLI.Command(
                path: [name, "cancel"], synopsis: "ID --home \(home)",
                summary: """
                    Cancels an outstanding userInfo transfer that is not yet on its way, and says which of the cases it
                    met: cancelled (exit 0); already cancelled (exit 0: it will not be delivered either way); already
                    delivered — the \(other) acknowledged it (exit 1); on its way — sent, not yet acknowledged, so it can
                    no longer be taken back (exit 1; if the link drops first it is queued again, and cancellable); no
                    transfer ever had that id on this \(name) (exit 2). Under --json a failure's error carries "reason":
                    delivered, onTheWire or unknown. `runway \(name) transfers` lists what can be cancelled.
                    """,
                specs: [CLI.homeSpec], positionals: 1,
                run: { parsed in
                    guard let text = parsed.positionals.first, let id = Int(text), id > 0 else {
                        throw UsageError("a transfer ID (a positive number) is required")
                    }
                    let reply = try call(
                        parsed, device, ControlCommands.Cancel { $0.transferId = id })
                    if reply.alreadyCancelled {
                        Output.out("transfer \(id) was already cancelled")
                        return 0
                    }
                    Output.out("cancelled \(id)")
                    return 0
                }),
        ]
    }

    /// `runway phone transfer-complication --json-file F`: `transferCurrentComplicationUserInfo`.
    static let transferComplication = CLI.Command(
        path: ["phone", "transfer-complication"], synopsis: "--home P --json-file F [--json]",
        summary: """
            Queues the JSON object in F as complication data for the watch (transferCurrentComplicationUserInfo): sent
            ahead of any queued userInfo, while today's budget lasts — 50 a day on the phone's clock, and only while
            the complication is on the watch face (runway watch complication on). Past that it goes as a plain
            userInfo transfer, and this says so. Prints the transfer id and what is left today.
            """,
        specs: [CLI.homeSpec, jsonFileSpec, CLI.jsonSpec], positionals: 0,
        run: { parsed in
            let payload = try readJSONObject(parsed)
            let reply = try call(
                parsed, .phone, ControlCommands.TransferComplication { $0.payload = payload })
            if parsed.has("json") {
                Output.out(reply.json.text)
            } else if reply.isCurrentComplicationInfo {
                Output.out("complication transfer \(reply.transferId); \(reply.remainingComplicationUserInfoTransfers) of 50 left today")
            } else {
                Output.out(
                    "userInfo transfer \(reply.transferId): sent as a plain userInfo (no complication transfers left today, or the complication is not on the watch face)"
                )
            }
            return 0
        })

    /// `runway watch complication on|off`
    static let complicationCommands: [CLI.Command] = ["on", "off"].map { state in
        CLI.Command(
            path: ["watch", "complication", state], synopsis: "--home W [--json]",
            summary:
                "Puts the watch app's complication \(state == "on" ? "on the active watch face" : "off the watch face"). The phone sees it at once in isComplicationEnabled (and sessionWatchStateDidChange); while it is off the phone's remainingComplicationUserInfoTransfers is 0.",
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                let reply = try call(
                    parsed, .watch, ControlCommands.Complication { $0.state = state })
                Output.out(parsed.has("json") ? reply.json.text : "complication: \(reply.complicationEnabled ? "on the watch face" : "off")")
                return 0
            })
    }

    /// `runway watch app install|uninstall|foreground|background`
    static let appCommands: [CLI.Command] = ["install", "uninstall", "foreground", "background"].map { action in
        CLI.Command(
            path: ["watch", "app", action], synopsis: "--home W",
            summary: appSummary(action), specs: [CLI.homeSpec], positionals: 0,
            run: { parsed in
                let client = try CLI.client(parsed, .watch)
                if client.deviceOS != nil {
                    // watch-os: the app's life is the OS's (install and uninstall work with the app down).
                    let osAction = action == "foreground" ? "open" : action == "background" ? "close" : action
                    let status = try WatchOSCommands.appAction(client, osAction)
                    Output.out("watch app: \(status.appInstalled ? status.appState : "not installed") (watch-os)")
                    return 0
                }
                let reply = try client.sendToApp(ControlCommands.WatchApp { $0.action = action })
                Output.out("watch app: installed=\(reply.watchAppInstalled) active=\(reply.watchAppActive)")
                return 0
            })
    }

    static func appSummary(_ action: String) -> String {
        switch action {
        case "uninstall":
            return
                "Deletes the watch app. Under watch-os (runway up runs it) as watchOS does: the app is stopped, its container and what the system held for it (its queued transfers, contexts, files) are deleted; the phone sees isWatchAppInstalled false (sessionWatchStateDidChange), its new transfers fail with 7006 and its queued ones wait. Without watch-os the always-running watch-agent is only marked uninstalled: its data stays."
        case "install":
            return
                "Installs the watch app: under watch-os, after an uninstall it starts empty (over an installed app nothing changes); the phone sees isWatchAppInstalled true and sends what it held. Without watch-os the watch-agent is marked installed again."
        default:
            return
                "Moves the watch app to the \(action). The phone sees it at once in isReachable (reachable needs the app in the foreground). Under watch-os the same as runway watch app \(action == "foreground" ? "open" : "close")."
        }
    }

    static let jsonFileSpec = ArgumentSpec.option("json-file", "F", "a file holding one JSON object (- for stdin)")

    /// The largest data message (Apple's message limit, the session's `userInfoByteLimit`).
    static let messageDataLimit = 65_536

    /// `message --data-file F`: the file's bytes as a data message; the reply's bytes to stdout or `--out`.
    static func sendData(_ parsed: ParsedArguments, _ device: DeviceRole) throws -> Int32 {
        if parsed.value("json-file") != nil { throw UsageError("give either --json-file (a message) or --data-file (a data message), not both") }
        let path = try parsed.required("data-file")
        let data = try readDataFile(path, limit: messageDataLimit)
        var request = ControlCommands.MessageData()
        request.data = Base64.encode(data)
        request.timeoutMs = try parsed.integer("timeout", range: 1...600_000)
        if parsed.has("no-reply") { request.replyExpected = false }
        let reply = try call(parsed, device, request)
        switch reply.outcome {
        case .delivered:
            Output.out(parsed.has("json") ? reply.json.text : "delivered")
        case let .reply(bytes):
            if parsed.has("json") {
                Output.out(JSONValue.object(["reply": .object(["$data": .string(Base64.encode(bytes))])]).text)
            } else if let out = parsed.value("out") {
                do {
                    try Filesystem.writeAtomically(bytes, to: out)
                } catch {
                    throw ControlError("cannot write \(out): \(error)")
                }
            } else {
                Output.writeBytes(1, bytes)
            }
        }
        return 0
    }

    /// A data message's bytes: a file that cannot be read is a usage error (exit 2); one over `limit`
    /// is Apple's `payloadTooLarge` (7009, exit 1), found from its size before it is read.
    static func readDataFile(_ path: String, limit: Int) throws -> [UInt8] {
        if path != "-", let info = Filesystem.status(of: path), (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) > limit {
            throw ControlError(WCError(.payloadTooLarge, "\(path) is \(info.st_size) bytes, more than the \(limit)-byte limit of a data message"))
        }
        let bytes: [UInt8]
        do {
            bytes = path == "-" ? try readStandardInput() : try Filesystem.readFile(path)
        } catch {
            throw UsageError("cannot read \(path): \(error)")
        }
        guard bytes.count <= limit else {
            throw ControlError(WCError(.payloadTooLarge, "\(path) is \(bytes.count) bytes, more than the \(limit)-byte limit of a data message"))
        }
        return bytes
    }

    /// Sends `request` to the device's daemon, checked against the catalogue first.
    static func call(_ parsed: ParsedArguments, _ device: DeviceRole, _ request: ControlRequest) throws -> JSONValue {
        try CLI.client(parsed, device).send(request)
    }

    /// Sends `command` to the device's daemon, checked against the catalogue first; its reply, of its type.
    static func call<Command: ControlCommand>(_ parsed: ParsedArguments, _ device: DeviceRole, _ command: Command) throws -> Command.Reply {
        try CLI.client(parsed, device).send(command)
    }

    /// The JSON object in `--json-file`: unreadable, invalid or not an object are usage errors (exit 2).
    static func readJSONObject(_ parsed: ParsedArguments) throws -> JSONValue {
        let path = try parsed.required("json-file")
        let bytes: [UInt8]
        do {
            bytes = path == "-" ? try readStandardInput() : try Filesystem.readFile(path)
        } catch {
            throw UsageError("cannot read \(path): \(error)")
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: bytes)
        } catch {
            throw UsageError("\(path) is not valid JSON: \(error)")
        }
        guard case .object = json else { throw UsageError("\(path) must hold a JSON object, not \(kind(of: json))") }
        // A malformed {"$date": …} or {"$data": …} is the user's input: say so here (exit 2).
        if let problem = TypedJSON.problem(in: json) { throw ControlError.invalid("\(path): \(problem)") }
        return json
    }

    static func kind(of json: JSONValue) -> String {
        switch json {
        case .array: "an array"
        case .string: "a string"
        case .null: "null"
        case .bool: "a boolean"
        default: "a number"
        }
    }

    static func readStandardInput() throws(SystemError) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try systemCall("read(stdin)") { chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) } }
            if n == 0 { return result }
            result.append(contentsOf: chunk[0..<n])
        }
    }
}
