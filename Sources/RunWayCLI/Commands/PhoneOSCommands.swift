import Connectivity
import Control
import JSONText
import Posix

/// `runway phone app …` and `runway phone os …`: the user and the system of a phone run by `phone-os`.
enum PhoneOSCommands {
    static func client(_ parsed: ParsedArguments) throws -> ControlClient {
        let home = DeviceHome(path: try CLI.homePath(parsed, .phone), role: .phone)
        guard Filesystem.kind(of: home.path) == .directory else {
            throw ControlError.invalid("\(home.path) is not a phone home (no such directory)")
        }
        return try ControlClient(home: home, socketPath: home.osControlSocketPath, connectNow: false)
    }

    /// phone-os's state, a row each: what the app is, how often it was launched and why, and what a
    /// declined launch is where the count is shown (the watch knocked, nothing was launched).
    static func rows(_ status: OSStatusReply) -> [(label: String, text: String)] {
        var rows = [
            (
                "app",
                status.appState + (status.appPid.map { " (pid \($0))" } ?? "")
                    + (status.suspendedBySystem == true ? ", by phone-os: its background work is done" : "")
            )
        ]
        let byReason = status.launches.keys.sorted().map { "\($0) \(status.launches[$0] ?? 0)" }.joined(separator: ", ")
        rows.append(("launches", "\(status.launchCount)" + (byReason.isEmpty ? "" : " (\(byReason))")))
        rows.append(
            (
                "launches declined",
                "\(status.declinedLaunches)"
                    + (status.declinedLaunches > 0
                        ? " (the watch connected while the app was not running, with nothing pending or after a force-quit: the app was not launched)"
                        : "")
            ))
        rows.append(("reclaims", "\(status.reclaims) (background budget used up), jetsams \(status.jetsams)"))
        let wakes = (status.wakes ?? [:]).keys.sorted().map { "\($0) \(status.wakes?[$0] ?? 0)" }.joined(separator: ", ")
        rows.append(("suspensions", "\(status.systemSuspensions) (its work done), woken \(wakes.isEmpty ? "never" : wakes)"))
        if status.forceQuit { rows.append(("force-quit", "no background launch until the app is opened")) }
        rows.append(("installed", status.appInstalled ? "yes" + (status.appVersion.map { ", version \($0)" } ?? "") : "no (runway phone app install)"))
        rows.append(
            (
                "locked",
                status.lockedAfterReboot
                    ? "yes, not unlocked since it restarted: the watch cannot reach it (runway phone unlock)" : status.locked ? "yes" : "no"
            ))
        rows.append(("background budget", "\(status.backgroundBudgetMs) ms" + (status.remainingBudgetMs.map { ", \($0) ms left" } ?? "")))
        if status.failedLaunches > 0 {
            rows.append(
                (
                    "failed launches",
                    "\(status.failedLaunches) (\(status.failuresInARow) in a row" + (status.lastFailure.map { "; last: \($0)" } ?? "") + ")"
                ))
        }
        if let backoff = status.backoffRemainingMs { rows.append(("backing off", "no background launch for \(backoff) ms")) }
        return rows
    }

    static func render(_ status: OSStatusReply) -> String {
        rows(status).map { "\($0.label): \($0.text)" }.joined(separator: "\n")
    }

    static let appCommands: [CLI.Command] = [
        (
            "open",
            "Opens RunWay on a phone run by phone-os: launches it in the foreground (a UI may attach; returns once the app reported ready) or brings it there; ends a force-quit."
        ),
        ("close", "Returns the app to the background: its background budget starts; when it is used up the app is reclaimed."),
        ("force-quit", "Kills the app, as swiping it away does: no background launch until the user opens it again (transfers wait on the watch)."),
        ("suspend", "Suspends the running app (SIGSTOP): its state is kept, nothing runs."),
        ("resume", "Resumes a suspended app (SIGCONT): it goes on where it was, with no start-up again."),
    ].map { action, summary in
        CLI.Command(
            path: ["phone", "app", action], synopsis: "--home P [--json]", summary: summary,
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                let result = try client(parsed).send(ControlCommands.PhoneOSApp { $0.action = action })
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            })
    }

    /// `runway phone app install [--version V]` and `uninstall`.
    static let installCommands: [CLI.Command] = [
        CLI.Command(
            path: ["phone", "app", "install"], synopsis: "--home P [--version V] [--json]",
            summary: """
                Installs RunWay on a phone run by phone-os. Over the installed app (an update, --version V of at
                least the installed one) its data stays; a downgrade is refused, as iOS refuses one (exit 1).
                After an uninstall it starts from nothing. The watch learns it at its next attempt to connect.
                """,
            specs: [CLI.homeSpec, .option("version", "V", "the version installed, N(.N){0,3} (default: the installed one)"), CLI.jsonSpec],
            positionals: 0,
            run: { parsed in
                var request = ControlCommands.PhoneOSApp { $0.action = "install" }
                if let version = parsed.value("version") { request.version = version }
                let result = try client(parsed).send(request)
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            }),
        CLI.Command(
            path: ["phone", "app", "uninstall"], synopsis: "--home P [--json]",
            summary: """
                Deletes RunWay from a phone run by phone-os: the app is stopped, its container (its store: the
                Logbook, its settings, its kept files) and what the system held for it (queued transfers,
                application contexts, files on their way) are deleted; the pairing stays. The watch's
                isCompanionAppInstalled turns false (sessionCompanionAppInstalledDidChange) and its calls get
                7018 companionAppNotInstalled until the app is installed again.
                """,
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                let result = try client(parsed).send(ControlCommands.PhoneOSApp { $0.action = "uninstall" })
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            }),
    ]

    /// `runway phone lock|unlock|reboot`.
    static let deviceCommands: [CLI.Command] = [
        ("lock", "Locks the phone. After its first unlock since a restart, a locked phone still talks to the watch, as an iPhone does."),
        ("unlock", "Unlocks the phone; the first unlock after a restart makes it reachable to the watch again."),
        (
            "reboot",
            "Restarts the phone: the app stops, and the phone comes back locked — the watch cannot reach it (iOSDeviceNeedsUnlockAfterRebootForReachability) until it is unlocked."
        ),
    ].map { verb, summary in
        CLI.Command(
            path: ["phone", verb], synopsis: "--home P [--json]", summary: summary + " Needs phone-os (runway up runs it).",
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                let result =
                    verb == "reboot"
                    ? try client(parsed).send(ControlCommands.DeviceReboot()) : try client(parsed).send(ControlCommands.DeviceLock { $0.state = verb })
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            })
    }

    static let osCommands: [CLI.Command] = [
        CLI.Command(
            path: ["phone", "os", "status"], synopsis: "--home P [--json]",
            summary:
                "The phone's simulated iOS (phone-os): the app's state (not running, background, foreground, suspended), launches by reason, reclaims, jetsams, the remaining background budget, failed launches and the backoff after them.",
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                let result = try client(parsed).send(ControlCommands.OSStatus())
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            }),
        CLI.Command(
            path: ["phone", "os", "jetsam"], synopsis: "--home P [--json]",
            summary: "Memory pressure: phone-os kills the app at once (SIGKILL), as iOS's jetsam does. Fails (1) if the app is not running.",
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                let result = try client(parsed).send(ControlCommands.OSJetsam())
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            }),
    ]
}
