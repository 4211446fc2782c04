import JSONText

// MARK: - The session's generic API (WCSession), on both devices: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let sessionAPICommands: [any ControlCommand.Type] = [
        TransferUserInfo.self, TransferComplication.self, TransferFile.self, ContextSet.self, Message.self, MessageData.self, Cancel.self,
        QuarantineRemove.self,
    ]

    /// What every call that needs a counterpart can fail with.
    static let counterpartErrors: [ControlErrorSpec] = [
        .wc(.deviceNotPaired, "no counterpart is paired"),
        .wc(.watchAppNotInstalled, "the watch app is not installed (on the phone)"),
    ]
    static let payloadErrors: [ControlErrorSpec] =
        [.wc(.payloadUnsupportedTypes, "the payload holds a null, or a value a property list cannot")] + counterpartErrors
    /// What queuing a userInfo dictionary (`transfer-userinfo`, `transfer-complication`) can fail with.
    static let userInfoErrors = payloadErrors + [ControlErrorSpec.wc(.payloadTooLarge, "the payload encodes to more than 65,536 bytes")]
    /// What a message (`message`, `message-data`) can fail with while its sender waits.
    static let waitErrors: [ControlErrorSpec] = [
        .wc(.notReachable, "the counterpart is not reachable"),
        .wc(.messageReplyTimedOut, "no reply came in time"),
        .wc(.deliveryFailed, "without a reply handler: the delivery was not confirmed in time"),
    ]

    /// The dictionary `transfer-userinfo`, `transfer-complication`, `context-set` and `message` take.
    package enum Payload {
        package static let payload = ControlArgument<JSONValue>("payload", .object, required: true, "the dictionary, in typed JSON")
    }

    /// `transfer-userinfo`: `transferUserInfo`.
    package enum TransferUserInfo: ControlCommand {
        package typealias Reply = TransferUserInfoReply
        package static let payload = Payload.payload
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-userinfo", both, session: true, arguments: [payload],
            errors: userInfoErrors, "queue a userInfo transfer")
    }

    /// `transfer-complication`: `transferCurrentComplicationUserInfo`, the phone's.
    package enum TransferComplication: ControlCommand {
        package typealias Reply = TransferComplicationReply
        package static let payload = Payload.payload
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-complication", [.phone], session: true, arguments: [payload],
            errors: userInfoErrors,
            "queue complication data for the watch (transferCurrentComplicationUserInfo): ahead of queued userInfo while today's 50 last, else as a userInfo")
    }

    /// `transfer-file`: `transferFile`. Its handler answers later, once the file is copied into the queue.
    package enum TransferFile: ControlCommand {
        package typealias Reply = TransferFileReply
        package static let path = ControlArgument<String>("path", .string(bytes: 1...4096), required: true, "the file, an absolute path")
        package static let metadata = ControlArgument<JSONValue?>("metadata", .object, "the file's metadata, in typed JSON")
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-file", both, session: true, arguments: [path, metadata],
            errors: [
                .wc(.fileAccessDenied, "the file is missing, unreadable or not a regular file"),
                .wc(.payloadTooLarge, "the file is over 1 GiB, or its metadata encodes to more than 65,536 bytes"),
                .wc(.payloadUnsupportedTypes, "the metadata holds a null, or a value a property list cannot"),
                .wc(.insufficientSpace, "no space to copy it into the queue"),
            ] + counterpartErrors, "queue a file for the counterpart (transferFile): copied into the queue, sent in chunks, resumed after anything")
    }

    /// `context-set`: `updateApplicationContext` (the phone app takes it over to add its language).
    package enum ContextSet: ControlCommand {
        package typealias Reply = ContextSetReply
        package static let payload = Payload.payload
        package static let spec = ControlCommandSpec(
            Self.self, "context-set", both, session: true, arguments: [payload],
            errors: payloadErrors + [.wc(.payloadTooLarge, "the context encodes to more than 262,144 bytes")], "update the application context")
    }

    /// `message`: `sendMessage`. Its handler answers later, when the reply or the delivery comes.
    package enum Message: ControlCommand {
        package typealias Reply = MessageReply
        package static let payload = Payload.payload
        package static let timeoutMs = ControlArgument<Int?>(
            "timeoutMs", .int(1...600_000), "how long to wait for the reply or the delivery, in ms (default 10000)")
        package static let replyExpected = ControlArgument<Bool>(
            "replyExpected", .bool, default: true, "false: send it without a reply handler and wait only for its delivery")
        package static let spec = ControlCommandSpec(
            Self.self, "message", both, session: true, arguments: [payload, timeoutMs, replyExpected],
            errors: payloadErrors + [.wc(.payloadTooLarge, "the message encodes to more than 65,536 bytes")] + waitErrors,
            "send a message and wait for its reply, or only for its delivery")
    }

    /// `message-data`: `sendMessageData`. Its handler answers later, as `message`'s does.
    package enum MessageData: ControlCommand {
        package typealias Reply = MessageDataReply
        package static let data = ControlArgument<String>("data", .format(.base64), required: true, "the message's bytes, in base64")
        package static let timeoutMs = Message.timeoutMs
        package static let replyExpected = Message.replyExpected
        package static let spec = ControlCommandSpec(
            Self.self, "message-data", both, session: true, arguments: [data, timeoutMs, replyExpected],
            errors: counterpartErrors + [.wc(.payloadTooLarge, "the data is more than 65,536 bytes")] + waitErrors,
            "send a data message (sendMessageData) and wait for its reply's bytes, or only for its delivery")
    }

    /// `cancel`: cancel an outstanding userInfo transfer.
    package enum Cancel: ControlCommand {
        package typealias Reply = CancelReply
        package static let transferId = ControlArgument<Int>("transferId", .int(1...Int.max), required: true, "the transfer's id")
        package static let spec = ControlCommandSpec(
            Self.self, "cancel", both, session: true, arguments: [transferId],
            errors: [
                .failure("reason delivered: the counterpart has it"), .failure("reason onTheWire: sent, not yet acknowledged"),
                .invalid("reason unknown: no transfer ever had that id"),
            ], "cancel an outstanding transfer not yet on its way (one already cancelled: alreadyCancelled true)")
    }

    /// `quarantine-remove`: forget a transfer the app could not take, or all of them.
    package enum QuarantineRemove: ControlCommand {
        package typealias Reply = QuarantineRemoveReply
        package static let id = ControlArgument<Int?>("id", .int(1...Int.max), "the quarantined transfer's id")
        package static let all = ControlArgument<Bool>("all", .bool, default: false, "remove every quarantined transfer")
        package static let spec = ControlCommandSpec(
            Self.self, "quarantine-remove", both, arguments: [id, all],
            errors: [.invalid("neither id nor all"), .failure("no quarantined transfer has that id")], "remove a quarantined transfer, or all of them")
    }
}
