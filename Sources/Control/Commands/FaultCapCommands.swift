// MARK: - Fault injection on both devices (a device's space capped, its link left unread): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let faultCapCommands: [any ControlCommand.Type] = [StoreLimit.self, InboxSpaceLimit.self, ReceiveHold.self]

    /// `store-limit`: the stores' size capped in pages, so a test fills a disk without filling one.
    package enum StoreLimit: ControlCommand {
        package typealias Reply = StoreLimitReply
        package static let pages = ControlArgument<Int>("pages", .int(0...Int(Int32.max)), required: true, "the cap in pages; 0 lifts it")
        package static let spec = ControlCommandSpec(
            Self.self, "store-limit", both, test: true, arguments: [pages], "cap the store's size in pages (0 lifts it)")
    }

    /// `inbox-space-limit`: the space a file arriving may take, as if the disk were full.
    package enum InboxSpaceLimit: ControlCommand {
        package typealias Reply = InboxSpaceLimitReply
        package static let bytes = ControlArgument<Int>("bytes", .int(0...Int.max), required: true, "the cap in bytes; 0 lifts it")
        package static let spec = ControlCommandSpec(
            Self.self, "inbox-space-limit", both, test: true, arguments: [bytes],
            "cap the bytes a file arriving may take, as if the disk were full (0 lifts it)")
    }

    /// `receive-hold`: the link left unread, so that what the counterpart sends waits in the socket.
    package enum ReceiveHold: ControlCommand {
        package typealias Reply = ReceiveHoldReply
        package static let state = ControlArgument<String>(
            "state", .choice(["on", "off"]), required: true, "on: stop reading the link (what the counterpart sends waits in the socket); off: read again")
        package static let spec = ControlCommandSpec(
            Self.self, "receive-hold", both, test: true, arguments: [state],
            "stop or resume reading the link, so that what the counterpart sends waits in the socket (a watch switch then delivers it)")
    }
}
