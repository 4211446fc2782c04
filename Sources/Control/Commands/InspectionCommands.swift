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
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["events"]) { device, _ in
            """
            The delegate calls the \(device)'s session made, oldest first: activationDidComplete, didReceiveUserInfo
            (seq, keys, size, outcome), didCommitReceivedTransfers, didFinishUserInfoTransfer (seq, error),
            didReceiveApplicationContext, didReceiveMessage, sessionReachabilityDidChange,
            sessionWatchStateDidChange — and the app's os.Logger messages (os.log) where they came among them.
            Shows the last N (default 100; the daemon keeps the last 1024 since it started). With --follow, then each new call as it happens, until Ctrl-C or the daemon stops.
            --json prints one JSON object per line (ndjson), flushed per event; payloads in typed JSON.
            """
        }
        package init() {}
    }

    /// `files`: the file transfers, outstanding and received.
    package struct Files: ControlCommand {
        package typealias Reply = FilesReply
        @Argument(.int(1...100_000), "list at most this many of each") package var limit = 1000
        package static let spec = ControlCommandSpec(
            Self.self, "files", both, "the file transfers: outstanding (with their progress) and received (where the app keeps them)")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["files"]) { device, other in
            """
            The \(device)'s file transfers: outstanding (queued or on their way, with the bytes the \(other) has made
            durable) and received (where the RunWay app keeps them, Documents/Received in its container), each
            with its size and SHA-256.
            """
        }
        package init() {}
    }

    /// `received`: the userInfo dictionaries the app took that are not flights.
    package struct Received: ControlCommand {
        package typealias Reply = ReceivedReply
        @Argument(.int(1...1_000_000), "list at most this many") package var limit = 100_000
        package static let spec = ControlCommandSpec(Self.self, "received", both, session: true, "the userInfo dictionaries received, oldest first")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["received"]) { device, _ in
            "The userInfo dictionaries delivered to the \(device) app that are not flights, in arrival order (flights are in the phone's logbook)."
        }
        package init() {}
    }

    /// `context-get`: the application context sent and the one received. Its `runway` command is derived
    /// from this declaration (`runway phone context get`): it has no CLI code of its own.
    package struct ContextGet: ControlCommand {
        package typealias Reply = ContextGetReply
        package static let spec = ControlCommandSpec(Self.self, "context-get", both, session: true, "the application context sent and the one received")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["context", "get"]) { _, other in
            "The application context this side set (applicationContext) and the last one received from the \(other) (receivedApplicationContext)."
        }
        package init() {}
    }

    /// `transfers`: the outstanding userInfo transfers and the most recently finished.
    package struct Transfers: ControlCommand {
        package typealias Reply = TransfersReply
        @Argument(.int(1...100_000), "list at most this many") package var limit = 100
        package static let spec = ControlCommandSpec(Self.self, "transfers", both, session: true, "outstanding userInfo transfers: keys and sizes")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["transfers"]) { _, _ in
            "The outstanding userInfo transfers (oldest first; every one isTransferring, as on Apple's, and whether it is on the wire — those cannot be cancelled; their keys and encoded size — not whole payloads) and the most recently finished ones."
        }
        package init() {}
    }

    /// `quarantine`: the transfers received that the app could not take.
    package struct Quarantine: ControlCommand {
        package typealias Reply = QuarantineReply
        @Argument(.int(1...100_000), "list at most this many") package var limit = 100
        package static let spec = ControlCommandSpec(Self.self, "quarantine", both, "transfers received that could not be taken")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.session, ["quarantine"]) { device, _ in
            """
            The transfers received by the \(device) that its app could not take — bytes that do not decode, or a
            userInfo the app rejects (a flight with a field out of range) — kept with the reason instead of being
            dropped. Each was acknowledged only once it was kept here. Oldest first.
            """
        }
        package init() {}
    }
}
