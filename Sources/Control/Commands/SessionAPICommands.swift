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
        @Argument(.object, "the dictionary, in typed JSON", cli: .jsonObjectFile) package var payload: JSONValue
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-userinfo", both, session: true, errors: userInfoErrors, "queue a userInfo transfer")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["transfer-userinfo"]) { _, other in
            """
            Queues the JSON object in F (- for stdin) as a userInfo transfer to the \(other): durable before this
            returns, delivered in order, at least once. Prints the transfer id; on error its code and name
            (e.g. 7010 payloadUnsupportedTypes for a null, 7009 payloadTooLarge over 65,536 bytes), exit 1.
            """
        }
        package init() {}
    }

    /// `transfer-complication`: `transferCurrentComplicationUserInfo`, the phone's.
    package struct TransferComplication: ControlCommand {
        package typealias Reply = TransferComplicationReply
        @Argument(.object, "the dictionary, in typed JSON", cli: .jsonObjectFile) package var payload: JSONValue
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-complication", [.phone], session: true, errors: userInfoErrors,
            "queue complication data for the watch (transferCurrentComplicationUserInfo): ahead of queued userInfo while today's 50 last, else as a userInfo")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["transfer-complication"]) { _, _ in
            """
            Queues the JSON object in F as complication data for the watch (transferCurrentComplicationUserInfo): sent
            ahead of any queued userInfo, while today's budget lasts — 50 a day on the phone's clock, and only while
            the complication is on the watch face (runway watch complication on). Past that it goes as a plain
            userInfo transfer, and this says so. Prints the transfer id and what is left today.
            """
        }
        package init() {}
    }

    /// `transfer-file`: `transferFile`. Its handler answers later, once the file is copied into the queue.
    package struct TransferFile: ControlCommand {
        package typealias Reply = TransferFileReply
        @Argument(.string(bytes: 1...4096), "the file, an absolute path", cli: .positional("PATH", syntax: .path)) package var path: String
        @Argument(.object, "the file's metadata, in typed JSON", cli: .option(help: "a JSON object sent with the file (typed JSON)")) package var metadata:
            JSONValue?
        package static let spec = ControlCommandSpec(
            Self.self, "transfer-file", both, session: true,
            errors: [
                .wc(.fileAccessDenied, "the file is missing, unreadable or not a regular file"),
                .wc(.payloadTooLarge, "the file is over 1 GiB, or its metadata encodes to more than 65,536 bytes"),
                .wc(.payloadUnsupportedTypes, "the metadata holds a null, or a value a property list cannot"),
                .wc(.insufficientSpace, "no space to copy it into the queue"),
            ] + counterpartErrors, "queue a file for the counterpart (transferFile): copied into the queue, sent in chunks, resumed after anything")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["transfer-file"]) { device, other in
            """
            Sends the file at PATH to the \(other) (transferFile): copied into the \(device)'s queue before this
            returns (the file may then be changed or deleted), sent in chunks in order with other files,
            checked end to end (SHA-256), resumed from the last chunk the \(other) made durable after either
            side stops. --metadata is a JSON object (typed JSON) that travels with it. Prints the transfer
            id, the size and the SHA-256. 7013 fileAccessDenied for a file missing, unreadable or not a
            regular file; 7009 payloadTooLarge over 1 GiB (1,073,741,824 bytes) or metadata over 65,536
            bytes; 7010 for metadata that is not a property list.
            """
        }
        package init() {}
    }

    /// `context-set`: `updateApplicationContext` (the phone app takes it over to add its language).
    package struct ContextSet: ControlCommand {
        package typealias Reply = ContextSetReply
        @Argument(.object, "the dictionary, in typed JSON", cli: .jsonObjectFile) package var payload: JSONValue
        package static let spec = ControlCommandSpec(
            Self.self, "context-set", both, session: true,
            errors: payloadErrors + [.wc(.payloadTooLarge, "the context encodes to more than 262,144 bytes")], "update the application context")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["context", "set"]) { _, other in
            "Replaces the application context the \(other) sees (latest value only, durable; an identical context is not delivered twice). At most 262,144 bytes."
        }
        package init() {}
    }

    /// `message`: `sendMessage`. Its handler answers later, when the reply or the delivery comes.
    package struct Message: ControlCommand {
        package typealias Reply = MessageReply
        @Argument(.object, "the dictionary, in typed JSON", cli: .jsonObjectFile) package var payload: JSONValue
        @Argument(
            .int(1...600_000), "how long to wait for the reply or the delivery, in ms (default 10000)",
            cli: .option("timeout", "MS", help: "how long to wait for the reply, or the delivery (default 10000)"))
        package var timeoutMs: Int?
        @Argument(
            .bool, "false: send it without a reply handler and wait only for its delivery",
            cli: .option("no-reply", syntax: .setsFalse, help: "send it without a reply handler: wait only until it is delivered"))
        package var replyExpected = true
        package static let spec = ControlCommandSpec(
            Self.self, "message", both, session: true,
            errors: payloadErrors + [.wc(.payloadTooLarge, "the message encodes to more than 65,536 bytes")] + waitErrors,
            "send a message and wait for its reply, or only for its delivery")
        /// `--data-file F` sends `message-data` instead, with the same `--timeout` and `--no-reply`.
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .session, ["message"],
            options: [
                .option("data-file", "F", "send F's bytes as a data message (sendMessageData; - for stdin)"),
                .option("out", "F", "write a data message's reply to F, not stdout"),
            ], synopsis: "HOME (--json-file F | --data-file F [--out F]) [--no-reply] [--timeout MS] [--json]"
        ) { device, other in
            """
            Sends the JSON object in F as an immediate message and prints the \(other)'s reply. Only while the
            \(other) is reachable (else 7007 notReachable)\(device == "watch" ? "; with the watch app in the foreground and the phone app not running, phone-os launches it for the message (a force-quit app is not: 7007)" : ""); 7012
            messageReplyTimedOut if no reply comes in time (default 10000 ms). The apps reply with what they
            received; a message with "replyDelayMs": N is answered N ms late, one with "noReply": true never.
            --data-file F sends F's bytes as a data message (sendMessageData, at most 65,536 bytes, else 7009
            payloadTooLarge): the apps answer with the same bytes, written to stdout as they are, or to
            --out F (--json: {"reply":{"$data":…}}).
            --no-reply sends it without a reply handler: the \(other)'s app hears didReceiveMessage (or
            didReceiveMessageData) without a reply, and this prints "delivered" once it has (7014
            deliveryFailed if not confirmed in time).
            """
        }
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
        @Argument(.int(1...Int.max), "the transfer's id", cli: .positional("ID")) package var transferId: Int
        package static let spec = ControlCommandSpec(
            Self.self, "cancel", both, session: true,
            errors: [
                .failure("reason delivered: the counterpart has it"), .failure("reason onTheWire: sent, not yet acknowledged"),
                .invalid("reason unknown: no transfer ever had that id"),
            ], "cancel an outstanding transfer not yet on its way (one already cancelled: alreadyCancelled true)")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["cancel"], repliesInJSON: false) { device, other in
            """
            Cancels an outstanding userInfo transfer that is not yet on its way, and says which of the cases it
            met: cancelled (exit 0); already cancelled (exit 0: it will not be delivered either way); already
            delivered — the \(other) acknowledged it (exit 1); on its way — sent, not yet acknowledged, so it can
            no longer be taken back (exit 1; if the link drops first it is queued again, and cancellable); no
            transfer ever had that id on this \(device) (exit 2). Under --json a failure's error carries "reason":
            delivered, onTheWire or unknown. `runway \(device) transfers` lists what can be cancelled.
            """
        }
        package init() {}
    }

    /// `quarantine-remove`: forget a transfer the app could not take, or all of them.
    package struct QuarantineRemove: ControlCommand {
        package typealias Reply = QuarantineRemoveReply
        @Argument(.int(1...Int.max), "the quarantined transfer's id", cli: .positional("ID")) package var id: Int?
        @Argument(.bool, "remove every quarantined transfer") package var all = false
        package static let spec = ControlCommandSpec(
            Self.self, "quarantine-remove", both,
            errors: [.invalid("neither id nor all"), .failure("no quarantined transfer has that id")], "remove a quarantined transfer, or all of them")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["quarantine", "remove"]) { device, _ in
            "Removes one quarantined transfer (its quarantine id, from `runway \(device) quarantine`), or all of them. Exit 1 if there is no such id."
        }
        package init() {}
    }
}
