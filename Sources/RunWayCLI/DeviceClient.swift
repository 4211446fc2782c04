import Connectivity
import Control
import JSONText
import Posix

/// A device as the CLI talks to it: each request goes to whoever answers it. A phone run by phone-os is
/// two programs — the OS (`os.sock`: the clock, the notification centre, the app's state) and the app
/// (`control.sock`, while it runs) — and a command that needs the app finds out at once, in one line,
/// when it is not running or is suspended, instead of waiting for a process that cannot answer.
final class DeviceClient {
    let home: DeviceHome
    private var app: ControlClient?
    private var os: ControlClient?
    /// Whether phone-os runs this phone (its `os.sock` answers), found out once.
    private lazy var phoneOS: ControlClient? = {
        guard home.role == .phone, Filesystem.kind(of: home.osControlSocketPath) == .socket else { return nil }
        return try? ControlClient(home: home, socketPath: home.osControlSocketPath)
    }()

    init(home: DeviceHome) { self.home = home }

    /// The client for `command`: phone-os for what the OS answers while it runs the phone, else the app.
    func client(for command: String) throws -> ControlClient {
        guard let os = phoneOS, let spec = ControlCommands.spec(command) else { return try appClient(for: command) }
        if spec.servers.contains(.phoneOS) {
            // `status`: the app's while it runs (the OS's rows are added by the CLI), else the OS's own.
            // `switch-watch`: the app's session makes it while the app runs (its delegate hears it), phone-os when not.
            if command == "status" || command == "switch-watch", let state = appState(os), state != "not running", state != "suspended" {
                return try appClient(for: command)
            }
            return os
        }
        return try appClient(for: command)
    }

    /// The app's control socket, checked first with phone-os when it runs the phone: a command for the app
    /// while it is not running or is suspended is one line, exit 1, saying how to open it.
    func appClient(for command: String) throws -> ControlClient {
        if let app { return app }
        if let os = phoneOS {
            switch appState(os) {
            case "not running"?:
                guard command == "attach" else {
                    throw ControlError(
                        "the phone's app is not running: phone-os runs this phone and launches the app only for the watch or when it is opened (runway phone app open, or runway phone ui)"
                    )
                }
                // A UI attaching is the user tapping the app's icon.
                _ = try os.send(ControlCommands.app.request { $0[ControlCommands.App.osAction] = "open" }, as: OSStatusReply.self)
            case "suspended"?:
                throw ControlError("the phone's app is suspended (SIGSTOP): runway phone app resume, or runway phone app open")
            default: break
            }
        }
        let client = try ControlClient(home: home)
        app = client
        return client
    }

    private func appState(_ os: ControlClient) -> String? {
        (try? os.send(ControlRequest(ControlCommands.osStatus), as: OSStatusReply.self))?.appState
    }

    // MARK: - ControlClient's calls, routed

    func send(_ request: ControlRequest) throws -> JSONValue {
        _ = try request.validated(on: home.role == .phone ? .phone : .watch)
        return try client(for: request.command).send(request)
    }

    func send<Reply: ControlReply>(_ request: ControlRequest, as type: Reply.Type) throws -> Reply {
        try Reply(json: try send(request))
    }

    func send(_ request: ControlRequest, sink: ([UInt8]) throws -> Void) throws {
        _ = try request.validated(on: home.role == .phone ? .phone : .watch)
        try client(for: request.command).send(request, sink: sink)
    }

    /// The next event on the app's connection (after `attach` or `events --follow`).
    func nextEvent() throws -> JSONValue? { try app?.nextEvent() }
}
