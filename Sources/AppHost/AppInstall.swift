import OSServices
import Posix

/// What a device's OS does for an app of the developer's own before each launch, so that the app's own
/// Foundation reads its device and not the host (issue 49) — nothing the app writes changes for it:
///
/// - **Its bundle** (`AppBundle`): `Bundle.main` is the app's, its `bundleIdentifier` the OS's bundle id.
/// - **Its clock** (`DeviceTimePreload`): `Date()` is the device clock's, which `runway clock` moves.
package enum AppInstall {
    /// The environment for an app launched from `bundle`, on the device of `home`: the preload, and where
    /// its clock is. Empty of the preload when none is found (the app's time is then the host's; `missing`
    /// says why, once).
    package static func environment(home: String, inherited: String?) -> [String: String] {
        var variables: [String: String] = [:]
        guard let preload = DeviceTimePreload.path else { return variables }
        variables["LD_PRELOAD"] = inherited.map { $0.isEmpty ? preload : preload + ":" + $0 } ?? preload
        variables["RUNWAY_DEVICE_CLOCK"] = home + "/device-clock"
        return variables
    }

    /// The clock kept in `home`'s OS store, published (`HOME/device-clock`) for an app started now by a
    /// process that is not its OS (`watch-agent --app`): the app's own device publishes it again at its
    /// start, but the preload maps the page at the app's first reading of the time, which may come first.
    package static func publishStoredClock(home: String) {
        guard let database = try? SystemServices.openStore(home: home) else { return }
        defer { database.close() }
        guard let clock = try? DeviceClock(database: database), let page = try? DeviceClockPage(home: home) else { return }
        clock.page = page
    }
}

/// The app as its OS installs it: `HOME/bundles/BUNDLE-ID/NAME.app/`, holding the executable and its
/// `Info.plist`, as iOS installs an app's bundle apart from its data container (`HOME/apps/BUNDLE-ID`).
///
/// On Linux, Foundation's `Bundle.main` is the directory of the running executable — the path the kernel
/// gives for `/proc/self/exe`, the one it was started by — read with the `Info.plist` beside it
/// (swift-corelibs-foundation: `_CFProcessPath`, then CFBundle's flat bundle). So the OS starts the app
/// from a hard link in its bundle (a copy when the build is on another file system), re-made at every
/// launch when the build changed, never writing outside the device's home, and `Bundle.main.bundleIdentifier`
/// is the bundle id, `Bundle.main.infoDictionary` the values an app reads: `CFBundleIdentifier`,
/// `CFBundleName`, `CFBundleExecutable`, `CFBundleShortVersionString` and `CFBundleVersion` (the installed
/// version), `CFBundlePackageType` (`APPL`).
package struct AppBundle: Sendable {
    /// `HOME/bundles/BUNDLE-ID/NAME.app`.
    package let path: String
    /// The executable the OS starts: `path/NAME`.
    package let executable: String

    package init(home: String, bundleID: String, executableName: String) {
        path = home + "/bundles/" + bundleID + "/" + executableName + ".app"
        executable = path + "/" + executableName
    }

    /// Installs `source` (the built executable) as the bundle of `bundleID` in `home`, with its
    /// `Info.plist`; returns the bundle. The executable is linked again only if the build changed.
    package static func install(home: String, bundleID: String, executable source: String, version: String, role: String) throws -> AppBundle {
        let resolved = Self.resolved(source)
        let name = String(resolved.split(separator: "/").last ?? "app")
        let bundle = AppBundle(home: home, bundleID: bundleID, executableName: name)
        try Filesystem.makeDirectory(home + "/bundles", mode: 0o700)
        try Filesystem.makeDirectory(bundle.path, mode: 0o700)
        try bundle.placeExecutable(resolved)
        let info = Array(infoPlist(bundleID: bundleID, name: name, version: version, role: role).utf8)
        let infoPath = bundle.path + "/Info.plist"
        if (try? Filesystem.readFile(infoPath)) != info { try Filesystem.writeAtomically(info, to: infoPath, mode: 0o644) }
        return bundle
    }

    /// The executable in the bundle is `source` itself (the same file), else a new hard link to it — or a
    /// copy, when linking is not possible (another file system), kept while the build is unchanged (the
    /// build's size and time, noted beside it) — put in place with a rename.
    private func placeExecutable(_ source: String) throws {
        guard let wanted = Filesystem.status(of: source) else { throw SystemError("stat(\(source))", errno: ENOENT) }
        if Filesystem.identity(of: executable) == Filesystem.identity(of: source) { return }
        let stamp = "\(wanted.st_size) \(Filesystem.Times(wanted).modified)"
        let stampPath = path + "/.copied-from"
        if Filesystem.kind(of: executable) == .regular, (try? Filesystem.readFile(stampPath)) == Array(stamp.utf8) { return }
        let temporary = executable + ".installing.\(getpid())"
        try Filesystem.remove(temporary)
        let linked = (try? Filesystem.link(source, as: temporary)) == true
        if !linked {
            try Filesystem.writeAtomically(try Filesystem.readFile(source), to: temporary, mode: 0o755)
        }
        do {
            try Filesystem.rename(temporary, to: executable)
        } catch {
            try? Filesystem.remove(temporary)
            throw error
        }
        if linked { try Filesystem.remove(stampPath) } else { try Filesystem.writeAtomically(Array(stamp.utf8), to: stampPath) }
    }

    /// `path` with its symbolic links resolved (a hard link to a symbolic link would start the link's
    /// target, from its own directory).
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// The Info.plist (XML) of an app: the keys an app reads of its own bundle.
    static func infoPlist(bundleID: String, name: String, version: String, role: String) -> String {
        let entries: [(String, String)] = [
            ("CFBundleDevelopmentRegion", "en"),
            ("CFBundleExecutable", name),
            ("CFBundleIdentifier", bundleID),
            ("CFBundleInfoDictionaryVersion", "6.0"),
            ("CFBundleName", name),
            ("CFBundlePackageType", "APPL"),
            ("CFBundleShortVersionString", version),
            ("CFBundleSupportedPlatforms", role == "watch" ? "WatchOS" : "iPhoneOS"),
            ("CFBundleVersion", version),
        ]
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>

            """
        for (key, value) in entries {
            if key == "CFBundleSupportedPlatforms" {
                text += "\t<key>\(key)</key>\n\t<array>\n\t\t<string>\(escaped(value))</string>\n\t</array>\n"
            } else {
                text += "\t<key>\(key)</key>\n\t<string>\(escaped(value))</string>\n"
            }
        }
        return text + "</dict>\n</plist>\n"
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}

/// The device-time preload (`libRunWayDeviceTime.so`, the package's dynamic library product
/// `RunWayDeviceTime`): built beside the OS's binaries (phone-os, watch-os, watch-agent — in this
/// package's `.build`, or the one `DevicePair` and the plugin build for a consumer), looked for next to
/// the running OS. Set as `LD_PRELOAD` for the apps the OS launches: their `Date()` is the device's.
package enum DeviceTimePreload {
    package static let fileName = "libRunWayDeviceTime.so"

    /// Next to this executable, if it is there.
    package static let path: String? = {
        let candidate = Processes.sibling(fileName)
        return candidate.hasPrefix("/") && Filesystem.kind(of: candidate) == .regular ? candidate : nil
    }()
}
