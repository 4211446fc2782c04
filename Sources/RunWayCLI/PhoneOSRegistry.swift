import Connectivity
import Control
import Glibc
import JSONText
import Posix

/// The phone of a registered pair as `runway up`, `down` and `list` see it: run by `phone-os` (the phone's
/// simulated iOS, which launches the app itself) when that binary is installed next to `runway`, else by a
/// `phone-daemon` of its own (`runway up --no-os`, or no phone-os).
enum PhoneOSRegistry {
    static let osSpec = ArgumentSpec.flag("no-os", "start phone-daemon itself rather than phone-os (the app always running, as before phone-os)")
    static let phoneArgumentSpec = ArgumentSpec.option(
        "phone-arg", "ARG", "passed to the phone's app at each launch (phone-os --app-arg; repeatable: --phone-arg=--save-path --phone-arg=ui-drain)")
    static let phoneAppSpec = ArgumentSpec.option(
        "phone-app", "PATH", "the phone's app: an executable linking WatchConnectivity (phone-os --app; default RunWay's)")
    static let watchArgumentSpec = ArgumentSpec.option(
        "watch-arg", "ARG", "passed to watch-agent at its start (repeatable: --watch-arg=--reminders --watch-arg=off)")

    /// Whether `phone-os` is installed next to this `runway`.
    static var isInstalled: Bool { access(Launcher.siblingPath("phone-os"), X_OK) == 0 }

    static func socketPath(_ home: DeviceHome) -> String { home.path + "/os.sock" }

    /// Whether a phone-os answers on the home's `os.sock`.
    static func isRunning(_ home: DeviceHome) -> Bool {
        guard Filesystem.kind(of: socketPath(home)) == .socket else { return false }
        return (try? ControlClient(home: home, socketPath: socketPath(home))) != nil
    }

    /// The pid of the phone-os running the home (from `HOME/os.lock`), if one runs.
    static func runningPID(_ home: DeviceHome) -> Int32? {
        guard isRunning(home), let bytes = try? Filesystem.readFile(home.path + "/os.lock"),
            let pid = Int32(String(decoding: bytes, as: UTF8.self).trimmingWhitespace), pid > 0, kill(pid, 0) == 0
        else { return nil }
        return pid
    }

    /// The app's state as phone-os reports it (not running, background, foreground, suspended).
    static func appState(_ home: DeviceHome) -> String? {
        guard let client = try? ControlClient(home: home, socketPath: socketPath(home)),
            let status = try? client.send(ControlRequest(ControlCommands.osStatus), as: OSStatusReply.self)
        else { return nil }
        return status.appState
    }

    /// `runway up`'s phone: already running (phone-os or a phone-daemon), or started — phone-os unless
    /// `--no-os` or it is not installed. Returns the JSON result and the line to print.
    static func up(_ home: DeviceHome, noOS: Bool, app: String? = nil, appArguments: [String] = []) throws -> (JSONValue, String) {
        let binary = !noOS && isInstalled ? "phone-os" : "phone-daemon"
        if binary == "phone-daemon", app != nil {
            throw ControlError.invalid("--phone-app needs phone-os (it is what launches an app): drop --no-os")
        }
        let app = try app.map { path in
            let absolute = Filesystem.absolutePath(path)
            guard Filesystem.kind(of: absolute) == .regular, access(absolute, X_OK) == 0 else {
                throw ControlError.invalid("--phone-app \(path): not an executable file")
            }
            return absolute
        }
        // phone-os hands each argument to the app it launches; a phone-daemon of its own takes them itself.
        let arguments =
            binary == "phone-os"
            ? (app.map { ["--app", $0] } ?? []) + appArguments.map { "--app-arg=\($0)" }
            : appArguments
        let pid: Int32
        switch try Launcher.up(binary, home: home, arguments: arguments, running: { holder(home) }) {
        case let .alreadyRunning(running, pid):
            return (
                .object(["state": .string("already running"), "binary": .string(running), "pid": pid.map { .integer(Int64($0)) } ?? .null]),
                "phone: already running (\(running)\(pid.map { ", pid \($0)" } ?? ""), \(home.path))"
            )
        case let .started(started): pid = started
        }
        let note =
            binary == "phone-os"
            ? "; the app is launched when the watch has something for it, or by runway phone app open"
            : ""
        return (
            .object(["state": .string("started"), "binary": .string(binary), "pid": .integer(Int64(pid))]),
            "phone: started \(binary) (pid \(pid)), log \(home.path)/daemon.log\(note)"
        )
    }

    /// What serves the phone's home now, by its locks — phone-os (`HOME/os.lock`), else a phone-daemon
    /// (the home's own lock) — answering or not (a frozen daemon holds its lock too).
    static func holder(_ home: DeviceHome) -> (binary: String, pid: Int32?)? {
        if case let .some(pid) = FileLock.holder(of: home.path + "/os.lock") { return ("phone-os", pid) }
        if case let .some(pid) = FileLock.holder(ofDirectory: home.path, pidFile: home.lockPath) { return ("phone-daemon", pid) }
        return nil
    }

    /// `runway down`'s phone: phone-os (which stops the app it launched) or the phone-daemon.
    static func down(_ home: DeviceHome) -> (JSONValue, String) {
        let (pid, binary): (Int32?, String) = if let os = runningPID(home) { (os, "phone-os") } else { (RegistryCommands.runningPID(home), "phone-daemon") }
        guard let pid else { return (.object(["state": .string("not running")]), "phone: not running") }
        let how = Launcher.stop(pid)
        return (
            .object(["state": .string("stopped"), "binary": .string(binary), "pid": .integer(Int64(pid)), "signal": .string(how)]),
            "phone: stopped \(binary) (pid \(pid), \(how))"
        )
    }
}
