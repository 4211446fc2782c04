import Connectivity
import Glibc
import JSONText
import Posix

/// The client end of a daemon's control socket (blocking): what the `runway` CLI and the integration
/// tests use.
public final class ControlClient {
    public let home: DeviceHome
    private let descriptor: FileDescriptor
    private let inbound = ByteBuffer()
    private let decoder = FrameDecoder(maximumLength: 1 << 20)
    /// Events that arrived while a reply was awaited (an attached client may still send requests).
    private var pendingEvents: [Frame] = []

    /// Connects to the daemon of `home`; a daemon that is not running is one clear error.
    public init(home: DeviceHome) throws(ControlError) {
        self.home = home
        let address: UnixSocketAddress
        do { address = try home.controlSocketAddress() } catch { throw ControlError.invalid(error.description) }
        do {
            descriptor = try UnixSocket.connect(to: address, nonBlocking: false)
        } catch {
            if Filesystem.kind(of: home.path) != .directory {
                throw ControlError.invalid("\(home.path) is not a \(home.role.rawValue) home (no such directory)")
            }
            throw ControlError("the \(home.role == .phone ? "phone-daemon" : "watch-agent") for \(home.path) is not running (\(error.errno == ENOENT || error.errno == ECONNREFUSED ? "no one is listening on \(address.path)" : error.description))")
        }
    }

    /// Sends a request and returns the whole result, parsed.
    public func call(_ request: ControlRequest) throws(ControlError) -> JSONValue {
        var body: [UInt8] = []
        try call(request) { body.append(contentsOf: $0) }
        do {
            return body.isEmpty ? .null : try JSONValue(parsing: body)
        } catch {
            throw ControlError("the daemon sent a malformed reply: \(error)")
        }
    }

    /// Sends a request and passes the result to `sink` piece by piece, as it arrives.
    public func call(_ request: ControlRequest, sink: ([UInt8]) throws -> Void) throws(ControlError) {
        // Say which device we think this is: the other device's daemon refuses (exit 2).
        var arguments = request.arguments
        arguments["role"] = .string(home.role.rawValue)
        var writer = JSONWriter()
        writer.write(ControlRequest(command: request.command, arguments: arguments).json)
        do {
            try descriptor.writeAll(Frame(.request, writer.bytes).encoded)
        } catch {
            throw ControlError("lost the connection to the daemon for \(home.path): \(error)")
        }
        var header = try nextFrame()
        // An attach request's reply can come after the events of the flights its drain just saved.
        while header.type == .event {
            pendingEvents.append(header)
            header = try nextFrame()
        }
        guard header.type == .response else { throw ControlError("the daemon sent \(header.type) instead of a response") }
        let status: JSONValue
        do { status = try JSONValue(parsing: header.payload) } catch { throw ControlError("malformed response: \(error)") }
        var failure: ControlError?
        if status["ok"]?.boolValue != true {
            failure = ControlError(json: status["error"] ?? .null)
        }
        while true {
            let frame = try nextFrame()
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

    /// The next event frame (after an `attach` request), or nil when the daemon closes the connection.
    public func nextEvent() throws(ControlError) -> JSONValue? {
        while true {
            let frame: Frame
            if !pendingEvents.isEmpty {
                frame = pendingEvents.removeFirst()
            } else {
                do { frame = try nextFrame() } catch { return nil }
            }
            guard frame.type == .event else { continue }
            do { return try JSONValue(parsing: frame.payload) } catch { throw ControlError("malformed event: \(error)") }
        }
    }

    /// The raw descriptor, for clients that wait on it together with something else (a UI's stdin).
    public var rawDescriptor: Int32 { descriptor.rawValue }

    private func nextFrame() throws(ControlError) -> Frame {
        while true {
            let decoded: (frame: Frame, consumed: Int)?
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
            if result == .endOfFile {
                throw ControlError("the daemon for \(home.path) closed the connection")
            }
        }
    }
}
