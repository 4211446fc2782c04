import AppHost
import Connectivity
import Control
import Posix

/// `watch-os`'s command line: `phone-os`'s, for the watch (`DeviceOSCommandLine`).
package enum WatchOSMain {
    static let specs: [ArgumentSpec] =
        DeviceOSCommandLine.lifeSpecs(home: "the watch's home directory (as for watch-agent)")
        + DeviceOSCommandLine.appSpecs(defaultApp: "watch-agent", defaultBundleID: "com.runway.RunWay.watchkitapp", device: "watch")
        + [
            .flag(
                "no-workout-recovery",
                "an app killed during its workout session is not relaunched (watch-os before issue 51: the run's Health save waits for the user to open the app)"
            )
        ]

    package static func usage() -> String {
        """
        usage: watch-os --home DIR [--background-budget-ms MS] [--launch-timeout-ms MS] [--app PATH] [--bundle-id ID]
                        [--app-arg ARG]... [--log-level LEVEL] [--log-format logfmt|json]
                        [--suspend-after-idle-ms MS] [--no-wake] [--no-workout-recovery]

        The watch's simulated watchOS. It keeps the watch's clock and its own control socket DIR/os.sock,
        and launches the RunWay watch app (watch-agent): in the foreground on runway watch app open (and
        when a run is recorded: runway watch record opens it), in the background when the phone has
        something for it — a userInfo, a complication, an application context or a file (the app hears a
        WKWatchConnectivityRefreshBackgroundTask) — or the watch's own queue has transfers for the phone in
        range, or the phone starts a workout (HealthKit's startWatchApp: the app is handed the start);
        reclaimed with SIGKILL once the budget, counted from the app's READY=1, is used up (not while it
        runs a workout). While the app is not running, watch-os holds the watch's link to the phone
        itself (the phone sees the watch app not reachable; a message from the phone does not launch it)
        and answers runway link set|show|schedule: its connection meets the link's conditions, and out of
        range it does not connect; runway link down|up and runway watch complication on|off too, kept
        for the app's next launch (the radio and the watch face are the system's). Prints "ready" once it
        accepts connections; SIGTERM stops the app and exits 0. Drive it with runway watch app
        open|close|force-quit|suspend|resume and runway watch os status|jetsam. The app never outlives
        watch-os (killed with it, even by SIGKILL); an app an earlier watch-os of DIR left running is
        reclaimed at start-up.

        options:
        \(Arguments.describe(specs + [.flag("help", "show this help")]))

        exit status: 0 after SIGTERM, 1 if the home is already run by watch-os or served by a watch-agent
        started by hand, 2 on bad usage (a budget of 0 or less, an --app that is not an executable, an
        unknown option, a bad home).
        """
    }

    static let completionValues: [String: ArgumentCompletion.Values] = [
        "home": .directories, "app": .files,
        "log-level": .words(["debug", "info", "notice", "warning", "error"]), "log-format": .words(Logger.Format.allCases.map(\.rawValue)),
    ]

    package static func main(_ arguments: [String]) -> Int32 {
        let tool = "watch-os"
        if arguments == ["--version"] { return DaemonCommandLine.printVersion(tool) }
        if let status = DaemonCommandLine.complete(arguments, specs, values: completionValues) { return status }
        do {
            let parsed = try Arguments.parse(arguments, specs: specs)
            if parsed.wantsHelp { print(usage()); return 0 }
            var options = try DeviceOSCommandLine.options(
                parsed, defaultApp: "watch-agent", defaultBundleID: "com.runway.RunWay.watchkitapp", appArguments: [])
            options.recoversWorkouts = !parsed.has("no-workout-recovery")
            return try WatchOS(options: options).run()
        } catch {
            return DeviceOSCommandLine.failure(tool, error)
        }
    }
}
