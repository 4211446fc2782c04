import Connectivity
import Control
import AppHost
import JSONText
import Posix

/// The phone as a device, apart from its app's life: whether the app is installed and at which version,
/// whether the phone is locked, and whether it was unlocked since it last restarted. phone-os keeps it
/// (`HOME/os-device.json`), so it holds across phone-os's own restarts.
struct PhoneDeviceState: Equatable {
    var appInstalled = true
    /// The version installed (`runway phone app install --version V`); nil: the app's own default.
    var appVersion: String?
    var locked = false
    /// Restarted and not unlocked since: the watch cannot reach it (`iOSDeviceNeedsUnlockAfterRebootForReachability`).
    var lockedAfterReboot = false

    static func path(_ home: DeviceHome) -> String { home.path + "/os-device.json" }

    /// The state kept, or the factory one (installed, unlocked) when there is none or it cannot be read.
    static func load(_ home: DeviceHome) -> PhoneDeviceState {
        guard let bytes = try? Filesystem.readFile(path(home)), let json = try? JSONValue(parsing: bytes) else { return PhoneDeviceState() }
        var state = PhoneDeviceState()
        state.appInstalled = json["appInstalled"]?.boolValue ?? true
        state.appVersion = json["appVersion"]?.stringValue.flatMap { VersionNumber($0) == nil ? nil : $0 }
        state.locked = json["locked"]?.boolValue ?? false
        state.lockedAfterReboot = json["lockedAfterReboot"]?.boolValue ?? false
        return state
    }

    func save(_ home: DeviceHome) throws {
        let json: JSONValue = .object([
            "appInstalled": .bool(appInstalled), "appVersion": appVersion.map(JSONValue.string) ?? .null, "locked": .bool(locked),
            "lockedAfterReboot": .bool(lockedAfterReboot),
        ])
        try Filesystem.writeAtomically(Array(json.text.utf8), to: Self.path(home))
    }
}

/// `N(.N){0,3}`, each part at most 9999, compared part by part (a missing part is 0): iOS installs a
/// version over an older one and refuses an older one over a newer.
struct VersionNumber: Comparable {
    let parts: [Int]

    init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(pieces.count) else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard !piece.isEmpty, piece.count <= 4, piece.allSatisfy(\.isASCII), let value = Int(piece), value >= 0 else { return nil }
            parts.append(value)
        }
        self.parts = parts
    }

    static func < (lhs: VersionNumber, rhs: VersionNumber) -> Bool {
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let a = index < lhs.parts.count ? lhs.parts[index] : 0
            let b = index < rhs.parts.count ? rhs.parts[index] : 0
            if a != b { return a < b }
        }
        return false
    }

    static func == (lhs: VersionNumber, rhs: VersionNumber) -> Bool { !(lhs < rhs) && !(rhs < lhs) }
}

// MARK: - Installing and deleting the app, locking and restarting the phone

extension PhoneOS {
    /// The app's version now: what was installed, else what `--app-arg --app-version V` says, else nil
    /// (the app's own default).
    var installedVersion: String? {
        if let version = device.appVersion { return version }
        guard let index = options.appArguments.lastIndex(of: "--app-version"), index + 1 < options.appArguments.count else {
            return options.appArguments.last { $0.hasPrefix("--app-version=") }.map { String($0.dropFirst("--app-version=".count)) }
        }
        return options.appArguments[index + 1]
    }

    /// What each launch passes the app: the `--app-arg`s, with the installed version in place of theirs.
    var phoneLaunchArguments: [String] {
        // Another app hears its installed version in its environment (`RUNWAY_APP_VERSION`).
        guard let version = device.appVersion, options.isRunWay else { return options.appArguments }
        var arguments: [String] = []
        var skip = false
        for argument in options.appArguments {
            if skip { skip = false; continue }
            if argument == "--app-version" { skip = true; continue }
            if argument.hasPrefix("--app-version=") { continue }
            arguments.append(argument)
        }
        return arguments + ["--app-version", version]
    }

    /// `runway phone app install [--version V]`: over an installed app, its data stays (only a downgrade is
    /// refused, as iOS refuses one); over none, the app starts from nothing. `uninstall`: the app is
    /// stopped, its container and what the system held for it are deleted; the watch hears 7018.
    func installAction(_ action: String, version: String?) throws {
        if let version, VersionNumber(version) == nil {
            throw ControlError.invalid("--version must be N(.N){0,3} with parts up to 9999, not '\(version)'")
        }
        if action == "uninstall" {
            guard version == nil else { throw ControlError.invalid("--version goes with install, not uninstall") }
            guard device.appInstalled else { throw ControlError("the app is not installed: nothing to delete") }
            stopAppNow(reason: "the app is being deleted")
            try Self.forgetApp(home)
            // iOS forgets a deleted app's notifications too: its pending requests and what it delivered.
            if let system {
                try system.removePending(try system.center.pending().map(\.id))
                try system.center.removeDelivered(nil)
            }
            device.appInstalled = false
            device.appVersion = nil
            try device.save(home)
            logger.notice("os.app-uninstalled", ["deleted": "the app's container, its queued transfers, contexts, files and notifications"])
            return
        }
        if device.appInstalled, let version, let current = installedVersion, let old = VersionNumber(current), let new = VersionNumber(version), new < old {
            throw ControlError(
                "\(version) is older than the installed \(current): iOS does not install an older version over a newer one (delete the app first)")
        }
        let over = device.appInstalled
        if over, childPID > 0, version != nil, version != installedVersion { stopAppNow(reason: "the app is being updated") }
        device.appInstalled = true
        if let version { device.appVersion = version }
        try device.save(home)
        logger.notice("os.app-installed", ["version": installedVersion ?? "the app's own", "over": over ? "the installed app (its data kept)" : "nothing"])
    }

    /// `runway phone lock|unlock`: the first unlock after a restart makes the phone reachable again.
    func lockAction(_ lock: Bool) throws {
        device.locked = lock
        if !lock, device.lockedAfterReboot {
            device.lockedAfterReboot = false
            logger.notice("os.unlocked-after-reboot", ["effect": "the watch can reach the phone again"])
        }
        try device.save(home)
        logger.info(lock ? "os.locked" : "os.unlocked")
    }

    /// `runway phone reboot`: the app stops; the phone comes back locked, and the watch cannot reach it
    /// until it is unlocked (`iOSDeviceNeedsUnlockAfterRebootForReachability`).
    func rebootAction() throws {
        stopAppNow(reason: "the phone is restarting")
        forceQuit = false
        device.locked = true
        device.lockedAfterReboot = true
        try device.save(home)
        logger.notice("os.rebooted", ["state": "locked until the first unlock"])
    }

    /// Why the app cannot be opened or launched now, if it cannot.
    var deviceLaunchRefusal: String? {
        if !device.appInstalled { return "the app is not installed (runway phone app install)" }
        if device.lockedAfterReboot { return "the phone has not been unlocked since it restarted (runway phone unlock)" }
        return nil
    }
}
