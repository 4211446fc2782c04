import Connectivity
import AppHost
import Control
import Posix
import RunWayApp

/// The daemons' command lines: parse, build, run — nothing more lives in their `main.swift`.
package enum DaemonMain {
    static let phoneSpecs: [ArgumentSpec] =
        [
            .option("home", "DIR", "the phone's home directory (created if missing, mode 0700)"),
            .option("save-path", "PATH", "immediate (default: save each flight on receipt) or ui-drain (RunWay 1.3's bug)"),
            .option("reminders", "RULE", "current (default: the 7/14/21/28-day ladder) or legacy (RunWay 1.3.1's single reminder)"),
            .option(
                "health", "RULE",
                "once (default: a run is saved to Health exactly once, by the device that recorded it unless the phone took it back), legacy (both devices save it, #28) or volatile (who saves kept in memory only, never taken back: issue 51's loss and double save)"
            ),
            .option("log-level", "LEVEL", "debug, info (default), notice, warning or error"),
            DaemonCommandLine.logFormatSpec, DaemonCommandLine.logRepeatSpec,
            .flag("unsafe-ack-before-commit", "TEST ONLY: acknowledge transfers before committing them (loses flights on a crash)", hidden: true),
            .flag(
                "unsafe-accept-any-sequence", "TEST ONLY: take a transfer further ahead than the one after the cursor (loses flights when a frame is lost)",
                hidden: true),
            .flag(
                "unsafe-trust-counterpart",
                "TEST ONLY: the lanes' rules before issue 51: take acknowledgements past what was sent and contexts of any version (a forged frame loses)",
                hidden: true),
            .option("max-store-pages", "N", "FAULT INJECTION: cap the store at N pages, as if the disk were full", hidden: true),
            .option("duplicate-rate", "R", "FAULT INJECTION: deliver each received transfer to the app twice with probability R (0 to 1)", hidden: true),
            appVersionSpec,
            .option(
                "activation-delay-ms", "N", "TEST ONLY: open the control socket and say ready first, activate the session N ms later (1-60000)", hidden: true),
            .option("mirroring-confirm-timeout-ms", "MS", "TEST: how long a phone-led start waits for the watch's answer (default 10000)", hidden: true),
            DaemonCommandLine.testCommandsSpec,
        ] + ConnectionLimits.specs

    static let appVersionSpec = ArgumentSpec.option(
        "app-version", "V",
        "the app's version, N(.N){0,3} with parts up to 9999 (default \(AppVersion.current)); a restart with another version keeps the store (an upgrade)")

    static let watchSpecs: [ArgumentSpec] =
        [
            .option("home", "DIR", "the watch's home directory (created if missing, mode 0700)"),
            .option("link-rate", "N", "simulate a slow link: send at most N transfers a second (default: no limit)"),
            .option("gpws", "RULE", "fixed (default: no GPWS decision while stationary) or legacy (RunWay 1.3's false SINK RATE at rest)"),
            .option(
                "failed-transfer", "RULE",
                "requeue (default: a run whose transfer failed is queued again) or legacy (the seeds' app: no handler, the run is lost)"),
            .option(
                "received-transfers", "RULE",
                "once (default: a userInfo or complication delivered again after a crash is counted once) or legacy (counted each time)",
                hidden: true),
            .flag("instrument-stream", "RunWay 1.4's dead stream: send the run's values every 3 s (the phone drops them)", hidden: true),
            .flag("unsafe-link-loss-skips-frames", "TEST ONLY: a frame the link conditions lose vanishes, no cut, no resend (loses flights)", hidden: true),
            .flag(
                "unsafe-trust-counterpart",
                "TEST ONLY: the lanes' rules before issue 51: take acknowledgements past what was sent and contexts of any version (a forged frame loses)",
                hidden: true),
            .option("log-level", "LEVEL", "debug, info (default), notice, warning or error"),
            DaemonCommandLine.logFormatSpec, DaemonCommandLine.logRepeatSpec,
            .option("max-store-pages", "N", "FAULT INJECTION: cap the store at N pages, as if the disk were full", hidden: true),
            appVersionSpec,
            .option("app", "PATH", "run this executable as the watch's app instead of RunWay's (any program linking WatchConnectivity)"),
            .option("bundle-id", "ID", "with --app: the app's bundle id, naming its container HOME/apps/ID (default: the executable's name)"),
            .option("app-arg", "ARG", "with --app: passed to the app (repeatable: --app-arg=--verbose)"),
            DaemonCommandLine.testCommandsSpec,
        ] + ConnectionLimits.specs

    /// RunWay's own watch switches, which an app of the developer's own does not take.
    static let runWayWatchOnly = ["link-rate", "gpws", "failed-transfer", "received-transfers", "instrument-stream", "max-store-pages"]

    package static func phoneUsage() -> String {
        """
        usage: phone-daemon --home DIR [--save-path immediate|ui-drain] [--reminders current|legacy] [--health once|legacy|volatile] [--app-version V]
                            [--log-level LEVEL] [--log-format logfmt|json]

        The simulated iPhone running RunWay. Listens for its paired watch on DIR/link.sock and for the
        runway CLI on DIR/control.sock; saves every flight the watch transfers the moment it arrives.
        Prints "ready" on stdout once it accepts connections; SIGTERM shuts it down cleanly (exit 0).
        Logs go to stderr, one key=value line per event.

        Socket activation (systemd's protocol; see docs/systemd/): a supervisor may bind DIR/link.sock
        and DIR/control.sock itself and pass them as LISTEN_FDS/LISTEN_PID/LISTEN_FDNAMES (names link and
        control); the phone then listens on those and never removes their files. With NOTIFY_SOCKET set it
        reports READY=1 and STOPPING=1. Under phone-os (HOME/os.lock held) a hand start is refused.
        Without --home, the home is RUNWAY_DEVICE_HOME: an OS that launches it as any app (phone-os
        --app PATH) names it there.

        options:
        \(Arguments.describe(phoneSpecs + [.flag("help", "show this help")]))

        exit status: 0 after SIGTERM, 1 if it cannot start (home locked, store damaged or from a newer
        version), 2 on bad usage (including a home that is not a directory, is a watch's home, or whose
        socket paths would not fit the 107 bytes of sun_path).
        """
    }

    package static func watchUsage() -> String {
        """
        usage: watch-agent --home DIR [--link-rate N] [--gpws fixed|legacy] [--failed-transfer requeue|legacy] [--app-version V] [--log-level LEVEL]
                           [--log-format logfmt|json]
               watch-agent --home DIR --app PATH [--bundle-id ID] [--app-arg ARG]... [--app-version V] [--log-level LEVEL]

        The simulated Apple Watch running RunWay. Recorded runs are queued durably in its outbox and sent
        to the paired phone (runway pair) whenever the phone is up; it reconnects with backoff while not.
        With --app, the watch runs your own app instead (any executable linking WatchConnectivity; see
        docs/your-app.md): this process becomes it, the device found in its environment. Without
        --home, the home is RUNWAY_DEVICE_HOME, as watch-os --app PATH names it for any app.
        Prints "ready" on stdout once it accepts connections; SIGTERM shuts it down cleanly (exit 0).

        options:
        \(Arguments.describe(watchSpecs + [.flag("help", "show this help")]))

        exit status: 0 after SIGTERM, 1 if it cannot start (home locked, store damaged or from a newer
        version), 2 on bad usage (including a home that is not a directory, is a phone's home, or whose
        socket paths would not fit the 107 bytes of sun_path).
        """
    }

    /// The values `runway completion` offers for the daemons' options: the ones their parsing accepts.
    static let completionValues: [String: ArgumentCompletion.Values] = [
        "home": .directories, "app": .files,
        "save-path": .words(SavePath.allCases.map(\.rawValue)), "reminders": .words(RunReminderService.Rule.allCases.map(\.rawValue)),
        "health": .words(HealthSaveRule.allCases.map(\.rawValue)),
        "log-level": .words(["debug", "info", "notice", "warning", "error"]), "log-format": .words(Logger.Format.allCases.map(\.rawValue)),
        "gpws": .words(GPWSBehaviour.allCases.map(\.rawValue)), "failed-transfer": .words(["requeue", "legacy"]),
        "received-transfers": .words(["once", "legacy"]),
    ]

    /// `PROGRAM __complete WORD…`, for the shells' completion (`runway completion`); nil if not asked.
    static func complete(_ arguments: [String], _ specs: [ArgumentSpec]) -> Int32? {
        DaemonCommandLine.complete(arguments, specs, values: completionValues)
    }

    /// `--home`, else the home an OS launching it as any app names (`RUNWAY_DEVICE_HOME`: `phone-os
    /// --app PATH` with RunWay's own phone-daemon as PATH, `runway scenario`'s `phoneApp`).
    static func home(_ parsed: ParsedArguments) throws -> String {
        try parsed.value("home") ?? DeviceEnvironment.value(DeviceEnvironment.home) ?? parsed.required("home")
    }

    package static func phone(_ arguments: [String]) -> Int32 {
        let tool = "phone-daemon"
        if arguments == ["--version"] { return DaemonCommandLine.printVersion(tool) }
        if let status = complete(arguments, phoneSpecs) { return status }
        do {
            let parsed = try Arguments.parse(arguments, specs: phoneSpecs)
            if parsed.wantsHelp { print(phoneUsage()); return 0 }
            var device = DeviceHost.Configuration(home: try home(parsed), role: .phone)
            var app = RunWayPhoneApp.Options()
            if let name = parsed.value("save-path") {
                guard let path = SavePath(rawValue: name) else { throw UsageError("--save-path must be immediate or ui-drain, not \(OneLine.quote(name))") }
                app.savePath = path
            }
            if let name = parsed.value("reminders") {
                guard let rule = RunReminderService.Rule(rawValue: name) else {
                    throw UsageError("--reminders must be current or legacy, not \(OneLine.quote(name))")
                }
                app.reminderRule = rule
            }
            if let name = parsed.value("health") {
                guard let rule = HealthSaveRule(rawValue: name) else {
                    throw UsageError("--health must be once, legacy or volatile, not \(OneLine.quote(name))")
                }
                app.healthRule = rule
            }
            device.logLevel = try DaemonCommandLine.logLevel(parsed)
            device.session.acknowledgeBeforeCommit = parsed.has("unsafe-ack-before-commit")
            device.session.acceptsAnySequence = parsed.has("unsafe-accept-any-sequence")
            device.session.trustsCounterpart = parsed.has("unsafe-trust-counterpart")
            device.session.duplicateDeliveryRate = try parsed.number("duplicate-rate", range: 0...1) ?? 0
            device.maximumStorePages = try parsed.integer("max-store-pages", range: 1...Int(Int32.max))
            app.mirroringConfirmTimeoutMilliseconds = try parsed.integer("mirroring-confirm-timeout-ms", default: 10_000, range: 1...600_000)!
            device.limits = try ConnectionLimits(parsed)
            device.session.appVersion = try appVersion(parsed)
            device.activationDelayMilliseconds = try parsed.integer("activation-delay-ms", range: 1...60_000)
            device.testCommandsEnabled = parsed.has("enable-test-commands")
            try PhoneActivation.tetherToOS()
            let activation: PhoneActivation?
            do {
                activation = try PhoneActivation.take(home: DeviceHome(path: device.home, role: .phone))
            } catch {
                // The supervisor's mistake, not the user's command line: one line, no usage text.
                DaemonCommandLine.writeError("\(tool): \(error.message)\n")
                return 2
            }
            return try RunWayDevice.run(device, activation: activation, bundleID: RunWayStore.bundleIDs.phone) { context in
                let phone = RunWayPhoneApp(options: app, context: context)
                try phone.launch()
                return phone
            }
        } catch {
            return DaemonCommandLine.failure(tool, error)
        }
    }

    package static func watch(_ arguments: [String]) -> Int32 {
        let tool = "watch-agent"
        if arguments == ["--version"] { return DaemonCommandLine.printVersion(tool) }
        if let status = complete(arguments, watchSpecs) { return status }
        do {
            let parsed = try Arguments.parse(arguments, specs: watchSpecs)
            if parsed.wantsHelp { print(watchUsage()); return 0 }
            if let app = parsed.value("app") { return try runWatchApp(app, parsed) }
            for name in ["bundle-id", "app-arg"] where parsed.value(name) != nil { throw UsageError("--\(name) goes with --app") }
            var device = DeviceHost.Configuration(home: try home(parsed), role: .watch)
            var app = RunWayWatchApp.Options()
            device.logLevel = try DaemonCommandLine.logLevel(parsed)
            device.session.maximumTransfersPerSecond = try parsed.integer("link-rate", range: 1...10_000_000)
            app.instrumentStream = parsed.has("instrument-stream")
            device.unsafeLinkLossSkipsFrames = parsed.has("unsafe-link-loss-skips-frames")
            device.session.trustsCounterpart = parsed.has("unsafe-trust-counterpart")
            if let name = parsed.value("gpws") {
                guard let rule = GPWSBehaviour(rawValue: name) else { throw UsageError("--gpws must be fixed or legacy, not \(OneLine.quote(name))") }
                app.gpws = rule
            }
            if let rule = parsed.value("failed-transfer") {
                guard rule == "requeue" || rule == "legacy" else { throw UsageError("--failed-transfer must be requeue or legacy, not \(OneLine.quote(rule))") }
                app.requeueFailedTransfers = rule == "requeue"
            }
            if let rule = parsed.value("received-transfers") {
                guard rule == "once" || rule == "legacy" else { throw UsageError("--received-transfers must be once or legacy, not \(OneLine.quote(rule))") }
                app.countsEachTransferOnce = rule == "once"
            }
            device.maximumStorePages = try parsed.integer("max-store-pages", range: 1...Int(Int32.max))
            device.limits = try ConnectionLimits(parsed)
            device.session.appVersion = try appVersion(parsed)
            device.testCommandsEnabled = parsed.has("enable-test-commands")
            // Launched by watch-os: the app never outlives it.
            try PhoneActivation.tetherToOS()
            return try RunWayDevice.run(device, activation: nil, bundleID: RunWayStore.bundleIDs.watch) { context in
                let watch = RunWayWatchApp(options: app, context: context)
                try watch.launch()
                return watch
            }
        } catch {
            return DaemonCommandLine.failure(tool, error)
        }
    }

    /// `watch-agent --app PATH`: the watch runs the developer's app. This process becomes it (`execve`,
    /// the same pid for whoever started the watch), with the device in its environment — the watch's
    /// home, its container, the log settings, the version — where its `WatchConnectivity` finds them at
    /// the first use of `WCSession.default` (`DeviceHost.fromEnvironment`).
    static func runWatchApp(_ path: String, _ parsed: ParsedArguments) throws -> Int32 {
        for name in runWayWatchOnly where parsed.value(name) != nil || parsed.has(name) {
            throw UsageError("--\(name) is RunWay's watch app's switch: an app of your own takes its own as --app-arg")
        }
        let executable = Filesystem.absolutePath(path)
        guard Filesystem.kind(of: executable) == .regular, access(executable, X_OK) == 0 else {
            throw UsageError("the app \(path) is not an executable file (--app PATH)")
        }
        let home = DeviceHome(path: Filesystem.absolutePath(try parsed.required("home")), role: .watch)
        try home.prepare()
        let name = String(executable.split(separator: "/").last ?? "app")
        let bundleID = parsed.value("bundle-id") ?? (AppContainer.problem(bundleID: name) == nil ? name : "app")
        if let problem = AppContainer.problem(bundleID: bundleID) { throw UsageError("--bundle-id: \(problem)") }
        let container = AppContainer(home: home.path, bundleID: bundleID)
        // Made before the app starts, as phone-os does: an app that finds its Documents folder first thing
        // (before it touches WCSession) gets its container's, not the user's (XDG_DOCUMENTS_DIR).
        do { try container.prepare() } catch { throw DaemonRuntime.StartError.other("cannot prepare the app's container \(container.path): \(error)") }
        _ = try DaemonCommandLine.logLevel(parsed)  // checked here: the app's start would say it less well
        // Before the app's first instruction: what it writes to Documents before it touches its session
        // lands in its container, not in the passwd entry's home (Foundation's fallback without user-dirs.dirs).
        try container.prepare()
        var variables = container.environment
        variables[DeviceEnvironment.home] = home.path
        variables[DeviceEnvironment.role] = "watch"
        variables[DeviceEnvironment.container] = container.path
        variables[DeviceEnvironment.bundleID] = bundleID
        variables[DeviceEnvironment.appVersion] = try parsed.value("app-version").map { _ in try appVersion(parsed) }
        variables[DeviceEnvironment.logLevel] = parsed.value("log-level")
        variables[DeviceEnvironment.logFormat] = parsed.value("log-format")
        variables[DeviceEnvironment.testCommands] = parsed.has("enable-test-commands") ? "1" : nil
        // Its bundle and its clock, as watch-os gives them (`AppInstall`): `Bundle.main` is the app's, and
        // its `Date()` the device clock's, kept in this home and published before the app's first reading.
        var started = executable
        do {
            started = try AppBundle.install(
                home: home.path, bundleID: bundleID, executable: executable, version: variables[DeviceEnvironment.appVersion] ?? "1.0", role: "watch"
            ).executable
        } catch {
            DaemonCommandLine.writeError("watch-agent: the app's bundle could not be installed (\(error)): Bundle.main is the build's directory\n")
        }
        AppInstall.publishStoredClock(home: home.path)
        variables.merge(AppInstall.environment(home: home.path, inherited: getenv("LD_PRELOAD").map { String(cString: $0) })) { $1 }
        let environment =
            Spawn.currentEnvironment(removing: Set(variables.keys).union([DeviceEnvironment.osSocket]))
            + variables.map { "\($0.key)=\($0.value)" }
        let error = Spawn.replaceProcess(started, arguments: [started] + parsed.values("app-arg"), environment: environment)
        throw DaemonRuntime.StartError.other("cannot run the app \(executable): \(error)")
    }

    static func appVersion(_ parsed: ParsedArguments) throws(UsageError) -> String {
        guard let version = parsed.value("app-version") else { return AppVersion.current }
        if let problem = AppVersion.problem(version) { throw UsageError("--app-version: \(problem)") }
        return version
    }

}
