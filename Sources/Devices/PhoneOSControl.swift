import DeviceRuntime
import Connectivity
import Control
import Glibc
import JSONText
import Posix

// MARK: - The control socket (runway phone app …, runway phone os …)

extension PhoneOS {
    func makeRouter() -> ControlRouter {
        let router = ControlRouter(server: .phoneOS)
        registerServices(on: router)
        router.on("os-status") { [unowned self] _, connection in connection.reply(status()) }
        router.on("os-jetsam") { [unowned self] _, connection in
            guard childPID > 0 else { throw ControlError("the app is not running: nothing to kill") }
            jetsams += 1
            logger.notice("os.jetsam", ["pid": childPID, "reason": "memory pressure"])
            endApp(SIGKILL)
            connection.reply(status())
        }
        router.on("device-lock") { [unowned self] request, connection in
            try lockAction(request[ControlCommands.DeviceLock.state] == "lock")
            connection.reply(status())
        }
        router.on("device-reboot") { [unowned self] _, connection in
            try rebootAction()
            connection.reply(status())
        }
        router.on("switch-watch") { [unowned self] request, connection in
            connection.reply(try switchWatch(request[ControlCommands.SwitchWatch.watch]))
        }
        router.on("app") { [unowned self] request, connection in
            let action = request[ControlCommands.App.osAction]
            if action == "install" || action == "uninstall" {
                try installAction(action, version: request[ControlCommands.App.version])
                return connection.reply(status())
            }
            guard request[ControlCommands.App.version] == nil else { throw ControlError.invalid("--version goes with install only") }
            // Not running, or on its way out (a reclaim's SIGKILL sent, not yet reaped): a launch follows.
            let launching = action == "open" && (state == .notRunning || endingApp)
            try appAction(action)
            if launching && childPID > 0 {
                // A foreground launch answers once the app is ready (READY=1), so that the next command finds it.
                openWaiters.append(connection)
                loop.schedule(afterMilliseconds: 30_000) { [weak self, weak connection] in
                    guard let self, let connection, let index = self.openWaiters.firstIndex(where: { $0 === connection }) else { return }
                    self.openWaiters.remove(at: index)
                    connection.reply(error: ControlError("the app did not report ready within 30 s (see the log)"))
                }
            } else {
                connection.reply(status())
            }
        }
        return router
    }

    func appAction(_ action: String) throws {
        switch action {
        case "open":
            if let launchRefusal { throw ControlError("cannot open the app: \(launchRefusal)") }
            forceQuit = false
            if endingApp && childPID > 0 {
                // The app is being killed (its budget ran out just now): opened once it is gone.
                openAfterExit = true
                return
            }
            switch state {
            case .notRunning: launch(.foreground, reason: "user opened the app", reasonKey: "user", connection: nil)
            case .background:
                supervision.budgetStops(foreground: true)
                state = .foreground
                logger.info("os.app-foreground", ["pid": childPID])
            case .suspended:
                kill(childPID, SIGCONT)
                supervision.budgetStops(foreground: true)
                state = .foreground
            case .foreground: break
            }
        case "close":
            guard state == .foreground else { throw ControlError("the app is not in the foreground (it is \(state.rawValue))") }
            state = .background
            logger.info("os.app-background", ["pid": childPID, "budgetMs": options.backgroundBudgetMilliseconds])
            supervision.toBackground(at: loop.nowNanoseconds)
        case "force-quit":
            forceQuit = true
            if childPID > 0 {
                logger.notice("os.force-quit", ["pid": childPID])
                endApp(SIGKILL)
            } else {
                logger.notice("os.force-quit", ["pid": "none"])
            }
        case "suspend":
            guard childPID > 0, state != .suspended else { throw ControlError("the app is \(state.rawValue): nothing to suspend") }
            stateBeforeSuspend = state
            supervision.budgetStops(foreground: false)
            kill(childPID, SIGSTOP)
            state = .suspended
            logger.info("os.suspended", ["pid": childPID])
        case "resume":
            guard state == .suspended else { throw ControlError("the app is not suspended (it is \(state.rawValue))") }
            kill(childPID, SIGCONT)
            state = stateBeforeSuspend
            logger.info("os.resumed", ["pid": childPID, "state": state.rawValue])
            if state == .background { supervision.toBackground(at: loop.nowNanoseconds) }
        default:
            throw ControlError.invalid("the app action must be open, close, force-quit, suspend or resume")
        }
        rearmSupervision()
    }

    func status() -> OSStatusReply {
        let now = loop.nowNanoseconds
        let remaining = supervision.remainingBudget(at: now).map { Int64($0 / 1_000_000) }
        let backoff = supervision.backoffRemaining(at: now)
        var reply = OSStatusReply(
            home: home.path, pid: Int64(getpid()), appState: state.rawValue, appPid: childPID > 0 ? Int64(childPID) : nil, forceQuit: forceQuit,
            launches: launches.mapValues { Int64($0) }, launchCount: Int64(launches.values.reduce(0, +)), lastLaunchReason: lastLaunchReason,
            reclaims: Int64(reclaims), jetsams: Int64(jetsams), declinedLaunches: Int64(declined), readyReports: Int64(readyReports),
            backgroundBudgetMs: Int64(options.backgroundBudgetMilliseconds), remainingBudgetMs: remaining,
            launchTimeoutMs: Int64(options.launchTimeoutMilliseconds), failedLaunches: Int64(failures),
            failuresInARow: Int64(supervision.failuresInARow), lastFailure: supervision.lastFailure,
            backoffRemainingMs: backoff > 0 ? Int64((backoff + 999_999) / 1_000_000) : nil)
        reply.appInstalled = device.appInstalled
        reply.appVersion = installedVersion
        reply.locked = device.locked
        reply.lockedAfterReboot = device.lockedAfterReboot
        return reply
    }

    /// Answers the `open` calls waiting for the app: its status once ready, or why it is not.
    func answerOpenWaiters(_ failure: String?) {
        let waiting = openWaiters
        openWaiters = []
        for connection in waiting {
            if let failure { connection.reply(error: ControlError(failure)) } else { connection.reply(status()) }
        }
    }
}

// MARK: - Several watches

extension PhoneOS {
    /// `runway phone switch-watch W` while the app is not running: the OS owns which watch is active, so
    /// it changes it in the WatchConnectivity service's store itself, and the app learns it when it next
    /// launches and activates. While the app runs, `runway` asks the app's session instead (its
    /// `sessionDidBecomeInactive`, `sessionDidDeactivate`): the store is then the session's.
    func switchWatch(_ name: String) throws -> JSONValue {
        guard childPID == 0 else {
            throw ControlError(
                state == .suspended
                    ? "the phone's app is suspended (SIGSTOP): runway phone app resume, then switch (its session makes the switch while it runs)"
                    : "the phone's app is running: its session makes the switch (runway phone switch-watch asks it; try again)")
        }
        guard home.hasStore else { throw ControlError.invalid("7005 deviceNotPaired: this phone has no store, so no watch is paired with it") }
        let database = try home.openStore(checkHealth: false)
        defer { database.close() }
        let outcome: WatchSwitchOutcome
        do {
            outcome = try PairedWatches.switchStored(database, to: name)
        } catch let error as WCError {
            throw ControlError.invalid("\(error.code.rawValue) \(error.name): \(error.message)")
        }
        if case let .switched(from, watch) = outcome {
            logger.notice("os.active-watch", ["watch": watch.watchDeviceID, "from": from ?? "-", "app": "not running: it learns it at its next launch"])
        }
        return DeviceHost.switchReply(outcome, by: "phone-os (the app is not running: it learns it at its next launch)")
    }
}
