import Connectivity
import Control
import JSONText

// MARK: - The app's life (yours or RunWay's), as its OS — phone-os, watch-os — keeps it

extension Render {
    /// Every action on the app, and the OS's status, prints the app's state as its OS has it after it.
    static let apps: [Render] = [
        .of(ControlCommands.PhoneOSApp.self) { reply, _, _ in OSStatusText.render(reply, .phone) },
        .of(ControlCommands.OSStatus.self) { reply, _, context in OSStatusText.render(reply, context.device) },
        .of(ControlCommands.OSJetsam.self) { reply, _, context in OSStatusText.render(reply, context.device) },
        .of(ControlCommands.DeviceLock.self) { reply, _, _ in OSStatusText.render(reply, .phone) },
        .of(ControlCommands.DeviceReboot.self) { reply, _, _ in OSStatusText.render(reply, .phone) },
    ]
}

/// `runway watch app open|close|…`: watch-os's; a watch-agent alone, whose app always runs, moves it to
/// the foreground (`open`) or the background (`close`).
extension ControlCommands.WatchOSApp: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let client = try context.client()
        if client.deviceOS == nil, command.action == "open" || command.action == "close" {
            let reply = try client.sendToApp(ControlCommands.WatchApp { $0.action = command.action == "open" ? "foreground" : "background" })
            Output.out(context.json ? reply.json.text : "watch app: installed=\(reply.watchAppInstalled) active=\(reply.watchAppActive)")
            return 0
        }
        guard client.deviceOS != nil else {
            throw ControlError("runway watch app \(command.action) needs watch-os (runway up runs it; runway watch app foreground|background without it)")
        }
        let reply = try client.send(command)
        Output.out(context.json ? reply.json.text : OSStatusText.render(reply, .watch))
        return 0
    }
}

/// `runway watch app install|uninstall|foreground|background`: under watch-os the OS's (install and
/// uninstall work with the app down; foreground is open, background close), else the watch-agent's.
extension ControlCommands.WatchApp: CLIPerformed {
    static func perform(_ command: Self, _ context: DerivedCLI.Context) throws -> Int32 {
        let client = try context.client()
        if client.deviceOS != nil {
            let action = ["foreground": "open", "background": "close"][command.action] ?? command.action
            let status = try client.send(ControlCommands.WatchOSApp { $0.action = action })
            Output.out("watch app: \(status.appInstalled ? status.appState : "not installed") (watch-os)")
            return 0
        }
        let reply = try client.sendToApp(command)
        Output.out("watch app: installed=\(reply.watchAppInstalled) active=\(reply.watchAppActive)")
        return 0
    }
}

/// The OS's state of the app, a row each: what the app is, how often it was launched and why, and what a
/// declined launch is where the count is shown (the other device knocked, nothing was launched).
enum OSStatusText {
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
                ("failed launches", "\(status.failedLaunches) (\(status.failuresInARow) in a row" + (status.lastFailure.map { "; last: \($0)" } ?? "") + ")"))
        }
        if let backoff = status.backoffRemainingMs { rows.append(("backing off", "no background launch for \(backoff) ms")) }
        if let timing = status.systemTiming { rows.append(("system timing", systemTimingText(timing))) }
        return rows
    }

    /// `realistic:11, 3 deferred (refresh-budget 1, refresh-shortly-after 2), 1 waiting until T, 4 refreshes in the last hour (4 an hour)`.
    static func systemTimingText(_ timing: JSONValue) -> String {
        let reasons = (timing["byReason"]?.objectValue ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.intValue ?? 0)" }
        var text = (timing["system"]?.stringValue ?? "?") + ", \(timing["deferred"]?.intValue ?? 0) deferred"
        if !reasons.isEmpty { text += " (\(reasons.joined(separator: ", ")))" }
        text += ", \(timing["waiting"]?.intValue ?? 0) waiting" + (timing["nextDueAt"]?.stringValue.map { " until \($0)" } ?? "")
        if let hour = timing["refreshesInLastHour"]?.intValue {
            text += ", \(hour) refreshes in the last hour (\(timing["refreshesPerHour"]?.intValue ?? 4) an hour)"
        }
        if let runtime = timing["taskRuntimeMs"]?.intValue { text += ", tasks run \(runtime) ms this launch" }
        return text
    }

    static func render(_ status: OSStatusReply, _ device: DeviceRole) -> String {
        (device == .phone ? rows(status) : watchRows(status)).map { "\($0.label): \($0.text)" }.joined(separator: "\n")
    }

    /// watch-os's rows: the phone's, less the phone's own, with the watch's tasks, refreshes and reloads.
    static func watchRows(_ status: OSStatusReply) -> [(label: String, text: String)] {
        var rows = rows(status).filter { $0.label != "installed" && $0.label != "locked" }.map { row in
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
        return rows
    }
}
