import Connectivity

// MARK: - What a device holds, read: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let inspectionCommands: [any ControlCommand.Type] = [
        Events.self, Files.self, Received.self, ContextGet.self, Transfers.self, Quarantine.self,
    ]

    /// `events`: the session's delegate calls, recent and, with `follow`, each as it happens. Its reply is
    /// JSON (`JSONReply`: one shape per call), and with `follow` the connection stays open for events.
    package struct Events: ControlCommand {
        package typealias Reply = JSONReply
        @Argument(.int(0...DelegateTrace.defaultCapacity), "how many recent calls to answer with") package var limit = 100
        @Argument(.bool, "then send each new call as an event frame") package var follow = false
        package static let spec = ControlCommandSpec(
            Self.self, "events", both, errors: [.invalid("the connection already receives events")],
            "the session's delegate calls: the recent ones and, with follow, each as it happens")
        package init() {}
    }

    /// `files`: the file transfers, outstanding and received.
    package struct Files: ControlCommand {
        package typealias Reply = FilesReply
        @Argument(.int(1...100_000), "list at most this many of each") package var limit = 1000
        package static let spec = ControlCommandSpec(
            Self.self, "files", both, "the file transfers: outstanding (with their progress) and received (where the app keeps them)")
        package init() {}
    }

    /// `received`: the userInfo dictionaries the app took that are not flights.
    package struct Received: ControlCommand {
        package typealias Reply = ReceivedReply
        @Argument(.int(1...1_000_000), "list at most this many") package var limit = 100_000
        package static let spec = ControlCommandSpec(Self.self, "received", both, session: true, "the userInfo dictionaries received, oldest first")
        package init() {}
    }

    /// `context-get`: the application context sent and the one received. Its `runway` command is derived
    /// from this declaration (`runway phone context get`): it has no CLI code of its own.
    package struct ContextGet: ControlCommand {
        package typealias Reply = ContextGetReply
        package static let spec = ControlCommandSpec(Self.self, "context-get", both, session: true, "the application context sent and the one received")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(["context", "get"]) { _, other in
            "The application context this side set (applicationContext) and the last one received from the \(other) (receivedApplicationContext)."
        }
        package init() {}
    }

    /// `transfers`: the outstanding userInfo transfers and the most recently finished.
    package struct Transfers: ControlCommand {
        package typealias Reply = TransfersReply
        @Argument(.int(1...100_000), "list at most this many") package var limit = 100
        package static let spec = ControlCommandSpec(Self.self, "transfers", both, session: true, "outstanding userInfo transfers: keys and sizes")
        package init() {}
    }

    /// `quarantine`: the transfers received that the app could not take.
    package struct Quarantine: ControlCommand {
        package typealias Reply = QuarantineReply
        @Argument(.int(1...100_000), "list at most this many") package var limit = 100
        package static let spec = ControlCommandSpec(Self.self, "quarantine", both, "transfers received that could not be taken")
        package init() {}
    }
}
