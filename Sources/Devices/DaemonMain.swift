import Connectivity
import Control
import Glibc
import Posix
import RunWayApp

/// The daemons' command lines: parse, build, run — nothing more lives in their `main.swift`.
public enum DaemonMain {
    static let logLevels: [String: Logger.Level] = [
        "debug": .debug, "info": .info, "notice": .notice, "warning": .warning, "error": .error,
    ]

    static let phoneSpecs: [ArgumentSpec] =
        [
            .option("home", "DIR", "the phone's home directory (created if missing, mode 0700)"),
            .option("save-path", "PATH", "immediate (default: save each flight on receipt) or ui-drain (RunWay 1.3's bug)"),
            .option("reminders", "RULE", "current (default: the 7/14/21/28-day ladder) or legacy (RunWay 1.3.1's single reminder)"),
            .option("log-level", "LEVEL", "debug, info (default), notice, warning or error"),
            logFormatSpec, logRepeatSpec,
            .flag("unsafe-ack-before-commit", "TEST ONLY: acknowledge transfers before committing them (loses flights on a crash)", hidden: true),
            .option("max-store-pages", "N", "FAULT INJECTION: cap the store at N pages, as if the disk were full", hidden: true),
            .option("duplicate-rate", "R", "FAULT INJECTION: deliver each received transfer to the app twice with probability R (0 to 1)", hidden: true),
            appVersionSpec,
            .option(
                "activation-delay-ms", "N", "TEST ONLY: open the control socket and say ready first, activate the session N ms later (1-60000)", hidden: true),
            .option("mirroring-confirm-timeout-ms", "MS", "TEST: how long a phone-led start waits for the watch's answer (default 10000)", hidden: true),
            testCommandsSpec,
        ] + ConnectionLimits.specs

    static let appVersionSpec = ArgumentSpec.option(
        "app-version", "V",
        "the app's version, N(.N){0,3} with parts up to 9999 (default \(AppVersion.current)); a restart with another version keeps the store (an upgrade)")

    static let testCommandsSpec = ArgumentSpec.flag(
        "enable-test-commands", "TEST ONLY: accept fault-injection control commands (store-limit)", hidden: true)

    static let watchSpecs: [ArgumentSpec] =
        [
            .option("home", "DIR", "the watch's home directory (created if missing, mode 0700)"),
            .option("link-rate", "N", "simulate a slow link: send at most N transfers a second (default: no limit)"),
            .option("gpws", "RULE", "fixed (default: no GPWS decision while stationary) or legacy (RunWay 1.3's false SINK RATE at rest)"),
            .option(
                "failed-transfer", "RULE",
                "requeue (default: a run whose transfer failed is queued again) or legacy (the seeds' app: no handler, the run is lost)"),
            .flag("instrument-stream", "RunWay 1.4's dead stream: send the run's values every 3 s (the phone drops them)", hidden: true),
            .option("log-level", "LEVEL", "debug, info (default), notice, warning or error"),
            logFormatSpec, logRepeatSpec,
            .option("max-store-pages", "N", "FAULT INJECTION: cap the store at N pages, as if the disk were full", hidden: true),
            appVersionSpec,
            testCommandsSpec,
        ] + ConnectionLimits.specs

    static func printVersion(_ tool: String) -> Int32 {
        let line = Array("\(tool) \(RunWayPair.version) (RunWay Pair; simulates RunWay \(RunWayPair.appVersion))\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        return 0
    }

    public static func phoneUsage() -> String {
        """
        usage: phone-daemon --home DIR [--save-path immediate|ui-drain] [--reminders current|legacy] [--app-version V] [--log-level LEVEL]
                            [--log-format logfmt|json]

        The simulated iPhone running RunWay. Listens for its paired watch on DIR/link.sock and for the
        runway CLI on DIR/control.sock; saves every flight the watch transfers the moment it arrives.
        Prints "ready" on stdout once it accepts connections; SIGTERM shuts it down cleanly (exit 0).
        Logs go to stderr, one key=value line per event.

        Socket activation (systemd's protocol; see docs/systemd/): a supervisor may bind DIR/link.sock
        and DIR/control.sock itself and pass them as LISTEN_FDS/LISTEN_PID/LISTEN_FDNAMES (names link and
        control); the phone then listens on those and never removes their files. With NOTIFY_SOCKET set it
        reports READY=1 and STOPPING=1. Under phone-os (HOME/os.lock held) a hand start is refused.

        options:
        \(Arguments.describe(phoneSpecs + [.flag("help", "show this help")]))

        exit status: 0 after SIGTERM, 1 if it cannot start (home locked, store damaged or from a newer
        version), 2 on bad usage (including a home that is not a directory, is a watch's home, or whose
        socket paths would not fit the 107 bytes of sun_path).
        """
    }

    public static func watchUsage() -> String {
        """
        usage: watch-agent --home DIR [--link-rate N] [--gpws fixed|legacy] [--failed-transfer requeue|legacy] [--app-version V] [--log-level LEVEL]
                           [--log-format logfmt|json]

        The simulated Apple Watch running RunWay. Recorded runs are queued durably in its outbox and sent
        to the paired phone (runway pair) whenever the phone is up; it reconnects with backoff while not.
        Prints "ready" on stdout once it accepts connections; SIGTERM shuts it down cleanly (exit 0).

        options:
        \(Arguments.describe(watchSpecs + [.flag("help", "show this help")]))

        exit status: 0 after SIGTERM, 1 if it cannot start (home locked, store damaged or from a newer
        version), 2 on bad usage (including a home that is not a directory, is a phone's home, or whose
        socket paths would not fit the 107 bytes of sun_path).
        """
    }

    public static func phone(_ arguments: [String]) -> Int32 {
        let tool = "phone-daemon"
        if arguments == ["--version"] { return printVersion(tool) }
        do {
            let parsed = try Arguments.parse(arguments, specs: phoneSpecs)
            if parsed.wantsHelp { print(phoneUsage()); return 0 }
            var options = PhoneDaemon.Options(home: try parsed.required("home"))
            if let name = parsed.value("save-path") {
                guard let path = SavePath(rawValue: name) else { throw UsageError("--save-path must be immediate or ui-drain, not \(OneLine.quote(name))") }
                options.savePath = path
            }
            if let name = parsed.value("reminders") {
                guard let rule = RunReminderService.Rule(rawValue: name) else {
                    throw UsageError("--reminders must be current or legacy, not \(OneLine.quote(name))")
                }
                options.reminderRule = rule
            }
            options.logLevel = try logLevel(parsed)
            options.acknowledgeBeforeCommit = parsed.has("unsafe-ack-before-commit")
            options.duplicateRate = try parsed.number("duplicate-rate", range: 0...1) ?? 0
            options.maximumStorePages = try parsed.integer("max-store-pages", range: 1...Int(Int32.max))
            options.mirroringConfirmTimeoutMilliseconds = try parsed.integer("mirroring-confirm-timeout-ms", default: 10_000, range: 1...600_000)!
            options.limits = try ConnectionLimits(parsed)
            options.appVersion = try appVersion(parsed)
            options.activationDelayMilliseconds = try parsed.integer("activation-delay-ms", range: 1...60_000)
            try PhoneActivation.tetherToOS()
            let activation: PhoneActivation?
            do {
                activation = try PhoneActivation.take(home: DeviceHome(path: options.home, role: .phone))
            } catch {
                // The supervisor's mistake, not the user's command line: one line, no usage text.
                writeError("\(tool): \(error.message)\n")
                return 2
            }
            let daemon = try PhoneDaemon(options: options)
            daemon.activation = activation
            daemon.runtime.testCommandsEnabled = parsed.has("enable-test-commands")
            return try daemon.run()
        } catch let error as UsageError {
            return usageFailure(tool, error)
        } catch let error as DeviceHome.HomeError {
            return invalidHome(tool, error)
        } catch {
            return startFailure(tool, error)
        }
    }

    public static func watch(_ arguments: [String]) -> Int32 {
        let tool = "watch-agent"
        if arguments == ["--version"] { return printVersion(tool) }
        do {
            let parsed = try Arguments.parse(arguments, specs: watchSpecs)
            if parsed.wantsHelp { print(watchUsage()); return 0 }
            var options = WatchAgent.Options(home: try parsed.required("home"))
            options.logLevel = try logLevel(parsed)
            options.linkRate = try parsed.integer("link-rate", range: 1...10_000_000)
            options.instrumentStream = parsed.has("instrument-stream")
            if let name = parsed.value("gpws") {
                guard let rule = GPWSBehaviour(rawValue: name) else { throw UsageError("--gpws must be fixed or legacy, not \(OneLine.quote(name))") }
                options.gpws = rule
            }
            if let rule = parsed.value("failed-transfer") {
                guard rule == "requeue" || rule == "legacy" else { throw UsageError("--failed-transfer must be requeue or legacy, not \(OneLine.quote(rule))") }
                options.requeueFailedTransfers = rule == "requeue"
            }
            options.maximumStorePages = try parsed.integer("max-store-pages", range: 1...Int(Int32.max))
            options.limits = try ConnectionLimits(parsed)
            options.appVersion = try appVersion(parsed)
            let daemon = try WatchAgent(options: options)
            daemon.runtime.testCommandsEnabled = parsed.has("enable-test-commands")
            return try daemon.run()
        } catch let error as UsageError {
            return usageFailure(tool, error)
        } catch let error as DeviceHome.HomeError {
            return invalidHome(tool, error)
        } catch {
            return startFailure(tool, error)
        }
    }

    static let logFormatSpec = ArgumentSpec.option("log-format", "FORMAT", "logfmt (default: key=value lines) or json (one object per line)")

    static let logRepeatSpec = ArgumentSpec.option(
        "log-repeat-interval-ms", "MS", "TEST: write a repeated identical error at most once per MS (default 60000)", hidden: true)

    /// The log level, and (the same moment, before any logger exists) the log format and how often a
    /// repeated error is written.
    static func logLevel(_ parsed: ParsedArguments) throws(UsageError) -> Logger.Level {
        if let text = parsed.value("log-repeat-interval-ms") {
            guard let ms = UInt64(text), (1...3_600_000).contains(ms) else {
                throw UsageError("--log-repeat-interval-ms must be a whole number from 1 to 3600000, not \(OneLine.quote(text))")
            }
            Logger.defaultRepeatIntervalMilliseconds = ms
        }
        if let name = parsed.value("log-format") {
            guard let format = Logger.Format(rawValue: name) else { throw UsageError("--log-format must be logfmt or json, not \(OneLine.quote(name))") }
            Logger.defaultFormat = format
        }
        guard let name = parsed.value("log-level") else { return .info }
        guard let level = logLevels[name] else { throw UsageError("--log-level must be debug, info, notice, warning or error, not \(OneLine.quote(name))") }
        return level
    }

    static func appVersion(_ parsed: ParsedArguments) throws(UsageError) -> String {
        guard let version = parsed.value("app-version") else { return AppVersion.current }
        if let problem = AppVersion.problem(version) { throw UsageError("--app-version: \(problem)") }
        return version
    }

    /// A usage error: the one line, then where the help is — not the whole usage text.
    static func usageFailure(_ tool: String, _ error: UsageError) -> Int32 {
        writeError("\(tool): \(error.message)\ntry '\(tool) --help'\n")
        return 2
    }

    /// A home that is not a directory, the other device's home, or one whose sockets would not fit
    /// `sun_path` is invalid input (2); a damaged store is a failure to start (1).
    static func invalidHome(_ tool: String, _ error: DeviceHome.HomeError) -> Int32 {
        writeError("\(tool): \(error)\n")
        switch error {
        case .unhealthyStore, .storeLost: return 1
        default: break
        }
        return 2
    }

    static func startFailure(_ tool: String, _ error: Error) -> Int32 {
        writeError("\(tool): \(error)\n")
        return 1
    }

    static func writeError(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
