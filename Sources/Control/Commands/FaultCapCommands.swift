// MARK: - Fault injection on both devices (a device's space capped, its link left unread): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let faultCapCommands: [any ControlCommand.Type] = [StoreLimit.self, InboxSpaceLimit.self, ReceiveHold.self]

    /// `store-limit`: the stores' size capped in pages, so a test fills a disk without filling one.
    package struct StoreLimit: ControlCommand {
        package typealias Reply = StoreLimitReply
        @Argument(.int(0...Int(Int32.max)), "the cap in pages; 0 lifts it") package var pages: Int
        package static let spec = ControlCommandSpec(Self.self, "store-limit", both, test: true, "cap the store's size in pages (0 lifts it)")
        package init() {}
    }

    /// `inbox-space-limit`: the space a file arriving may take, as if the disk were full.
    package struct InboxSpaceLimit: ControlCommand {
        package typealias Reply = InboxSpaceLimitReply
        @Argument(.int(0...Int.max), "the cap in bytes; 0 lifts it") package var bytes: Int
        package static let spec = ControlCommandSpec(
            Self.self, "inbox-space-limit", both, test: true, "cap the bytes a file arriving may take, as if the disk were full (0 lifts it)")
        package init() {}
    }

    /// `receive-hold`: the link left unread, so that what the counterpart sends waits in the socket.
    package struct ReceiveHold: ControlCommand {
        package typealias Reply = ReceiveHoldReply
        @Argument(.choice(["on", "off"]), "on: stop reading the link (what the counterpart sends waits in the socket); off: read again")
        package var state: String
        package static let spec = ControlCommandSpec(
            Self.self, "receive-hold", both, test: true,
            "stop or resume reading the link, so that what the counterpart sends waits in the socket (a watch switch then delivers it)")
        package init() {}
    }
}
