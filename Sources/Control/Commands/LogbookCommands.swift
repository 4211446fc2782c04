// MARK: - The phone's logbook and its pre-flight row: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`). `logbook` and `flight`
    /// are not in it: their replies stay JSON (`ControlCommandSpec.replyTypes` says why), so they have no
    /// `Reply` to declare.
    static let logbookCommands: [any ControlCommand.Type] = [Delete.self, Preflight.self]

    /// A flight's id, which `flight` and `delete` take.
    package enum Flight {
        package static let id = ControlArgument<String>("id", .format(.flightID), required: true, "the flight's id")
    }

    /// `delete`: delete a flight (the reminders are rescheduled).
    package enum Delete: ControlCommand {
        package typealias Reply = DeleteReply
        package static let id = Flight.id
        package static let spec = ControlCommandSpec(
            Self.self, "delete", [.phone], arguments: [id], errors: [.failure("no flight has that id")], "delete a flight")
    }

    /// `preflight`: the pre-flight screen's Apple Watch row.
    package enum Preflight: ControlCommand {
        package typealias Reply = PreflightReply
        package static let legacy = ControlArgument<Bool>("legacy", .bool, default: false, "RunWay 1.3.1's row (reachability)")
        package static let spec = ControlCommandSpec(Self.self, "preflight", [.phone], arguments: [legacy], "the pre-flight Apple Watch row")
    }
}
