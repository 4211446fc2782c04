import AppHost
import Connectivity
import Control
import JSONText
import Posix

// MARK: - The control socket (runway phone|watch app …, runway phone|watch os …)

extension DeviceOperatingSystem {
    func makeRouter() -> ControlRouter {
        let router = ControlRouter(server: home.role == .phone ? .phoneOS : .watchOS)
        registerServices(on: router)
        registerDeviceCommands(on: router)
        router.on(ControlCommands.OSStatus.self) { [unowned self] _ in status() }
        router.on(ControlCommands.OSJetsam.self) { [unowned self] (_, connection: ControlConnection) in
            guard childPID > 0 else { throw ControlError("the app is not running: nothing to kill") }
            jetsams += 1
            logger.notice("os.jetsam", ["pid": childPID, "reason": "memory pressure"])
            endApp(SIGKILL)
            answerOnceGone(connection)
        }
        if home.role == .phone {
            router.on(ControlCommands.PhoneOSApp.self) { [unowned self] (args, connection: ControlConnection) in
                try appCommand(args.action, version: args.version, connection)
            }
        } else {
            router.on(ControlCommands.WatchOSApp.self) { [unowned self] (args, connection: ControlConnection) in
                try appCommand(args.action, version: nil, connection)
            }
        }
        return router
    }

    /// `app ACTION`: done, then answered with the app's state after it — at once, once the app is gone
    /// (`force-quit`, `kill`: reaped), or once it is ready (`open`, which launched it).
    func appCommand(_ action: String, version: String?, _ connection: ControlConnection) throws {
        if try handleDeviceAppAction(action, version: version) { return connection.reply(status()) }
        // Not running, or on its way out (a reclaim's SIGKILL sent, not yet reaped): a launch follows.
        // Or launched and not ready yet (a background launch on its way): open answers once it is.
        let launching = action == "open" && (state == .notRunning || endingApp || (childPID > 0 && !supervision.isReady))
        let killing = (action == "force-quit" || action == "kill") && childPID > 0
        try appAction(action)
        if killing {
            answerOnceGone(connection)
        } else if launching && childPID > 0 {
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

    /// Answers `connection` with the app's state once the app it just signalled is reaped (its state is
    /// then `not running`, not the one before the kill), or after 10 s with the state as it stands.
    func answerOnceGone(_ connection: ControlConnection) {
        guard childPID > 0 else { return connection.reply(status()) }
        exitWaiters.append(connection)
        loop.schedule(afterMilliseconds: 10_000) { [weak self, weak connection] in
            guard let self, let connection, let index = self.exitWaiters.firstIndex(where: { $0 === connection }) else { return }
            self.exitWaiters.remove(at: index)
            connection.reply(self.status())
        }
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
                stopWatchingForWake()
                suspendedBySystem = false
                ProcessStop.signal(childPID, SIGCONT)
                supervision.budgetStops(foreground: true)
                state = .foreground
            case .foreground: break
            }
            appStateChanged()
        case "close":
            guard state == .foreground else { throw ControlError("the app is not in the foreground (it is \(state.rawValue))") }
            state = .background
            logger.info("os.app-background", ["pid": childPID, "budgetMs": options.backgroundBudgetMilliseconds, "workout": workoutRunning])
            supervision.toBackground(at: loop.nowNanoseconds)
            if workoutRunning { supervision.budgetStops(foreground: false) }
            appStateChanged()
            terminateIfOptedOutOfSwitching()
        case "kill":
            // A crash: SIGKILL from outside the OS's own reasons (the app's failure, as any crash is).
            guard childPID > 0 else { throw ControlError("the app is not running: nothing to kill") }
            logger.notice("os.app-killed", ["pid": childPID, "by": "runway app kill"])
            if state == .suspended { ProcessStop.signal(childPID, SIGCONT) }
            ProcessStop.signal(childPID, SIGKILL)
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
            ProcessStop.signal(childPID, SIGSTOP)
            state = .suspended
            logger.info("os.suspended", ["pid": childPID, "by": "user"])
            // As iOS wakes a suspended app for what arrives for it (`--no-wake`: not).
            watchForWake()
        case "resume":
            guard state == .suspended else { throw ControlError("the app is not suspended (it is \(state.rawValue))") }
            stopWatchingForWake()
            suspendedBySystem = false
            ProcessStop.signal(childPID, SIGCONT)
            state = stateBeforeSuspend
            logger.info("os.resumed", ["pid": childPID, "state": state.rawValue])
            if state == .background {
                supervision.toBackground(at: loop.nowNanoseconds)
                if workoutRunning { supervision.budgetStops(foreground: false) }
            }
            appStateChanged()
        default:
            throw ControlError.invalid("the app action must be open, close, force-quit, kill, suspend or resume")
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
        reply.systemSuspensions = Int64(systemSuspensions)
        reply.wakes = wakes.isEmpty ? nil : wakes.mapValues { Int64($0) }
        reply.suspendedBySystem = state == .suspended ? suspendedBySystem : nil
        decorate(&reply)
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

extension DeviceOperatingSystem {
    /// Tells the running app its state changed (on its attached connection, `os-attach-app`): a watch
    /// app's session then tells the phone whether it is in the foreground (the phone's `isReachable`).
    func appStateChanged() {
        guard childPID > 0 else { return }
        let event = JSONValue.object(["event": .string("appState"), "state": .string(state.rawValue)])
        for connection in control?.attachedClients ?? [] { connection.sendEvent(event) }
    }
}
