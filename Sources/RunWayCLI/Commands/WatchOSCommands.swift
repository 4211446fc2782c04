import Connectivity
import Control
import JSONText
import Posix

/// `runway watch app open|close|force-quit|suspend|resume` (install and uninstall: `SessionCommands`,
/// which answer without watch-os too) and `runway watch os status|jetsam`: the user
/// and the system of a watch run by `watch-os`. Without watch-os (a watch-agent started by hand, `runway
/// up --no-os`) `open` and `close` move the always-running app to the foreground and the background.
enum WatchOSCommands {
    static func render(_ status: OSStatusReply) -> String {
        var rows = PhoneOSCommands.rows(status).filter { $0.label != "installed" && $0.label != "locked" }.map { row in
            // watch-os also ends a background launch once its tasks are complete.
            guard row.label == "reclaims" else { return row }
            return (row.label, "\(status.reclaims) (background budget used up, or its background tasks complete), jetsams \(status.jetsams)")
        }
        rows.append(("installed", status.appInstalled ? "yes" : "no (runway watch app install)"))
        if let inRange = status.phoneInRange { rows.append(("phone", inRange ? "in range" : "out of range")) }
        if let handed = status.backgroundTasksHanded {
            rows.append(
                (
                    "background tasks",
                    "\(handed) handed, \(status.backgroundTasksCompleted ?? 0) completed, \(status.backgroundTasksExpired ?? 0) expired, \(status.backgroundTasksOpen ?? 0) open"
                ))
        } else if let completed = status.backgroundTasksCompleted {
            rows.append(("background tasks completed", "\(completed)"))
        }
        if let fired = status.backgroundRefreshesFired {
            rows.append(("background refresh", (status.backgroundRefreshAt.map { "at \($0)" } ?? "none scheduled") + ", \(fired) fell due"))
        }
        if let reloads = status.reloadsRequested {
            let text = reloads.isEmpty ? "none" : reloads.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            rows.append(("complication reloads", text))
        }
        if let haptics = status.haptics, !haptics.isEmpty {
            rows.append(("haptics", haptics.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        }
        return rows.map { "\($0.label): \($0.text)" }.joined(separator: "\n")
    }

    /// `app ACTION` on watch-os; without it, `open` and `close` as `foreground` and `background`.
    static func appAction(_ client: DeviceClient, _ action: String) throws -> OSStatusReply {
        guard let os = client.deviceOS else {
            throw ControlError("runway watch app \(action) needs watch-os (runway up runs it; runway watch app foreground|background without it)")
        }
        return try os.send(ControlCommands.WatchOSApp { $0.action = action })
    }

    static let appCommands: [CLI.Command] = [
        (
            "open",
            "Opens RunWay on the watch: watch-os launches it in the foreground (returns once the app reported ready) or brings it there; ends a force-quit. The phone sees the watch reachable while it is there."
        ),
        ("close", "Returns the watch app to the background: its background budget starts; when it is used up the app is reclaimed."),
        ("force-quit", "Kills the watch app: no background launch until the user opens it again (the phone's transfers wait)."),
        ("suspend", "Suspends the running watch app (SIGSTOP): its state is kept, nothing runs."),
        ("resume", "Resumes a suspended watch app (SIGCONT)."),
    ].map { action, summary in
        CLI.Command(
            path: ["watch", "app", action], synopsis: "--home W [--json]", summary: summary + " Needs watch-os (runway up runs it).",
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                let client = try CLI.client(parsed, .watch)
                if client.deviceOS == nil, action == "open" || action == "close" {
                    // A watch-agent alone: the app always runs; open and close move it.
                    let reply = try client.sendToApp(
                        ControlCommands.WatchApp { $0.action = action == "open" ? "foreground" : "background" })
                    Output.out(parsed.has("json") ? reply.json.text : "watch app: installed=\(reply.watchAppInstalled) active=\(reply.watchAppActive)")
                    return 0
                }
                let result = try appAction(client, action)
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            })
    }

    static let osCommands: [CLI.Command] = [
        CLI.Command(
            path: ["watch", "os", "status"], synopsis: "--home W [--json]",
            summary:
                "The watch's simulated watchOS (watch-os): the app's state (not running, background, foreground, suspended), launches by reason, reclaims, jetsams, the remaining background budget, failed launches, whether the phone is in range.",
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                guard let os = try CLI.client(parsed, .watch).deviceOS else { throw ControlError("watch-os does not run this watch (runway up runs it)") }
                let result = try os.send(ControlCommands.OSStatus())
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            }),
        CLI.Command(
            path: ["watch", "os", "jetsam"], synopsis: "--home W [--json]",
            summary: "Memory pressure: watch-os kills the watch app at once (SIGKILL). Fails (1) if the app is not running.",
            specs: [CLI.homeSpec, CLI.jsonSpec], positionals: 0,
            run: { parsed in
                guard let os = try CLI.client(parsed, .watch).deviceOS else { throw ControlError("watch-os does not run this watch (runway up runs it)") }
                let result = try os.send(ControlCommands.OSJetsam())
                Output.out(parsed.has("json") ? result.json.text : render(result))
                return 0
            }),
    ]
}
