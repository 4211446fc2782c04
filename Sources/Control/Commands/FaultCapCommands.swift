// MARK: - Fault injection that caps a device's space: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let faultCapCommands: [any ControlCommand.Type] = [StoreLimit.self, InboxSpaceLimit.self]

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
}
