import Control
import JSONText
import Posix

// MARK: - The session's API (WCSession), the same on both devices: each command's reply for a person

extension Render {
    static let session: [Render] = [
        .of(ControlCommands.TransferUserInfo.self) { reply, _, _ in String(reply.transferId) },
        .of(ControlCommands.TransferComplication.self) { reply, _, _ in
            reply.isCurrentComplicationInfo
                ? "complication transfer \(reply.transferId); \(reply.remainingComplicationUserInfoTransfers) of 50 left today"
                : "userInfo transfer \(reply.transferId): sent as a plain userInfo (no complication transfers left today, or the complication is not on the watch face)"
        },
        .of(ControlCommands.TransferFile.self) { reply, _, _ in "file transfer \(reply.transferId): \(reply.bytes) bytes, sha256 \(reply.sha256)" },
        .of(ControlCommands.ContextSet.self) { reply, _, _ in "context version \(reply.version)" },
        .of(ControlCommands.Cancel.self) { reply, command, _ in
            reply.alreadyCancelled ? "transfer \(command.transferId) was already cancelled" : "cancelled \(command.transferId)"
        },
        .of(ControlCommands.QuarantineRemove.self) { reply, _, _ in "removed \(reply.removed)" },
    ]
}

extension ControlCommands.QuarantineRemove: CLIPrepared {
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws {
        if arguments["all"] == .bool(true), arguments["id"] != nil { throw UsageError("give an ID or --all, not both") }
        if arguments["all"] == nil, arguments["id"] == nil { throw UsageError("a quarantine ID (a positive number) or --all is required") }
    }
}

/// `runway phone|watch message`: the JSON object in `--json-file`, or with `--data-file` the file's bytes
/// as a data message (`message-data`), its reply's bytes to stdout or `--out`.
extension ControlCommands.Message: CLIPrepared, CLIPerformed {
    static func prepare(_ arguments: inout [String: JSONValue], _ context: DerivedCLI.Context) throws {
        let parsed = context.parsed
        if parsed.value("data-file") != nil {
            if parsed.value("json-file") != nil { throw UsageError("give either --json-file (a message) or --data-file (a data message), not both") }
            arguments["payload"] = .object([:])  // the data message is sent instead (`perform`)
        } else {
            if parsed.value("out") != nil { throw UsageError("--out is for a data message's reply: give --data-file F") }
            if arguments["payload"] == nil { throw UsageError("missing --json-file") }
        }
    }

    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        if let path = context.parsed.value("data-file") { return try sendData(path, command, context) }
        let reply = try context.client().send(command)
        switch reply.outcome {
        case .delivered: Output.out(context.json ? reply.json.text : "delivered")
        case let .reply(answer): Output.out(context.json ? JSONValue.object(answer).text : JSONValue.object(answer).prettyText)
        }
        return 0
    }

    /// The largest data message (Apple's message limit, the session's `userInfoByteLimit`).
    static let dataLimit = 65_536

    static func sendData(_ path: String, _ message: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let data = try SessionCLI.readDataFile(path, limit: dataLimit)
        let reply = try context.client().send(
            ControlCommands.MessageData {
                $0.data = Base64.encode(data)
                $0.timeoutMs = message.timeoutMs
                $0.replyExpected = message.replyExpected
            })
        switch reply.outcome {
        case .delivered:
            Output.out(context.json ? reply.json.text : "delivered")
        case let .reply(bytes):
            if context.json {
                Output.out(JSONValue.object(["reply": .object(["$data": .string(Base64.encode(bytes))])]).text)
            } else if let out = context.parsed.value("out") {
                do { try Filesystem.writeAtomically(bytes, to: out) } catch { throw ControlError("cannot write \(out): \(error)") }
            } else {
                Output.writeBytes(1, bytes)
            }
        }
        return 0
    }
}
