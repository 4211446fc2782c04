// MARK: - What a device holds, read: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let inspectionCommands: [any ControlCommand.Type] = [Files.self, Received.self, ContextGet.self, Transfers.self, Quarantine.self]

    /// `files`: the file transfers, outstanding and received.
    package enum Files: ControlCommand {
        package typealias Reply = FilesReply
        package static let limit = ControlArgument<Int>("limit", .int(1...100_000), default: 1000, "list at most this many of each")
        package static let spec = ControlCommandSpec(
            Self.self, "files", both, arguments: [limit],
            "the file transfers: outstanding (with their progress) and received (where the app keeps them)")
    }

    /// `received`: the userInfo dictionaries the app took that are not flights.
    package enum Received: ControlCommand {
        package typealias Reply = ReceivedReply
        package static let limit = ControlArgument<Int>("limit", .int(1...1_000_000), default: 100_000, "list at most this many")
        package static let spec = ControlCommandSpec(
            Self.self, "received", both, session: true, arguments: [limit], "the userInfo dictionaries received, oldest first")
    }

    /// `context-get`: the application context sent and the one received. Its `runway` command is derived
    /// from this declaration (`runway phone context get`): it has no CLI code of its own.
    package enum ContextGet: ControlCommand {
        package typealias Reply = ContextGetReply
        package static let spec = ControlCommandSpec(
            Self.self, "context-get", both, session: true, "the application context sent and the one received")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(["context", "get"]) { _, other in
            "The application context this side set (applicationContext) and the last one received from the \(other) (receivedApplicationContext)."
        }
    }

    /// `transfers`: the outstanding userInfo transfers and the most recently finished.
    package enum Transfers: ControlCommand {
        package typealias Reply = TransfersReply
        package static let limit = ControlArgument<Int>("limit", .int(1...100_000), default: 100, "list at most this many")
        package static let spec = ControlCommandSpec(
            Self.self, "transfers", both, session: true, arguments: [limit], "outstanding userInfo transfers: keys and sizes")
    }

    /// `quarantine`: the transfers received that the app could not take.
    package enum Quarantine: ControlCommand {
        package typealias Reply = QuarantineReply
        package static let limit = ControlArgument<Int>("limit", .int(1...100_000), default: 100, "list at most this many")
        package static let spec = ControlCommandSpec(
            Self.self, "quarantine", both, arguments: [limit], "transfers received that could not be taken")
    }
}
