import Connectivity
import Control
import OSServices
import JSONText
import Posix

/// The app's channel to its OS when the OS runs in another process (`phone-os`, `watch-os`, over
/// `HOME/os.sock`): every `OSRequest` as its command, the clock and the deliveries as the OS tells them.
///
/// Two connections: one held open and attached (`os-attach-app`) on which phone-os tells the app the
/// clock and each change to it, and each notification it delivers; and one for requests, answered in
/// turn. The clock is kept here from what phone-os said, so reading device time costs no round trip.
final class OSClient: OSChannel {
    private let home: DeviceHome
    private let socketPath: String
    private let logger: Logger
    private var requestClient: ControlClient?
    private var events: SocketStream?
    private let decoder = ControlFrameDecoder(maximumLength: ControlClient.frameLimit)
    /// The app's observers of the OS's events, by name (`observe`).
    private var eventObservers: [String: [(JSONValue) -> Void]] = [:]
    /// Told each app state the OS says (`foreground`, `background`): `watch-os` on `app open|close`.
    var appStateObservers: [(String) -> Void] = []
    /// Told each background refresh the OS says fell due while the app runs (`backgroundRefresh`).
    var refreshObservers: [() -> Void] = []
    /// Told what the OS woke the suspended app for (`woken`: `transfer`, `message`, `workout`, `link`).
    var wokenObservers: [(String) -> Void] = []
    /// Told when the OS asks to suspend the app as soon as its link is quiet (`suspendWhenQuiet`).
    var suspendRequestObservers: [() -> Void] = []
    /// Told when the OS is about to end the launch with background tasks open (`tasksExpiring`).
    var expiringObservers: [() -> Void] = []
    /// The last app state the OS said (it says it on attaching too, so a change made while the app was
    /// starting is not lost).
    private(set) var lastAppState: String?
    /// The clock as phone-os last said it: frozen at an instant, or the system's time plus an offset.
    private var frozenAt: Double?
    private var offsetSeconds = 0.0

    init(home: DeviceHome, socketPath: String, loop: EventLoop, logger: Logger) throws {
        self.home = home
        self.socketPath = socketPath
        self.logger = logger
        try attach(loop: loop)
    }

    // MARK: - The attached connection: the clock and deliveries

    private func attach(loop: EventLoop) throws {
        let descriptor = try UnixSocket.connect(to: try UnixSocketAddress(path: socketPath), nonBlocking: true)
        let stream = SocketStream(descriptor: descriptor, loop: loop)
        var writer = JSONWriter()
        writer.write(ControlCommands.OSAttachApp().request.json)
        stream.onRead = { [unowned self] stream in self.read(stream) }
        stream.onClose = { [unowned self] _, reason in
            self.logger.warning("os.connection-closed", ["reason": "\(reason)", "effect": "the clock stays as last told"])
        }
        stream.start()
        stream.write(ControlFrame(.request, writer.bytes).encoded)
        events = stream
        // The reply carries the clock: wait for it, so that the app's first reading is the device's.
        let deadline = SystemClock.now() + 10_000_000_000
        while !clockKnown && SystemClock.now() < deadline && !stream.isClosed {
            try loop.runOnce(maximumWaitMilliseconds: 100)
        }
    }

    private var clockKnown = false

    private func read(_ stream: SocketStream) {
        let (frames, error) = decoder.decodeAll(from: stream.inbound)
        for frame in frames {
            guard frame.type == .response || frame.type == .event || frame.type == .chunk else { continue }
            guard let json = try? JSONValue(parsing: frame.payload) else { continue }
            switch json["event"]?.stringValue {
            case "clock": clock(json)
            case "appState":
                guard let state = json["state"]?.stringValue else { break }
                lastAppState = state
                for observer in appStateObservers { observer(state) }
            case "backgroundRefresh":
                for observer in refreshObservers { observer() }
            case "tasksExpiring":
                for observer in expiringObservers { observer() }
            case "suspendWhenQuiet":
                for observer in suspendRequestObservers { observer() }
            case "woken":
                let reason = json["for"]?.stringValue ?? "link"
                for observer in wokenObservers { observer(reason) }
            case let name?:
                for observer in eventObservers[name] ?? [] { observer(json) }
            case nil: break
            }
        }
        if let error {
            logger.error("os.connection-malformed", ["error": "\(error)"])
            stream.close(.localClose("malformed frames from phone-os: \(error)"))
        }
    }

    private func clock(_ json: JSONValue) {
        guard let clock = try? OSClockEvent(json: json, replyTo: "os-attach-app") else { return }
        clockKnown = true
        if clock.mode == "frozen" {
            frozenAt = clock.now
        } else {
            frozenAt = nil
            offsetSeconds = clock.offsetSeconds
        }
    }

    // MARK: - Requests

    /// Sends `command` on the request connection, opened again once if phone-os closed it (it closes a
    /// connection idle for ten minutes).
    func send<Command: ControlCommand>(_ command: Command) throws -> Command.Reply {
        for attempt in 0..<2 {
            do {
                let client = try requestClient ?? ControlClient(home: home, socketPath: socketPath)
                requestClient = client
                return try client.send(command)
            } catch let error as ControlError where attempt == 0 && error.wcError == nil && error.exitStatus == 1 {
                requestClient = nil
            }
        }
        throw ControlError("unreachable")
    }

    // MARK: - OSChannel

    var deviceNow: Double { frozenAt ?? wallClockSeconds() + offsetSeconds }

    /// `request` as its command on `os.sock` (its properties the arguments), the reply as its type; the
    /// OS's refusal (exit 2) as an `OSRefusal`, as the OS in process throws it.
    func call<Request: OSRequest>(_ request: Request) throws -> Request.Reply {
        do {
            return try send(request)
        } catch let error as ControlError where error.exitStatus == 2 {
            throw OSRequestRefused(error.message)
        }
    }

    /// Each `Event` the OS sends on the attached connection, decoded by its name.
    func observe<Event: OSEvent>(_ type: Event.Type, _ listener: @escaping (Event) -> Void) {
        eventObservers[Event.name, default: []].append { [logger] json in
            do {
                listener(try JSONValueDecoder().decode(Event.self, from: json))
            } catch {
                logger.error("os.event-malformed", ["event": Event.name, "error": "\(error)"])
            }
        }
    }
}
