import Connectivity
import Dispatch
import Posix

// MARK: - Any app's device, from the environment its OS launched it with

extension DeviceHost {
    /// The device an app's process runs on when nothing composed one for it: the first use of
    /// `WCSession.default` (or `UNUserNotificationCenter.current()`) in an executable that `phone-os
    /// --app PATH` or `watch-agent --app PATH` launched finds its device's home, the OS's socket, its
    /// container and the sockets its OS passed in its environment (`DeviceEnvironment`), and starts the
    /// device on a thread of its own: the home claimed, the service's store opened, the link listened on
    /// or dialled, the control socket opened once the app activates, `READY=1` said then. The app's code
    /// does nothing for any of it: it sets a delegate, calls `activate()`, and runs its main queue, as on
    /// iOS. A device that cannot start (the home held by another process, a damaged store) says why in
    /// one line on stderr and ends the process, exit 1; SIGTERM ends it cleanly, exit 0.
    ///
    /// Nil when the process was started by hand with no device in its environment: the session then says
    /// `notActivated` with `sessionNotSupported`, as a device without a counterpart does.
    package static func fromEnvironment() -> DeviceHost? {
        bootstrapLock.withLock {
            if let current { return current }
            guard let home = DeviceEnvironment.value(DeviceEnvironment.home) else { return nil }
            do {
                let host = try bootstrap(home: home)
                return host
            } catch {
                let program = String(CommandLine.arguments.first?.split(separator: "/").last ?? "app")
                DaemonCommandLine.writeError("\(program): cannot start the device at \(home): \(error)\n")
                exit(error is UsageError ? 2 : 1)
            }
        }
    }

    private static let bootstrapLock = ThreadLock()

    private static func bootstrap(home: String) throws -> DeviceHost {
        let role: DeviceRole = DeviceEnvironment.value(DeviceEnvironment.role) == "watch" ? .watch : .phone
        var configuration = Configuration(home: home, role: role)
        if let level = DeviceEnvironment.value(DeviceEnvironment.logLevel) {
            guard let parsed = DaemonCommandLine.logLevels[level] else {
                throw UsageError("\(DeviceEnvironment.logLevel) must be debug, info, notice, warning or error, not \(OneLine.quote(level))")
            }
            configuration.logLevel = parsed
        }
        if let name = DeviceEnvironment.value(DeviceEnvironment.logFormat) {
            guard let format = Logger.Format(rawValue: name) else {
                throw UsageError("\(DeviceEnvironment.logFormat) must be logfmt or json, not \(OneLine.quote(name))")
            }
            Logger.defaultFormat = format
        }
        if let version = DeviceEnvironment.value(DeviceEnvironment.appVersion) {
            guard Self.isVersion(version) else {
                throw UsageError("\(DeviceEnvironment.appVersion) must be N(.N){0,3} with parts up to 9999, not \(OneLine.quote(version))")
            }
            configuration.session.appVersion = version
        } else {
            configuration.session.appVersion = "1.0"
        }
        configuration.testCommandsEnabled = DeviceEnvironment.value(DeviceEnvironment.testCommands) == "1"
        // Launched by an OS (phone-os, watch-os): never outlive it.
        try PhoneActivation.tetherToOS()
        var activation: PhoneActivation?
        if role == .phone { activation = try PhoneActivation.take(home: DeviceHome(path: home, role: .phone)) }
        // Made on the calling thread, which blocks the signals the device handles (SIGTERM, SIGINT,
        // SIGHUP) for itself and every thread it starts later; the first use of the session is early in
        // `main`, before the app starts threads of its own.
        let host = try DeviceHost(configuration)
        host.activation = activation
        host.appRunsMainQueue = true
        let bundleID = DeviceEnvironment.value(DeviceEnvironment.bundleID) ?? Self.executableName
        let container = AppContainer(path: host.configuration.container, home: host.home.path, bundleID: bundleID)
        // The app's thread goes on once the device's thread owns the loop: its first `sync` (setting the
        // delegate, `activate()`) then waits for the device to be up rather than racing its start.
        let claimed = DispatchSemaphore(value: 0)
        _ = try DedicatedThread { [host] in
            host.mailbox.claim()
            claimed.signal()
            let status: Int32
            do {
                status = try host.serve(activatedLater: true) {
                    try container.prepare()
                    if host.configuration.runsOperatingSystem { container.applyToEnvironment() }
                }
            } catch {
                DaemonCommandLine.writeError("\(Self.executableName): cannot start the device at \(host.home.path): \(error)\n")
                exit(1)
            }
            // The device stopped (SIGTERM, or something it depends on is gone): so does the app.
            exit(status)
        }
        claimed.wait()
        // Launched when the app's main queue first runs (its `RunLoop.main.run()`, `dispatchMain()`, an
        // async `main`): what an iOS app's return from `didFinishLaunching` to its run loop is. Ready
        // then, with or without a session (`launchCompleted`).
        nonisolated(unsafe) let launching = host
        DispatchQueue.main.async { launching.mailbox.post { launching.launchCompleted() } }
        return host
    }

    /// The executable's file name: the app's bundle id when its OS named none.
    static var executableName: String {
        let path = Processes.executablePath() ?? "app"
        let name = String(path.split(separator: "/").last ?? "app")
        return AppContainer.problem(bundleID: name) == nil ? name : "app"
    }

    /// `N(.N){0,3}`, each part 0…9999: the app versions a handshake carries.
    static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 4 && part.allSatisfy { $0.isASCII && $0.isNumber }
        }
    }
}
