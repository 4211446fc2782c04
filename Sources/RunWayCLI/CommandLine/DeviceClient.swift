import Connectivity
import Control
import JSONText
import Posix

/// A device as the CLI talks to it: each request goes to whoever answers it. A device run by its OS
/// (phone-os, watch-os) is two programs — the OS (`os.sock`: the clock, the notification centre, the
/// app's state) and the app (`control.sock`, while it runs) — and a command that needs the app finds out
/// at once, in one line, when it is not running or is suspended, instead of waiting for a process that
/// cannot answer. Recording on the watch is the user starting a run on the wrist: it opens the watch app
/// first, as a UI attaching opens the phone app.
final class DeviceClient {
    let home: DeviceHome
    private var app: ControlClient?
    private var os: ControlClient?
    /// Whether an OS (phone-os, watch-os) runs this device (its `os.sock` answers), found out once.
    private(set) lazy var deviceOS: ControlClient? = {
        guard Filesystem.kind(of: home.osControlSocketPath) == .socket else { return nil }
        return try? ControlClient(home: home, socketPath: home.osControlSocketPath)
    }()
    private var osKind: ControlServerKind { home.role == .phone ? .phoneOS : .watchOS }
    private var device: String { home.role.rawValue }
    /// The commands that open the app when it is not running: the user's own action on the device.
    private var opensTheApp: Set<String> { home.role == .phone ? ["attach"] : ["record", "run-start", "run-replay"] }

    init(home: DeviceHome) { self.home = home }

    /// The app's server kind (`phone`, `watch`).
    private var appKind: ControlServerKind { home.role == .phone ? .phone : .watch }

    /// The command `name` as this device answers it: the app's, else its OS's.
    func spec(_ name: String) -> ControlCommandSpec? { ControlCommands.spec(name, on: appKind) ?? ControlCommands.spec(name, on: osKind) }

    /// The client for `spec`: its OS for what only the OS answers (one line, exit 1, when no OS runs the
    /// device), the OS for what it answers while it runs the device, else the app.
    func client(for spec: ControlCommandSpec) throws -> ControlClient {
        let command = spec.name
        guard spec.servers.contains(appKind) else {
            guard let os = deviceOS else {
                if home.role == .phone { return try ControlClient(home: home, socketPath: home.osControlSocketPath, connectNow: false) }
                throw ControlError("watch-os does not run this watch (runway up runs it)")
            }
            return os
        }
        guard let os = deviceOS else { return try appClient(for: command) }
        if spec.servers.contains(osKind) {
            if Self.linkHolderCommands.contains(command) { return try linkHolder(for: command, os: os) }
            // `status`: the app's while it runs (the OS's rows are added by the CLI), else the OS's own.
            // `switch-watch`: the app's session makes it while the app runs (its delegate hears it), phone-os when not.
            if command == "status" || command == "switch-watch", let state = appState(os), state != "not running", state != "suspended" {
                // `status` of an app launched and not listening yet (starting), or gone this instant: the OS answers.
                if command == "status" { return (try? appClient(for: command)) ?? os }
                return try appClient(for: command)
            }
            return os
        }
        return try appClient(for: command)
    }

    /// The link's conditions (`runway link set|show|schedule`), the link itself (`runway link down|up`) and
    /// the complication on the watch face: kept by whoever holds the watch's link.
    static let linkHolderCommands: Set<String> = ["link-set", "link-show", "link-schedule", "link", "complication"]

    /// Who holds the watch's link: the app while it runs, watch-os while it does not. An app launched and
    /// not listening yet, or on its way out, is looked at again (for up to 5 s) rather than failed.
    private func linkHolder(for command: String, os: ControlClient) throws -> ControlClient {
        for _ in 0..<50 {
            switch appState(os) {
            case nil, "not running"?: return os
            // Suspended by the OS, its work done: the OS wakes it for the system's setting (and says the
            // app holds the link: asked again). Suspended by the user: one line, resume it.
            case "suspended"? where suspendedBySystem(os): return os
            case "suspended"?: return try appClient(for: command)
            default:
                if let client = try? ControlClient(home: home) {
                    app = client
                    return client
                }
                usleep(100_000)
            }
        }
        return try appClient(for: command)
    }

    /// The app's control socket, checked first with the OS when it runs the device: a command for the app
    /// while it is not running or is suspended is one line, exit 1, saying how to open it.
    func appClient(for command: String) throws -> ControlClient {
        if let app { return app }
        if let os = deviceOS {
            switch appState(os) {
            case "not running"?:
                guard opensTheApp.contains(command) else {
                    throw ControlError(
                        home.role == .phone
                            ? "the phone's app is not running: phone-os runs this phone and launches the app only for the watch or when it is opened (runway phone app open, or runway phone ui)"
                            : "the watch's app is not running: watch-os runs this watch and launches the app only for the phone or when it is opened (runway watch app open, or runway watch record)"
                    )
                }
                // A UI attaching, a run started: the user opening the app.
                _ = try os.send(openRequest)
            case "background"? where home.role == .watch && opensTheApp.contains(command):
                // Starting a run on the wrist brings the app to the foreground.
                _ = try os.send(openRequest)
            case "suspended"? where opensTheApp.contains(command):
                // The user opening the app brings it back from its suspension.
                _ = try os.send(openRequest)
            case "suspended"?:
                let by = suspendedBySystem(os) ? " by its OS, its background work done" : ""
                throw ControlError("the \(device)'s app is suspended\(by) (SIGSTOP): runway \(device) app resume, or runway \(device) app open")
            default: break
            }
        }
        let client = try ControlClient(home: home)
        app = client
        return client
    }

    /// `app open` in the OS's terms.
    var openRequest: ControlRequest {
        home.role == .phone ? ControlCommands.PhoneOSApp { $0.action = "open" }.request : ControlCommands.WatchOSApp { $0.action = "open" }.request
    }

    private func appState(_ os: ControlClient) -> String? {
        (try? os.send(ControlCommands.OSStatus()))?.appState
    }

    /// Whether the app is suspended by its OS (its work done), not by the user.
    private func suspendedBySystem(_ os: ControlClient) -> Bool {
        (try? os.send(ControlCommands.OSStatus()))?.suspendedBySystem == true
    }

    // MARK: - ControlClient's calls, routed

    func send(_ request: ControlRequest, as named: ControlCommandSpec? = nil) throws -> JSONValue {
        guard let spec = named ?? spec(request.command) else { throw ControlError.invalid("there is no control command \(OneLine.quote(request.command))") }
        _ = try request.validated(on: spec.servers.contains(appKind) ? appKind : osKind)
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try client(for: spec).send(request)
            } catch let error as ControlError where error.reason == "appHoldsTheLink" && attempts < 20 {
                // watch-os launched the app between the look and the request: the app holds the link now.
                app = nil
            } catch
                where app != nil && deviceOS != nil && Self.askedAgainWhenTheAppGoes.contains(request.command) && attempts < 20
                && (error as? ControlError)?.exitStatus != 2
            {
                // The app went (reclaimed, jetsammed) between the look and its answer: asked again, the OS
                // answers for it. Only for what reads, or changes to the same end however often it is asked
                // (`link-set`: the same change applied twice gives the same conditions).
                app = nil
            }
            // An app launched and reclaimed over and over (a short budget, a queue to send) can turn over
            // between any two requests: the next look is a moment later.
            usleep(50_000)
        }
    }

    /// Commands the OS also answers that may be asked twice: a lost answer from an app on its way out is
    /// asked again (not `link-schedule`: asked again, it would start over).
    static let askedAgainWhenTheAppGoes: Set<String> = ["status", "link-show", "link-set"]

    /// Sends a command to whoever answers it; its reply, of its type.
    func send<Command: ControlCommand>(_ command: Command) throws -> Command.Reply {
        let request = command.request
        return try Command.Reply(json: try send(request, as: Command.spec), replyTo: request.command)
    }

    func send(_ request: ControlRequest, sink: ([UInt8]) throws -> Void) throws {
        guard let spec = spec(request.command) else { throw ControlError.invalid("there is no control command \(OneLine.quote(request.command))") }
        _ = try request.validated(on: appKind)
        try client(for: spec).send(request, sink: sink)
    }

    /// `request` to the app's own socket whoever else answers the command (the watch app's install state,
    /// which watch-os leaves to it).
    func sendToApp<Command: ControlCommand>(_ command: Command) throws -> Command.Reply {
        let request = try command.request.validated(on: home.role == .phone ? .phone : .watch)
        return try Command.Reply(json: try appClient(for: request.command).send(request), replyTo: request.command)
    }

    /// The next event on the app's connection (after `attach` or `events --follow`).
    func nextEvent() throws -> JSONValue? { try app?.nextEvent() }
}
