import AppHost
import Connectivity
import Posix

/// What the OSes' command lines (`phone-os`, `watch-os`) share: the budget, the launch time-out, the app
/// and what it is launched with, its container, the log options — each checked before anything starts
/// (one line, exit 2).
enum DeviceOSCommandLine {
    static func lifeSpecs(home: String) -> [ArgumentSpec] {
        [
            .option("home", "DIR", home),
            .option(
                "background-budget-ms", "MS",
                "how long a background launch may run, counted from the app's READY=1, before it is reclaimed (SIGKILL) unless the app is in the foreground (1 to 86400000, default 30000)"
            ),
            .option(
                "launch-timeout-ms", "MS",
                "how long a launch may take to report READY=1, and a background launch then to make its first delivery, before it is killed or reclaimed (default 20000)"
            ),
        ] + suspensionSpecs
    }

    /// Suspension as Apple's systems do it (issue 50), on both OSes.
    static var suspensionSpecs: [ArgumentSpec] {
        [
            .option(
                "suspend-after-idle-ms", "MS",
                "suspend (SIGSTOP) a background app whose work is done: once it has delivered and heard nothing for this long (0: never; default 5000); it is woken for a message, a transfer or a workout, and reclaimed at the end of its budget"
            ),
            .flag("no-wake", "a suspended app is not woken for what arrives (the simulator before issue 50: a message to it times out, 7012)"),
        ]
    }

    static func appSpecs(defaultApp: String, defaultBundleID: String, device: String) -> [ArgumentSpec] {
        [
            .option("app", "PATH", "the app's executable (default: \(defaultApp) next to this program, RunWay's \(device) app)"),
            .option("bundle-id", "ID", "the app's bundle id, naming its container HOME/apps/ID (default: \(defaultBundleID), else the --app's file name)"),
            .option("app-arg", "ARG", "passed to the app at each launch (repeatable: --app-arg=--app-version --app-arg=1.5)"),
            .option("log-level", "LEVEL", "debug, info (default), notice, warning or error"),
            DaemonCommandLine.logFormatSpec,
            DaemonCommandLine.testCommandsSpec,
        ]
    }

    /// The options a parsed command line gives; `UsageError` for anything out of range.
    static func options(
        _ parsed: ParsedArguments, defaultApp: String, defaultBundleID: String, appArguments: [String]
    ) throws -> DeviceOperatingSystem.Options {
        let home = try parsed.required("home")
        var daemon = parsed.value("app") ?? ""
        let isDefaultApp = daemon.isEmpty
        if daemon.isEmpty {
            let me = Processes.executablePath() ?? CommandLine.arguments[0]
            daemon = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/" + defaultApp
        }
        var options = DeviceOperatingSystem.Options(home: home, daemonPath: daemon)
        options.bundleID = defaultBundleID
        if let text = parsed.value("background-budget-ms") {
            guard let value = Int(text), value > 0 else {
                throw UsageError("--background-budget-ms must be a positive number of milliseconds, not \(OneLine.quote(text))")
            }
            options.backgroundBudgetMilliseconds = UInt64(min(value, 86_400_000))
        }
        if let text = parsed.value("launch-timeout-ms") {
            guard let value = Int(text), (1...86_400_000).contains(value) else {
                throw UsageError("--launch-timeout-ms must be a whole number of milliseconds from 1 to 86400000, not '\(text)'")
            }
            options.launchTimeoutMilliseconds = UInt64(value)
        }
        if let text = parsed.value("suspend-after-idle-ms") {
            guard let value = Int(text), (0...86_400_000).contains(value) else {
                throw UsageError("--suspend-after-idle-ms must be a whole number of milliseconds from 0 to 86400000, not \(OneLine.quote(text))")
            }
            options.suspendAfterIdleMilliseconds = UInt64(value)
        }
        options.wakesSuspendedApp = !parsed.has("no-wake")
        options.appArguments = appArguments
        options.isRunWay = isDefaultApp
        // RunWay's app takes the device's settings on its command line; any other app's
        // WatchConnectivity reads them from its environment.
        if parsed.has("enable-test-commands") {
            if isDefaultApp { options.appArguments.append("--enable-test-commands") } else { options.deviceEnvironment[DeviceEnvironment.testCommands] = "1" }
        }
        if let level = parsed.value("log-level") {
            if isDefaultApp { options.appArguments += ["--log-level", level] } else { options.deviceEnvironment[DeviceEnvironment.logLevel] = level }
        }
        if let format = parsed.value("log-format") {
            if isDefaultApp { options.appArguments += ["--log-format", format] } else { options.deviceEnvironment[DeviceEnvironment.logFormat] = format }
        }
        options.appArguments += parsed.values("app-arg")
        if let id = parsed.value("bundle-id") {
            if let problem = AppContainer.problem(bundleID: id) { throw UsageError("--bundle-id: \(problem)") }
            options.bundleID = id
        } else if !isDefaultApp {
            // Another app: its container is named after its executable.
            let name = String(options.daemonPath.split(separator: "/").last ?? "app")
            options.bundleID = AppContainer.problem(bundleID: name) == nil ? name : "app"
        }
        options.logLevel = try DaemonCommandLine.logLevel(parsed)
        guard Filesystem.kind(of: options.daemonPath) == .regular, access(options.daemonPath, X_OK) == 0 else {
            throw UsageError("the app \(options.daemonPath) is not an executable file (--app PATH)")
        }
        return options
    }

    /// A failed start: bad usage or a bad home is exit 2, anything else exit 1; one line each.
    static func failure(_ tool: String, _ error: Error) -> Int32 { DaemonCommandLine.failure(tool, error) }
}
