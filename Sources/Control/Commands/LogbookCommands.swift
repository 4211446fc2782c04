// MARK: - The phone's logbook, its alerts, its home screen and its pre-flight row: each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let logbookCommands: [any ControlCommand.Type] = [Logbook.self, Flight.self, Attach.self, Alerts.self, Delete.self, Preflight.self]

    /// `logbook`: every stored flight, streamed a page at a time. Its reply is JSON (`JSONReply`): an
    /// array written straight from the store, in bounded memory, which a reply type would hold whole.
    package struct Logbook: ControlCommand {
        package typealias Reply = JSONReply
        package static let spec = ControlCommandSpec(Self.self, "logbook", [.phone], "every stored flight, streamed")
        package init() {}
    }

    /// `flight`: one flight with its analysis. Its reply is JSON (`JSONReply`), written from the flight's
    /// one declaration (`Flight.fields`).
    package struct Flight: ControlCommand {
        package typealias Reply = JSONReply
        @Argument(.format(.flightID), "the flight's id") package var id: String
        package static let spec = ControlCommandSpec(
            Self.self, "flight", [.phone], errors: [.failure("no flight has that id")], "one flight with its analysis")
        package init() {}
    }

    /// `attach`: the connection becomes the app's UI: it answers, then sends events until it closes.
    package struct Attach: ControlCommand {
        package typealias Reply = AttachReply
        package static let spec = ControlCommandSpec(Self.self, "attach", [.phone], "become the app's UI: events until the connection closes")
        package init() {}
    }

    /// `alerts`: the alerts of every flight. Its reply is JSON (`JSONReply`): `FlightAlert`'s `--json`
    /// form, from its one declaration.
    package struct Alerts: ControlCommand {
        package typealias Reply = JSONReply
        package static let spec = ControlCommandSpec(Self.self, "alerts", [.phone], "the alerts of every flight")
        package init() {}
    }

    /// `delete`: delete a flight (the reminders are rescheduled).
    package struct Delete: ControlCommand {
        package typealias Reply = DeleteReply
        @Argument(.format(.flightID), "the flight's id") package var id: String
        package static let spec = ControlCommandSpec(Self.self, "delete", [.phone], errors: [.failure("no flight has that id")], "delete a flight")
        package init() {}
    }

    /// `preflight`: the pre-flight screen's Apple Watch row.
    package struct Preflight: ControlCommand {
        package typealias Reply = PreflightReply
        @Argument(.bool, "RunWay 1.3.1's row (reachability)") package var legacy = false
        package static let spec = ControlCommandSpec(Self.self, "preflight", [.phone], "the pre-flight Apple Watch row")
        package init() {}
    }
}
