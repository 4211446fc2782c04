import Glibc
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

    /// The executable in the bundle is `source` itself (same file), else a new hard link to it — or a
    /// copy, when linking is not possible (another file system) — put in place with a rename.
    private func placeExecutable(_ source: String) throws {
        var wanted = stat()
        _ = try systemCall("stat(\(source))") { stat(source, &wanted) }
        var present = stat()
        if stat(executable, &present) == 0 {
            if present.st_dev == wanted.st_dev && present.st_ino == wanted.st_ino { return }
            // A copy made before: kept while the build is unchanged.
            if present.st_size == wanted.st_size && present.st_mtim.tv_sec == wanted.st_mtim.tv_sec
                && present.st_mtim.tv_nsec == wanted.st_mtim.tv_nsec && present.st_nlink == 1
            {
                return
            }
        }
        let temporary = executable + ".installing.\(getpid())"
        unlink(temporary)
        if link(source, temporary) != 0 {
            try Self.copy(source, to: temporary, mode: 0o755, times: wanted)
        }
        do {
            _ = try systemCall("rename(\(executable))") { rename(temporary, executable) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    private static func copy(_ source: String, to target: String, mode: mode_t, times: stat) throws {
        let input = FileDescriptor(adopting: try systemCall("open(\(source))") { open(source, O_RDONLY | O_CLOEXEC) })
        let output = FileDescriptor(adopting: try systemCall("open(\(target))") { open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) })
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try systemCall("read(\(source))") { chunk.withUnsafeMutableBytes { Glibc.read(input.rawValue, $0.baseAddress, $0.count) } }
            if n == 0 { break }
            try output.writeAll(Array(chunk[0..<n]))
        }
        var stamps = [times.st_atim, times.st_mtim]
        _ = try systemCall("futimens(\(target))") { futimens(output.rawValue, &stamps) }
        input.close()
        output.close()
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
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, 4095)
        guard n > 0 else { return nil }
        let me = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let candidate = String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)]) + "/" + fileName
        return Filesystem.kind(of: candidate) == .regular ? candidate : nil
    }()
}
