import Connectivity
import Control
import OSServices
import JSONText
import Posix

// MARK: - What the device answers on its control socket, whatever its app

extension DeviceHost {
    /// The router with every command the device itself answers: the session's API, the delegate trace,
    /// `status` (the app adds its fields through `statusContributors`), the link and the watch app's
    /// state on a watch, the OS's commands when the OS runs here, and the fault injections. The app
    /// registers its own commands on the same router before the control socket opens.
    func makeRouter() -> ControlRouter {
        let router = ControlRouter(server: configuration.role == .phone ? .phone : .watch)
        router.testCommandsEnabled = runtime.testCommandsEnabled
        // The activation window (`--activation-delay-ms`): the session's API is not usable yet.
        router.sessionIsActivated = { [unowned self] in self.session.activationState == .activated }
        SessionCommands(session: session, ledger: ledger, logger: logger, mailbox: mailbox).register(on: router)
        events.register(on: router)
        system?.register(on: router)
        router.on(ControlCommands.Status.self) { [unowned self] _ in try status() }
        router.on(ControlCommands.InboxSpaceLimit.self) { [unowned self] args in
            let bytes = args.bytes
            session.fileSpaceLimit = bytes == 0 ? nil : Int64(bytes)
            logger.warning("fault.inbox-space-limit", ["bytes": bytes])
            return InboxSpaceLimitReply(bytes: Int64(bytes))
        }
        router.on(ControlCommands.StoreLimit.self) { [unowned self] args in
            let pages = args.pages
            try StoreLimit.apply(pages, to: [database] + faultableStores, logger: logger)
            return StoreLimitReply(pages: Int64(pages))
        }
        if configuration.role == .phone { registerWatchCommands(on: router) }
        registerReceiveHold(on: router)
        if configuration.role == .watch {
            router.on(ControlCommands.Link.self) { [unowned self] args in try setLink(args.state) }
            linkConditions?.register(on: router)
            router.on(ControlCommands.WatchApp.self) { [unowned self] args in try appState(args.action) }
            router.on(ControlCommands.Complication.self) { [unowned self] args in
                let enabled = args.state == "on"
                try session.setComplicationEnabled(enabled)
                logger.notice("complication.\(enabled ? "on" : "off")", ["by": "runway watch complication"])
                return ComplicationReply(complicationEnabled: enabled)
            }
            router.on(ControlCommands.FailNext.self) { [unowned self] args in try failNext(count: args.count, code: args.code) }
        }
        return router
    }

    /// The session's part of `status`, the device's, then the app's (`statusContributors`).
    func status() throws -> StatusReply {
        var status = try SessionCommands(session: session, ledger: ledger, logger: logger, mailbox: mailbox).status()
        var fields = status.other
        fields["home"] = .string(home.path)
        // Which app this process is, whoever's: its bundle id (its container's name), its process.
        if let container = configuration.container {
            let bundleID: String = container.split(separator: "/").last.map(String.init) ?? ""
            let executable: String = Processes.executablePath()?.split(separator: "/").last.map(String.init) ?? ""
            let app: [String: JSONValue] = ["bundleId": .string(bundleID), "pid": .integer(Int64(getpid())), "executable": .string(executable)]
            fields["app"] = .object(app)
        }
        fields["appVersion"] = .string(configuration.session.appVersion)
        let peerVersion = session.counterpartAppVersion.map(JSONValue.string) ?? .null
        if configuration.role == .phone {
            fields["watchAppVersion"] = peerVersion
            if let pairing = session.pairing {
                fields["watchDeviceId"] = .string(pairing.watchDeviceID)
                fields["receivedFromWatchSeq"] = .integer(try SessionStore.receiveCursor(database, peer: pairing.watchDeviceID))
            }
            let rows = Self.watchRows(
                try session.pairedWatches(), active: try SessionStore.pairing(database)?.watchDeviceID, parked: try session.parkedTransferCounts())
            fields.merge(rows) { $1 }
        } else {
            fields["phoneAppVersion"] = peerVersion
            status.linkEnabled = connector?.isEnabled
            if let air = connector?.air { fields["linkRange"] = .string(air.conditions.range.rawValue) }
            status.watchAppActive = session.localAppActive
            if let pairing = session.pairing {
                fields["phoneDeviceId"] = .string(pairing.phoneDeviceID)
                fields["phoneLinkSocket"] = .string(pairing.phoneLinkSocket)
            }
        }
        // HealthKit's workouts in the device's Health store (the OS's, wherever it runs).
        if let osChannel { fields["healthWorkouts"] = .integer(Int64(try osChannel.call(HealthRequest.Workouts()).workouts.count)) }
        status.other = fields
        for contribute in statusContributors { try contribute(&status) }
        return status
    }

    // MARK: - The watch: its link and its app's state

    /// Whether an OS (phone-os, watch-os) launched this process (`RUNWAY_OS_PID`).
    static var launchedByOS: Bool { getenv(PhoneActivation.osPIDVariable) != nil }

    /// Takes the simulated Bluetooth link down (out of range) or back up. Transfers keep queueing
    /// while it is down; nothing is lost.
    func setLink(_ state: String) throws -> LinkReply {
        // Under watch-os the radio is the system's: kept in the home for its next holder (`WatchOS`).
        if Self.launchedByOS { try linkConditions?.setTakenDown(state == "down") }
        connector?.isEnabled = state == "up"
        logger.notice("link.\(state)", ["by": "runway link \(state)"])
        return LinkReply(link: state)
    }

    /// The watch app is installed, removed, brought to the foreground or sent to the background (the
    /// watch's system says so); the phone hears of it at once (isWatchAppInstalled, isReachable).
    func appState(_ action: String) throws -> WatchAppReply {
        var installed = session.localAppInstalled, active = session.localAppActive
        switch action {
        case "install": installed = true
        case "uninstall": installed = false; active = false
        case "foreground":
            guard installed else { throw ControlError("the watch app is not installed (runway watch app install)") }
            active = true
        case "background": active = false
        default: throw ControlError.invalid("the app action must be install, uninstall, foreground or background")
        }
        try session.setLocalAppState(installed: installed, active: active)
        return WatchAppReply(watchAppInstalled: installed, watchAppActive: active)
    }

    /// `runway link fail-next N [--code C]` (fault injection): the next N userInfo transfers finish
    /// with that error instead of being delivered.
    func failNext(count: Int, code raw: Int) throws -> FailNextReply {
        // raw: 7017, 7014 or 7015: the catalogue allows no other
        guard let code = WCError.Code(rawValue: raw) else { throw ControlError.invalid("\(raw) is not a WCError code") }
        session.failNextTransfers(count, code: code)
        return FailNextReply(count: Int64(count), code: Int64(code.rawValue), name: code.name)
    }
}
