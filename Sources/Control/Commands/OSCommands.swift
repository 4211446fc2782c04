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
        package init() {}
    }

    /// `app` under phone-os: the user and the system acting on the phone's app.
    package struct PhoneOSApp: ControlCommand {
        package typealias Reply = OSStatusReply
        @Argument(.choice(["open", "close", "force-quit", "kill", "suspend", "resume", "install", "uninstall"]), "what happens to the phone app")
        package var action: String
        @Argument(.string(bytes: 1...39), "install: the version, N(.N){0,3} (default: the one installed, or the app's own)") package var version: String?
        package static let spec = ControlCommandSpec(
            Self.self, "app", [.phoneOS],
            errors: appActionErrors + [
                .failure("open while the app is not installed, or the phone not unlocked since it restarted; kill while it is not running"),
                .failure("install of a version older than the one installed (a downgrade, which iOS refuses)"),
                .invalid("a version that is not N(.N){0,3}, or a version with another action"),
            ],
            "the phone app's state: open, close, force-quit, kill (a crash), suspend, resume, install, uninstall")
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
        package init() {}
    }

    /// `device-lock`: the phone locked or unlocked (phone-os).
    package struct DeviceLock: ControlCommand {
        package typealias Reply = OSStatusReply
        @Argument(.choice(["lock", "unlock"]), "lock or unlock the phone") package var state: String
        package static let spec = ControlCommandSpec(
            Self.self, "device-lock", [.phoneOS], "lock or unlock the phone; the first unlock after a restart makes it reachable again")
        package init() {}
    }

    /// `device-reboot`: the phone restarted (phone-os).
    package struct DeviceReboot: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let spec = ControlCommandSpec(
            Self.self, "device-reboot", [.phoneOS], "restart the phone: the app stops, the phone is locked and unreachable to the watch until it is unlocked")
        package init() {}
    }

    /// `os-jetsam`: the app killed at once, as memory pressure does.
    package struct OSJetsam: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let spec = ControlCommandSpec(
            Self.self, "os-jetsam", [.phoneOS, .watchOS], errors: [.failure("the app is not running")], "kill the app at once, as memory pressure does")
        package init() {}
    }
}
