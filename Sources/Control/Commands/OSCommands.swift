import JSONText

// MARK: - The OS's hold on the app and the device (phone-os, watch-os): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let osCommands: [any ControlCommand.Type] = [
        WatchApp.self, PhoneOSApp.self, WatchOSApp.self, OSAttachApp.self, OSStatus.self, DeviceLock.self, DeviceReboot.self, OSJetsam.self,
    ]

    static let appActionErrors: [ControlErrorSpec] = [
        .failure("the app's state does not allow it (foreground while not installed; close, suspend or resume from the wrong state)")
    ]

    /// `app` on the watch without watch-os: the always-running watch app installed, deleted, moved to the
    /// foreground or the background. (Three commands are called `app`, one per kind of server, each with
    /// its own actions and reply: the catalogue finds a command by its name and its server.)
    package struct WatchApp: ControlCommand {
        package typealias Reply = WatchAppReply
        @Argument(.choice(["install", "uninstall", "foreground", "background"]), "what happens to the watch app") package var action: String
        package static let spec = ControlCommandSpec(
            Self.self, "app", [.watch], errors: appActionErrors, "the watch app's state: install, uninstall, foreground, background")
        /// Under watch-os the CLI asks the OS instead (`foreground` is `open`, `background` `close`).
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .apps,
            [
                (
                    "install",
                    "Installs the watch app: under watch-os, after an uninstall it starts empty (over an installed app nothing changes); the phone sees isWatchAppInstalled true and sends what it held. Without watch-os the watch-agent is marked installed again."
                ),
                (
                    "uninstall",
                    "Deletes the watch app. Under watch-os (runway up runs it) as watchOS does: the app is stopped, its container and what the system held for it (its queued transfers, contexts, files) are deleted; the phone sees isWatchAppInstalled false (sessionWatchStateDidChange), its new transfers fail with 7006 and its queued ones wait. Without watch-os the always-running watch-agent is only marked uninstalled: its data stays."
                ),
                (
                    "foreground",
                    "Moves the watch app to the foreground. The phone sees it at once in isReachable (reachable needs the app in the foreground). Under watch-os the same as runway watch app open."
                ),
                (
                    "background",
                    "Moves the watch app to the background. The phone sees it at once in isReachable (reachable needs the app in the foreground). Under watch-os the same as runway watch app close."
                ),
            ].map { action, help in .device(["app", action], on: .watch, sets: ["action": .string(action)]) { _, _ in help } }, repliesInJSON: false)
        package init() {}
    }

    /// `app` under phone-os: the user and the system acting on the phone's app.
    package struct PhoneOSApp: ControlCommand {
        package typealias Reply = OSStatusReply
        @Argument(.choice(["open", "close", "force-quit", "kill", "suspend", "resume", "install", "uninstall"]), "what happens to the phone app")
        package var action: String
        @Argument(
            .string(bytes: 1...39), "install: the version, N(.N){0,3} (default: the one installed, or the app's own)",
            cli: .option(nil, "V", help: "the version installed, N(.N){0,3} (default: the installed one)"))
        package var version: String?
        package static let spec = ControlCommandSpec(
            Self.self, "app", [.phoneOS],
            errors: appActionErrors + [
                .failure("open while the app is not installed, or the phone not unlocked since it restarted; kill while it is not running"),
                .failure("install of a version older than the one installed (a downgrade, which iOS refuses)"),
                .invalid("a version that is not N(.N){0,3}, or a version with another action"),
            ],
            "the phone app's state: open, close, force-quit, kill (a crash), suspend, resume, install, uninstall")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .apps,
            [
                (
                    "open",
                    "Opens the app on a phone run by phone-os: launches it in the foreground (a UI may attach; returns once the app reported ready) or brings it there; ends a force-quit."
                ),
                ("close", "Returns the app to the background: its background budget starts; when it is used up the app is reclaimed."),
                (
                    "force-quit",
                    "Kills the app, as swiping it away does: no background launch until the user opens it again (transfers wait on the watch). Prints the state once it is gone."
                ),
                (
                    "kill",
                    "Kills the app as a crash does (SIGKILL, not the OS's doing): counted as the app's failure; phone-os launches it again when the watch has something for it. Prints the state once it is gone."
                ),
                ("suspend", "Suspends the running app (SIGSTOP): its state is kept, nothing runs."),
                ("resume", "Resumes a suspended app (SIGCONT): it goes on where it was, with no start-up again."),
                (
                    "install",
                    """
                    Installs the app on a phone run by phone-os. Over the installed app (an update, --version V of at
                    least the installed one) its data stays; a downgrade is refused, as iOS refuses one (exit 1).
                    After an uninstall it starts from nothing. The watch learns it at its next attempt to connect.
                    """
                ),
                (
                    "uninstall",
                    """
                    Deletes the app from a phone run by phone-os: the app is stopped, its container (its store, its
                    settings, its kept files) and what the system held for it (queued transfers, application
                    contexts, files on their way) are deleted; the pairing stays. The watch's
                    isCompanionAppInstalled turns false (sessionCompanionAppInstalledDidChange) and its calls get
                    7018 companionAppNotInstalled until the app is installed again.
                    """
                ),
            ].map { action, help in
                // The version is install's only.
                .device(["app", action], on: .phone, sets: ["action": .string(action)].merging(action == "install" ? [:] : ["version": .null]) { $1 }) { _, _ in
                    help
                }
            })
        package init() {}
    }

    /// `app` under watch-os: the user and the system acting on the watch's app.
    package struct WatchOSApp: ControlCommand {
        package typealias Reply = OSStatusReply
        @Argument(.choice(["open", "close", "force-quit", "kill", "suspend", "resume", "install", "uninstall"]), "what happens to the watch app")
        package var action: String
        package static let spec = ControlCommandSpec(
            Self.self, "app", [.watchOS],
            errors: appActionErrors + [
                .failure("open while the watch app is not installed, uninstall of an app that is not, or kill while it is not running")
            ],
            "the watch app's state: open, close, force-quit, kill (a crash), suspend, resume, install, uninstall")
        /// `install` and `uninstall` are `WatchApp`'s forms (they work without watch-os); without watch-os
        /// `open` and `close` move the always-running app to the foreground and the background.
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .apps,
            [
                (
                    "open",
                    "Opens the app on the watch: watch-os launches it in the foreground (returns once the app reported ready) or brings it there; ends a force-quit. The phone sees the watch reachable while it is there."
                ),
                ("close", "Returns the watch app to the background: its background budget starts; when it is used up the app is reclaimed."),
                (
                    "force-quit",
                    "Kills the watch app: no background launch until the user opens it again (the phone's transfers wait). Prints the state once it is gone."
                ),
                (
                    "kill",
                    "Kills the watch app as a crash does (SIGKILL, not the OS's doing): counted as the app's failure; watch-os launches it again when the phone has something for it. Prints the state once it is gone."
                ),
                ("suspend", "Suspends the running watch app (SIGSTOP): its state is kept, nothing runs."),
                ("resume", "Resumes a suspended watch app (SIGCONT)."),
            ].map { action, help in
                .device(["app", action], on: .watch, sets: ["action": .string(action)]) { _, _ in help + " Needs watch-os (runway up runs it)." }
            })
        package init() {}
    }

    /// `os-attach-app`: the running app's connection to its OS: the clock now, then its changes and each
    /// notification delivered, on the connection, which it keeps.
    package struct OSAttachApp: ControlCommand {
        package typealias Reply = OSClockEvent
        package static let spec = ControlCommandSpec(
            Self.self, "os-attach-app", [.phoneOS, .watchOS],
            "the running app's connection to its OS: the clock now, then its changes and each delivered notification")
        package init() {}
    }

    /// `os-status`: the app as its OS sees it.
    package struct OSStatus: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let spec = ControlCommandSpec(Self.self, "os-status", [.phoneOS, .watchOS], "the app's state, launches by reason, reclaims, the budget")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.apps, ["os", "status"]) { device, _ in
            device == "phone"
                ? "The phone's simulated iOS (phone-os): the app's state (not running, background, foreground, suspended), launches by reason, reclaims, jetsams, the remaining background budget, failed launches and the backoff after them."
                : "The watch's simulated watchOS (watch-os): the app's state (not running, background, foreground, suspended), launches by reason, reclaims, jetsams, the remaining background budget, failed launches, whether the phone is in range."
        }
        package init() {}
    }

    /// `device-lock`: the phone locked or unlocked (phone-os).
    package struct DeviceLock: ControlCommand {
        package typealias Reply = OSStatusReply
        @Argument(.choice(["lock", "unlock"]), "lock or unlock the phone") package var state: String
        package static let spec = ControlCommandSpec(
            Self.self, "device-lock", [.phoneOS], "lock or unlock the phone; the first unlock after a restart makes it reachable again")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .devices,
            [
                .device(["lock"], on: .phone, sets: ["state": .string("lock")]) { _, _ in
                    "Locks the phone. After its first unlock since a restart, a locked phone still talks to the watch, as an iPhone does. Needs phone-os (runway up runs it)."
                },
                .device(["unlock"], on: .phone, sets: ["state": .string("unlock")]) { _, _ in
                    "Unlocks the phone; the first unlock after a restart makes it reachable to the watch again. Needs phone-os (runway up runs it)."
                },
            ])
        package init() {}
    }

    /// `device-reboot`: the phone restarted (phone-os).
    package struct DeviceReboot: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let spec = ControlCommandSpec(
            Self.self, "device-reboot", [.phoneOS], "restart the phone: the app stops, the phone is locked and unreachable to the watch until it is unlocked")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(
            .devices,
            [
                .device(["reboot"], on: .phone) { _, _ in
                    "Restarts the phone: the app stops, and the phone comes back locked — the watch cannot reach it (iOSDeviceNeedsUnlockAfterRebootForReachability) until it is unlocked. Needs phone-os (runway up runs it)."
                }
            ])
        package init() {}
    }

    /// `os-jetsam`: the app killed at once, as memory pressure does.
    package struct OSJetsam: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let spec = ControlCommandSpec(
            Self.self, "os-jetsam", [.phoneOS, .watchOS], errors: [.failure("the app is not running")], "kill the app at once, as memory pressure does")
        package static let cli: ControlCommandCLI? = ControlCommandCLI(.apps, ["os", "jetsam"]) { device, _ in
            device == "phone"
                ? "Memory pressure: phone-os kills the app at once (SIGKILL), as iOS's jetsam does, and prints the state once it is gone. Fails (1) if the app is not running."
                : "Memory pressure: watch-os kills the watch app at once (SIGKILL), and prints the state once it is gone. Fails (1) if the app is not running."
        }
        package init() {}
    }
}
