import AppHost
import Connectivity
import Control
import Posix

/// `phone-os`'s command line.
package enum PhoneOSMain {
    static let specs: [ArgumentSpec] =
        [
            .option("home", "DIR", "the phone's home directory (as for phone-daemon)"),
            .option(
                "background-budget-ms", "MS",
                "how long a background launch may run, counted from the app's READY=1, before it is reclaimed (SIGKILL) unless the app is in the foreground (default 30000)"
            ),
            .option(
                "launch-timeout-ms", "MS",
                "how long a launch may take to report READY=1, and a background launch then to make its first delivery, before it is killed or reclaimed (default 20000)"
            ),
            .option("save-path", "PATH", "passed to the app: immediate (default) or ui-drain (RunWay 1.3's bug)"),
            .option("app", "PATH", "the app's executable (default: phone-daemon next to phone-os, RunWay's phone app)"),
            .option("bundle-id", "ID", "the app's bundle id, naming its container HOME/apps/ID (default: com.runway.RunWay, else the --app's file name)"),
            .option("app-arg", "ARG", "passed to the app at each launch (repeatable: --app-arg=--reminders --app-arg=legacy)"),
            .option("log-level", "LEVEL", "debug, info (default), notice, warning or error"),
            DaemonCommandLine.logFormatSpec,
            DaemonCommandLine.testCommandsSpec,
        ] + DeviceOSCommandLine.suspensionSpecs

    package static func usage() -> String {
        """
        usage: phone-os --home DIR [--background-budget-ms MS] [--launch-timeout-ms MS] [--save-path immediate|ui-drain] [--app PATH]
                        [--bundle-id ID] [--app-arg ARG]... [--log-level LEVEL] [--log-format logfmt|json]
                        [--suspend-after-idle-ms MS] [--no-wake]

        The phone's simulated iOS. It owns DIR/link.sock, where the paired watch connects, and its own
        control socket DIR/os.sock, and launches the RunWay app (phone-daemon) through the systemd
        socket-activation protocol: in the background when the watch connects with transfers or a message
        pending (no UI; reclaimed with SIGKILL once the budget, counted from the app's READY=1, is used up and
        the app has taken its first delivery), in the foreground on runway phone app open. A background app
        whose work is done is suspended (SIGSTOP) once it has been quiet for --suspend-after-idle-ms, and
        woken (SIGCONT) for what the watch sends it — a message, a transfer, a workout. An app that crashes
        or never reports ready is launched again only after a backoff (1 s, doubling to 60 s).
        A watch with nothing pending launches nothing. Prints "ready" once it accepts connections; SIGTERM
        stops the app and exits 0. Drive it with runway phone app open|close|force-quit|suspend|resume and
        runway phone os status|jetsam. The app never outlives phone-os (killed with it, even by SIGKILL); an
        app an earlier phone-os of DIR left running is reclaimed at start-up.

        options:
        \(Arguments.describe(specs + [.flag("help", "show this help")]))

        exit status: 0 after SIGTERM, 1 if the home is already run by phone-os or served by a phone-daemon
        started by hand, 2 on bad usage (a budget of 0 or less, an unknown option, a bad home).
        """
    }

    /// The values `runway completion` offers for phone-os's options.
    static let completionValues: [String: ArgumentCompletion.Values] = [
        "home": .directories, "app": .files, "save-path": .words(["immediate", "ui-drain"]),
        "log-level": .words(["debug", "info", "notice", "warning", "error"]), "log-format": .words(Logger.Format.allCases.map(\.rawValue)),
    ]

    package static func main(_ arguments: [String]) -> Int32 {
        let tool = "phone-os"
        if arguments == ["--version"] { return DaemonCommandLine.printVersion(tool) }
        if let status = DaemonCommandLine.complete(arguments, specs, values: completionValues) { return status }
        do {
            let parsed = try Arguments.parse(arguments, specs: specs)
            if parsed.wantsHelp { print(usage()); return 0 }
            var saveArguments: [String] = []
            if let name = parsed.value("save-path") {
                guard parsed.value("app") == nil else {
                    throw UsageError("--save-path is RunWay's switch: an app of your own takes its own as --app-arg")
                }
                guard name == "immediate" || name == "ui-drain" else {
                    throw UsageError("--save-path must be immediate or ui-drain, not \(OneLine.quote(name))")
                }
                saveArguments = ["--save-path", name]
            }
            let options = try DeviceOSCommandLine.options(
                parsed, defaultApp: "phone-daemon", defaultBundleID: "com.runway.RunWay", appArguments: saveArguments)
            return try PhoneOS(options: options).run()
        } catch {
            return DeviceOSCommandLine.failure(tool, error)
        }
    }
}
