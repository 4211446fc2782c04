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

    /// `transfer-userinfo`: `transferUserInfo`.
    package struct TransferUserInfo: ControlCommand {
        package typealias Reply = TransferUserInfoReply
        @Argument(.object, "the dictionary, in typed JSON") package var payload: JSONValue
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-userinfo", both, session: true, errors: userInfoErrors, "queue a userInfo transfer")
        package init() {}
    }

    /// `transfer-complication`: `transferCurrentComplicationUserInfo`, the phone's.
    package struct TransferComplication: ControlCommand {
        package typealias Reply = TransferComplicationReply
        @Argument(.object, "the dictionary, in typed JSON") package var payload: JSONValue
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-complication", [.phone], session: true, errors: userInfoErrors,
            "queue complication data for the watch (transferCurrentComplicationUserInfo): ahead of queued userInfo while today's 50 last, else as a userInfo")
        package init() {}
    }

    /// `transfer-file`: `transferFile`. Its handler answers later, once the file is copied into the queue.
    package struct TransferFile: ControlCommand {
        package typealias Reply = TransferFileReply
        @Argument(.string(bytes: 1...4096), "the file, an absolute path") package var path: String
        @Argument(.object, "the file's metadata, in typed JSON") package var metadata: JSONValue?
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-file", both, session: true,
            errors: [
                .wc(.fileAccessDenied, "the file is missing, unreadable or not a regular file"),
                .wc(.payloadTooLarge, "the file is over 1 GiB, or its metadata encodes to more than 65,536 bytes"),
                .wc(.payloadUnsupportedTypes, "the metadata holds a null, or a value a property list cannot"),
                .wc(.insufficientSpace, "no space to copy it into the queue"),
            ] + counterpartErrors, "queue a file for the counterpart (transferFile): copied into the queue, sent in chunks, resumed after anything")
        package init() {}
    }

    /// `context-set`: `updateApplicationContext` (the phone app takes it over to add its language).
    package struct ContextSet: ControlCommand {
        package typealias Reply = ContextSetReply
        @Argument(.object, "the dictionary, in typed JSON") package var payload: JSONValue
        package static let spec = ControlCommandSpec(
            Self.self, "context-set", both, session: true,
            errors: payloadErrors + [.wc(.payloadTooLarge, "the context encodes to more than 262,144 bytes")], "update the application context")
        package init() {}
    }

    /// `message`: `sendMessage`. Its handler answers later, when the reply or the delivery comes.
    package struct Message: ControlCommand {
        package typealias Reply = MessageReply
        @Argument(.object, "the dictionary, in typed JSON") package var payload: JSONValue
        @Argument(.int(1...600_000), "how long to wait for the reply or the delivery, in ms (default 10000)") package var timeoutMs: Int?
        @Argument(.bool, "false: send it without a reply handler and wait only for its delivery") package var replyExpected = true
        package static let spec = ControlCommandSpec(
            Self.self, "message", both, session: true,
            errors: payloadErrors + [.wc(.payloadTooLarge, "the message encodes to more than 65,536 bytes")] + waitErrors,
            "send a message and wait for its reply, or only for its delivery")
        package init() {}
    }

    /// `message-data`: `sendMessageData`. Its handler answers later, as `message`'s does.
    package struct MessageData: ControlCommand {
        package typealias Reply = MessageDataReply
        @Argument(.format(.base64), "the message's bytes, in base64") package var data: String
        @Argument(.int(1...600_000), "how long to wait for the reply or the delivery, in ms (default 10000)") package var timeoutMs: Int?
        @Argument(.bool, "false: send it without a reply handler and wait only for its delivery") package var replyExpected = true
        package static let spec = ControlCommandSpec(
            Self.self, "message-data", both, session: true,
            errors: counterpartErrors + [.wc(.payloadTooLarge, "the data is more than 65,536 bytes")] + waitErrors,
            "send a data message (sendMessageData) and wait for its reply's bytes, or only for its delivery")
        package init() {}
    }

    /// `cancel`: cancel an outstanding userInfo transfer.
    package struct Cancel: ControlCommand {
        package typealias Reply = CancelReply
        @Argument(.int(1...Int.max), "the transfer's id") package var transferId: Int
        package static let spec = ControlCommandSpec(
            Self.self, "cancel", both, session: true,
            errors: [
                .failure("reason delivered: the counterpart has it"), .failure("reason onTheWire: sent, not yet acknowledged"),
                .invalid("reason unknown: no transfer ever had that id"),
            ], "cancel an outstanding transfer not yet on its way (one already cancelled: alreadyCancelled true)")
        package init() {}
    }

    /// `quarantine-remove`: forget a transfer the app could not take, or all of them.
    package struct QuarantineRemove: ControlCommand {
        package typealias Reply = QuarantineRemoveReply
        @Argument(.int(1...Int.max), "the quarantined transfer's id") package var id: Int?
        @Argument(.bool, "remove every quarantined transfer") package var all = false
        package static let spec = ControlCommandSpec(
            Self.self, "quarantine-remove", both,
            errors: [.invalid("neither id nor all"), .failure("no quarantined transfer has that id")], "remove a quarantined transfer, or all of them")
        package init() {}
    }
}
