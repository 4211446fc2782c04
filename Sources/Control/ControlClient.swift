import Connectivity
import JSONText
import Posix

/// The client end of a daemon's control socket: what the `runway` CLI and the integration tests use.
/// Each call blocks the caller, but never longer than the idle time-out at any one wait (a frozen daemon
/// is one clear error, not a hang); a request over the frame limit is refused before it is sent (7009).
package final class ControlClient {
    package let home: DeviceHome
    /// Connected in `init`, or, for a client made with `connectNow: false`, by the first request — after
    /// that request's arguments were checked, so bad input is exit 2 whether or not the daemon runs.
    private var connection: FileDescriptor?
    private let address: UnixSocketAddress
    private let inbound = ByteBuffer()
    private let decoder = ControlFrameDecoder(maximumLength: ControlClient.frameLimit)
    /// Events that arrived while a reply was awaited (an attached client may still send requests).
    private var pendingEvents: [ControlFrame] = []

    /// How long the client waits for its daemon when nothing arrives: to accept the connection, to take
    /// the request, and between any two pieces of the reply. An idle time-out, not a total one: a logbook
    /// of any size streams for as long as it keeps coming. A frozen daemon (SIGSTOP, a debugger) makes the
    /// call fail with one line instead of waiting forever. `RUNWAY_CONTROL_TIMEOUT_MS` overrides it.
    package static let defaultTimeoutMilliseconds: Int = {
        if let text = getenv("RUNWAY_CONTROL_TIMEOUT_MS").map({ String(cString: $0) }),
            let value = Int(text), (1...86_400_000).contains(value)
        {
            return value
        }
        return 60_000
    }()

    /// The largest frame either end of a control socket accepts (a request, a chunk of a reply).
    package static let frameLimit = 1 << 20

    package var timeoutMilliseconds: Int
    /// The program at the other end, as the catalogue names it: what `send` checks a request for.
    package let server: ControlServerKind

    /// The program at the other end, by the name a user knows (`phone-os` or `watch-os` for `HOME/os.sock`).
    private var serverName: String { server.programName }

    /// A client of the daemon of `home` (or of the program listening on `socketPath`, phone-os's
    /// `os.sock`). With `connectNow` it connects here: a daemon that is not running is one clear error,
    /// and so is one that does not take the connection within the time-out (its listen queue is full).
    /// Without, the first request connects, after its arguments were checked (the CLI's way).
    package init(
        home: DeviceHome, socketPath: String? = nil,
        timeoutMilliseconds: Int = ControlClient.defaultTimeoutMilliseconds, connectNow: Bool = true
    ) throws(ControlError) {
        self.home = home
        self.timeoutMilliseconds = timeoutMilliseconds
        self.server = socketPath != nil ? (home.role == .phone ? .phoneOS : .watchOS) : home.role == .phone ? .phone : .watch
        do {
            if let socketPath { address = try UnixSocketAddress(path: socketPath) } else { address = try home.controlSocketAddress() }
        } catch { throw ControlError.invalid("\(error)") }
        if connectNow { _ = try connected() }
    }

    /// The connection, made now if it was not yet.
    private func connected() throws(ControlError) -> FileDescriptor {
        if let connection { return connection }
        let deadline = SystemClock.now() + UInt64(timeoutMilliseconds) * 1_000_000
        while true {
            do {
                // Non-blocking: a connect to a listener whose queue is full fails with EAGAIN instead of
                // blocking for as long as the daemon is frozen.
                let descriptor = try UnixSocket.connect(to: address, nonBlocking: true)
                connection = descriptor
                return descriptor
            } catch  where error.errno == EAGAIN && SystemClock.now() < deadline {
                usleep(10_000)
            } catch {
                if Filesystem.kind(of: home.path) != .directory {
                    throw ControlError.invalid("\(home.path) is not a \(home.role.rawValue) home (no such directory)")
                }
                if error.errno == EAGAIN {
                    throw ControlError(
                        "the \(serverName) for \(home.path) did not accept the connection within \(timeoutMilliseconds) ms (is it stopped or hung?)")
                }
                throw ControlError(
                    "the \(serverName) for \(home.path) is not running (\(error.errno == ENOENT || error.errno == ECONNREFUSED ? "no one is listening on \(address.path)" : error.description))"
                )
            }
        }
    }

    /// Checks a request against the catalogue as the daemon will — a bad value is the daemon's own line,
    /// exit 2, before anything is sent — then sends it and returns the whole result, parsed. What the
    /// `runway` CLI uses; `call` sends a request as it is (the tests of the daemon's own checks).
    package func send(_ request: ControlRequest) throws(ControlError) -> JSONValue {
        _ = try request.validated(on: server)
        return try call(request)
    }

    /// Sends a command — checked first, as `send(_:)` checks a request — and returns its reply, of its
    /// type (one line, exit 1, if the daemon's is not of its shape): `client.send(ControlCommands.Files())`
    /// is a `FilesReply`.
    package func send<Command: ControlCommand>(_ command: Command) throws(ControlError) -> Command.Reply {
        let request = command.request
        return try Command.Reply(json: try send(request), replyTo: request.command)
    }

    /// `send`, the result passed to `sink` piece by piece as it arrives (a streamed `logbook`).
    package func send(_ request: ControlRequest, sink: ([UInt8]) throws -> Void) throws(ControlError) {
        _ = try request.validated(on: server)
        try call(request, sink: sink)
    }

    /// Sends a request as it is and returns the whole result, parsed.
    package func call(_ request: ControlRequest) throws(ControlError) -> JSONValue {
        var body: [UInt8] = []
        try call(request) { body.append(contentsOf: $0) }
        do {
            return body.isEmpty ? .null : try JSONValue(parsing: body)
        } catch {
            throw ControlError("the daemon sent a malformed reply: \(error)")
        }
    }

    /// Sends a request and passes the result to `sink` piece by piece, as it arrives.
    package func call(_ request: ControlRequest, sink: ([UInt8]) throws -> Void) throws(ControlError) {
        // Say which device we think this is: the other device's daemon refuses (exit 2).
        var arguments = request.arguments
        arguments["role"] = .string(home.role.rawValue)
        var writer = JSONWriter()
        writer.write(ControlRequest(command: request.command, arguments: arguments).json)
        // The daemon would close the connection on a frame over its limit (the client would only see a
        // broken pipe): say what is wrong instead, as the daemon says it of a userInfo over 65,536 bytes.
        guard writer.bytes.count + 2 <= Self.frameLimit else {
            throw ControlError(
                WCError(
                    .payloadTooLarge,
                    "the \(request.command) request is \(writer.bytes.count) bytes, more than the control socket's \(Self.frameLimit)-byte limit"))
        }
        // A `message` waits for the counterpart's reply for up to its own time-out.
        let idle = timeoutMilliseconds + (request.arguments["timeoutMs"]?.intValue ?? 0)
        do {
            try send(ControlFrame(.request, writer.bytes).encoded, idleMilliseconds: idle)
        } catch {
            // A daemon that refused the connection said why before closing it: that line, not "Broken pipe".
            if let refusal = refusalLeftBehind() { throw refusal }
            throw error
        }
        var header = try nextFrame(idleMilliseconds: idle)
        // An attach request's reply can come after the events of the flights its drain just saved.
        while header.type == .event {
            pendingEvents.append(header)
            header = try nextFrame(idleMilliseconds: idle)
        }
        guard header.type == .response else { throw ControlError("the daemon sent \(header.type) instead of a response") }
        let status: JSONValue
        do { status = try JSONValue(parsing: header.payload) } catch { throw ControlError("malformed response: \(error)") }
        var failure: ControlError?
        if status["ok"]?.boolValue != true {
            failure = ControlError(json: status["error"] ?? .null)
        }
        while true {
            let frame = try nextFrame(idleMilliseconds: idle)
            switch frame.type {
            case .chunk:
                do { try sink(frame.payload) } catch { throw ControlError("\(error)") }
            case .end:
                if let failure { throw failure }
                return
            case .event:
                pendingEvents.append(frame)
            default:
                throw ControlError("the daemon sent an unexpected \(frame.type) frame")
            }
        }
    }

    /// The error response a daemon left in the connection before closing it (a refusal), if any.
    private func refusalLeftBehind() -> ControlError? {
        guard let frame = try? nextFrame(idleMilliseconds: 1000), let error = Self.failure(in: frame) else { return nil }
        return error
    }

    /// The error a `response` frame carries, if it is a failure.
    private static func failure(in frame: ControlFrame) -> ControlError? {
        guard frame.type == .response, let status = try? JSONValue(parsing: frame.payload), status["ok"]?.boolValue == false else { return nil }
        return ControlError(json: status["error"] ?? .null)
    }

    /// The next event frame (after an `attach` request), or nil when the daemon closes the connection.
    /// A daemon that detaches this client says why (an error response): that is thrown, one line.
    package func nextEvent() throws(ControlError) -> JSONValue? {
        while true {
            let frame: ControlFrame
            if !pendingEvents.isEmpty {
                frame = pendingEvents.removeFirst()
            } else {
                // An attached UI waits for events as long as it stays attached: no time-out.
                do { frame = try nextFrame(idleMilliseconds: nil) } catch { return nil }
            }
            if let detached = Self.failure(in: frame) { throw detached }
            guard frame.type == .event else { continue }
            do { return try JSONValue(parsing: frame.payload) } catch { throw ControlError("malformed event: \(error)") }
        }
    }

    /// The raw descriptor, for clients that wait on it together with something else (a UI's stdin).
    package var rawDescriptor: Int32 { connection?.rawValue ?? -1 }

    /// Writes all of `bytes`, waiting at most `idleMilliseconds` each time the daemon takes none.
    private func send(_ bytes: [UInt8], idleMilliseconds: Int) throws(ControlError) {
        let descriptor = try connected()
        var offset = 0
        while offset < bytes.count {
            let result: IOResult
            do {
                result = try bytes[offset...].withUnsafeBytes { (raw) throws(SystemError) -> IOResult in
                    try descriptor.send(raw.baseAddress!, count: raw.count)
                }
            } catch {
                throw ControlError("lost the connection to the daemon for \(home.path): \(error)")
            }
            switch result {
            case let .bytes(n): offset += n
            case .wouldBlock, .endOfFile: try wait(.writable, idleMilliseconds: idleMilliseconds)
            }
        }
    }

    /// Waits until the descriptor is ready, or fails with one line naming the daemon that went quiet.
    private func wait(_ readiness: FileDescriptor.Readiness, idleMilliseconds: Int?) throws(ControlError) {
        let descriptor = try connected()
        let ready: Bool
        do {
            ready = try descriptor.waitUntil(readiness, timeoutMilliseconds: idleMilliseconds.map { Int32(clamping: $0) } ?? -1)
        } catch {
            throw ControlError("lost the connection to the daemon for \(home.path): \(error)")
        }
        if !ready {
            throw ControlError("the \(serverName) for \(home.path) did not answer within \(idleMilliseconds ?? 0) ms (is it stopped or hung?)")
        }
    }

    private func nextFrame(idleMilliseconds: Int?) throws(ControlError) -> ControlFrame {
        let descriptor = try connected()
        while true {
            let decoded: (frame: ControlFrame, consumed: Int)?
            do {
                decoded = try inbound.withReadableBytes { (raw) throws(FrameError) in try decoder.decode(raw) }
            } catch {
                throw ControlError("the daemon sent a bad frame: \(error)")
            }
            if let (frame, consumed) = decoded {
                inbound.consume(consumed)
                return frame
            }
            var result = IOResult.wouldBlock
            do {
                _ = try inbound.writeWithSpareCapacity(256 * 1024) { (raw) throws(SystemError) -> Int in
                    result = try descriptor.read(into: raw.baseAddress!, count: raw.count)
                    if case let .bytes(n) = result { return n }
                    return 0
                }
            } catch {
                throw ControlError("lost the connection to the daemon for \(home.path): \(error)")
            }
            switch result {
            case .endOfFile: throw ControlError("the daemon for \(home.path) closed the connection")
            case .wouldBlock: try wait(.readable, idleMilliseconds: idleMilliseconds)
            case .bytes: continue
            }
        }
    }
}
