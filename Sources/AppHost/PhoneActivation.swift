import Connectivity
import Control
import Posix

/// The sockets a supervisor handed the phone by the systemd protocol (`SocketActivation`): `link`
/// (HOME/link.sock) and `control` (HOME/control.sock), each a listening Unix stream socket bound at
/// exactly that path, and from `phone-os` also the watch's `connection` it accepted (its `hello` unread).
/// A socket passed is the supervisor's: the phone neither removes nor binds afresh its file.
package struct PhoneActivation {
    package var link: FileDescriptor?
    package var control: FileDescriptor?
    package var connections: [FileDescriptor] = []

    /// The OS lock `phone-os` holds on a home it runs (`HOME/os.lock`).
    package static func osLockPath(_ home: DeviceHome) -> String { home.path + "/os.lock" }

    /// Where `phone-os` hears its app's `READY=1` (`NOTIFY_SOCKET`): an app whose environment names it
    /// was launched by a phone-os of this home.
    package static func osNotifyPath(_ home: DeviceHome) -> String { home.path + "/os-notify.sock" }

    /// The variable in which `phone-os` tells the app it launches its own pid.
    package static let osPIDVariable = AppNotifier.osPIDVariable

    /// An app launched by phone-os never outlives it: when `RUNWAY_OS_PID` is set, the kernel is asked
    /// to SIGKILL this process when phone-os dies, and a phone-os already gone (it died between the
    /// launch and this call) makes the app stop before it touches the home. Called before anything else.
    package static func tetherToOS() throws(DaemonRuntime.StartError) {
        guard let raw = getenv(osPIDVariable) else { return }
        let text = String(cString: raw)
        guard let pid = pid_t(text), pid > 1 else {
            throw .other("\(osPIDVariable) must be the pid of the OS (phone-os, watch-os) that launched the app, not \(OneLine.quote(text))")
        }
        guard ParentDeath.tether(to: pid) else {
            throw .other("the OS that launched this app (process \(pid)) is gone: the app does not outlive its OS")
        }
    }

    /// nil when nothing was passed; throws `UsageError` (exit 2) for descriptors that are not what the
    /// protocol promises: another process's, not sockets, bound elsewhere, unnamed and unrecognisable.
    package static func take(home: DeviceHome) throws(UsageError) -> PhoneActivation? {
        let passed: [SocketActivation.Passed]
        do {
            guard let taken = try SocketActivation.take() else { return nil }
            passed = taken
        } catch {
            throw UsageError("socket activation: \(error)")
        }
        var activation = PhoneActivation()
        let expected = ["link": canonical(home.linkSocketPath), "control": canonical(home.controlSocketPath)]
        for (index, socket) in passed.enumerated() {
            let fd = SocketActivation.firstDescriptor + Int32(index)
            if !socket.isListening {
                guard socket.name == "connection" else {
                    throw UsageError("socket activation: descriptor \(fd)\(socket.name.map { " (\($0))" } ?? "") is not listening (only a 'connection' may be)")
                }
                activation.connections.append(socket.descriptor)
                continue
            }
            let path = canonical(socket.path)
            let byPath = expected.first { $0.value == path }?.key
            let name = socket.name ?? byPath
            guard let name, let wanted = expected[name] else {
                throw UsageError(
                    "socket activation: descriptor \(fd) is named \(OneLine.quote(socket.name ?? "")) and bound to \(OneLine.quote(socket.path)); the phone takes only link (\(home.linkSocketPath)) and control (\(home.controlSocketPath))"
                )
            }
            guard path == wanted else {
                throw UsageError(
                    "socket activation: descriptor \(fd) (\(name)) listens on \(OneLine.quote(socket.path)), not \(name == "link" ? home.linkSocketPath : home.controlSocketPath): clients would never find it"
                )
            }
            if name == "link" {
                guard activation.link == nil else { throw UsageError("socket activation: two descriptors named link") }
                activation.link = socket.descriptor
            } else {
                guard activation.control == nil else { throw UsageError("socket activation: two descriptors named control") }
                activation.control = socket.descriptor
            }
        }
        if !activation.connections.isEmpty && activation.link == nil {
            throw UsageError("socket activation: a connection was passed without the link socket it came from")
        }
        return activation
    }

    /// The path with its directory resolved (symbolic links, `..`), so that two spellings compare equal.
    static func canonical(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        let directory = String(path[..<slash]), name = String(path[path.index(after: slash)...])
        guard let resolved = realpath(directory.isEmpty ? "/" : directory, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved) + "/" + name
    }

    /// Tells phone-os, once, that the app has taken the first delivery of this launch — a committed batch
    /// of transfers or a message handed to it (`AppNotice.delivered` on `NOTIFY_SOCKET`, with `MAINPID`): a
    /// background launch is not reclaimed before that, so every launch moves the watch's outbox on
    /// (`PhoneOSSupervision`). Read from the delegate trace, after its followers; only under phone-os.
    /// A transfer of its own that the counterpart acknowledged counts too, on either device: a launch for
    /// the device's own queue moves it on. Every message handed to the app is said too
    /// (`AppNotice.message`): it renews a background app's budget.
    package static func reportFirstDelivery(_ trace: DelegateTrace, role: DeviceRole = .phone) {
        guard getenv(osPIDVariable) != nil else { return }
        let followers = trace.onEvent
        var reported = false
        trace.onEvent = { event in
            followers?(event)
            switch event.call {
            case .didReceiveMessage, .didReceiveMessageData: ServiceNotifier.notify("\(AppNotice.message.line)\nMAINPID=\(getpid())")
            default: break
            }
            guard !reported else { return }
            switch event.call {
            // A context is a first delivery on either device (issue 50: phone-os launches for one).
            case .didCommitReceivedTransfers, .didReceiveMessage, .didReceiveApplicationContext: break
            // Its own transfer acknowledged counts too, on either device: a launch for the device's own
            // queue moves it on (the phone's too, since phone-os launches for it).
            case .didFinishUserInfoTransfer(_, false, _, _), .didFinishFileTransfer(_, false, _): break
            case .didReceiveFile:
                guard role == .watch else { return }
            default: return
            }
            reported = true
            ServiceNotifier.notify("\(AppNotice.delivered.line)\nMAINPID=\(getpid())")
        }
    }

    /// The paths of the sockets passed: not the phone's to remove as stale.
    var supervisedPaths: Set<String> {
        var paths: Set<String> = []
        if link != nil { paths.insert("link.sock") }
        if control != nil { paths.insert("control.sock") }
        return paths
    }
}
