// MARK: - The OS's hold on the app and the device (phone-os, watch-os): each command one type (`ControlCommand`)

extension ControlCommands {
    /// This file's family, in the catalogue's order (`ControlCommands.declared`).
    static let osCommands: [any ControlCommand.Type] = [OSStatus.self, DeviceLock.self, DeviceReboot.self, OSJetsam.self]

    /// `os-status`: the app as its OS sees it.
    package enum OSStatus: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let spec = ControlCommandSpec(
            Self.self, "os-status", [.phoneOS, .watchOS], "the app's state, launches by reason, reclaims, the budget")
    }

    /// `device-lock`: the phone locked or unlocked (phone-os).
    package enum DeviceLock: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let state = ControlArgument<String>("state", .choice(["lock", "unlock"]), required: true, "lock or unlock the phone")
        package static let spec = ControlCommandSpec(
            Self.self, "device-lock", [.phoneOS], arguments: [state], "lock or unlock the phone; the first unlock after a restart makes it reachable again")
    }

    /// `device-reboot`: the phone restarted (phone-os).
    package enum DeviceReboot: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let spec = ControlCommandSpec(
            Self.self, "device-reboot", [.phoneOS],
            "restart the phone: the app stops, the phone is locked and unreachable to the watch until it is unlocked")
    }

    /// `os-jetsam`: the app killed at once, as memory pressure does.
    package enum OSJetsam: ControlCommand {
        package typealias Reply = OSStatusReply
        package static let spec = ControlCommandSpec(
            Self.self, "os-jetsam", [.phoneOS, .watchOS], errors: [.failure("the app is not running")], "kill the app at once, as memory pressure does")
    }
}
