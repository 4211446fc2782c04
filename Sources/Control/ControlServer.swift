import Connectivity
import JSONText
import Posix

/// A daemon's control socket: accepts local clients of the same user and hands their requests to
/// the daemon's handler.
package final class ControlServer {
    /// Handles one request; what it throws becomes the error reply (with its WatchConnectivity code and
    /// name when it has one; an unexpected error is logged too).
    package typealias Handler = (ControlRequest, ControlConnection) throws -> Void

    package let address: UnixSocketAddress

    func replyError(for error: Error, command: String) -> ControlError {
        if let error = error as? ControlError { return error }
        if let error = error as? WCError { return ControlError(error) }
        if let error = error as? any WatchConnectivityCoded, let code = WCError.Code(rawValue: error.watchConnectivityCode) {
            return ControlError(WCError(code, error.watchConnectivityMessage))
        }
        logger.error("control.command-failed", ["command": command, "error": "\(error)"])
        return ControlError("\(command) failed: \(error)")
    }

    /// Which device this daemon is, and its home (for refusing clients that expect the other one).
    package let role: DeviceRole
    let home: String
    let logger: Logger
    let loop: EventLoop
    private let listener: UnixListener
    private var connections: [ObjectIdentifier: ControlConnection] = [:]
    package var handler: Handler?
    /// At most this many clients (bounds descriptors and buffers); at the cap a new one evicts the
    /// oldest that has not sent a request yet, else the oldest follower, and is refused (one line) only
    /// when every one is a request in progress.
    package var maximumConnections = 256
    /// Of those, at most this many attached UIs and `events --follow` followers: they hold their
    /// connections for good, so they have a budget of their own and a request/response client always
    /// finds room (issue 22: 256 held followers locked the CLI out).
    package var maximumFollowers = 128
    /// A client must send a whole request within this long of connecting, and finish each request
    /// within this long of its first byte (a silent client, one byte a second).
    package var requestTimeoutMilliseconds: UInt64 = 10_000
    /// Between requests a client may stay idle this long (`runway phone delete` waits for a human's
    /// answer between its two requests). Attached UI clients are exempt.
    package var idleTimeoutMilliseconds: UInt64 = 600_000

    package init(address: UnixSocketAddress, role: DeviceRole, home: String, loop: EventLoop, logger: Logger) {
        self.address = address
        self.role = role
        self.home = home
        self.loop = loop
        self.logger = logger
        listener = UnixListener(address: address, loop: loop, logger: logger, eventPrefix: "control")
    }

    /// Listens on the supervisor's socket instead of binding one (socket activation).
    package func adopt(_ fd: FileDescriptor) { listener.adopt(fd) }

    package func start() throws {
        listener.onAccept = { [unowned self] fd in self.accepted(fd) }
        try listener.start()
    }

    package func stop() {
        for connection in connections.values { connection.stream.close(.localClose("daemon shutting down")) }
        connections.removeAll()
        listener.stop()
    }

    /// Binds the socket afresh if its file was removed (see `UnixListener.ensureBound`).
    @discardableResult
    package func ensureBound() throws -> UnixListener.BindingState { try listener.ensureBound() }

    package var attachedClients: [ControlConnection] { connections.values.filter(\.isAttached) }

    /// Whether `connection` may become a follower: within `maximumFollowers`, else one line, exit 1.
    func admitFollower(_ connection: ControlConnection) throws(ControlError) {
        guard !connection.isFollower else { throw ControlError.invalid("this connection already receives events") }
        let followers = connections.values.filter(\.isFollower).count
        guard followers < maximumFollowers else {
            logger.warning("control.too-many-followers", ["followers": followers, "action": "refused"])
            throw ControlError(
                "the \(role == .phone ? "phone" : "watch") already has \(followers) followers (events --follow, phone ui), the most it keeps: stop one first"
            )
        }
    }

    func connectionDidClose(_ connection: ControlConnection) {
        connections[ObjectIdentifier(connection)] = nil
    }

    private var nextSerial: UInt64 = 0

    /// At the cap, the oldest connection that has not sent a whole request yet is closed to make room
    /// (it is told nothing: it has not asked anything); else the oldest idle one, then the oldest
    /// follower, each told why in one line. Never the newcomer, which is refused (one line) only when
    /// every connection is a request in progress.
    private func accepted(_ fd: FileDescriptor) {
        var refusal: ControlError?
        if connections.count >= maximumConnections {
            let clients = connections.count
            if let oldest = connections.values.filter(\.isSilent).min(by: { $0.serial < $1.serial }) {
                logger.warning("control.too-many-clients", ["clients": clients, "action": "evicted-oldest-silent"])
                oldest.stream.close(.localClose("evicted: too many clients, and it had sent no request"))
            } else if let idle = connections.values.filter(\.isIdle).min(by: { $0.serial < $1.serial }) {
                logger.warning("control.too-many-clients", ["clients": clients, "action": "evicted-oldest-idle"])
                idle.closeWithError(
                    ControlError("closed: the \(role == .phone ? "phone" : "watch") has \(clients) clients, and this one was idle"),
                    reason: "evicted: too many clients, and it was idle")
            } else if let follower = connections.values.filter(\.isFollower).min(by: { $0.serial < $1.serial }) {
                logger.warning("control.too-many-clients", ["clients": clients, "action": "detached-oldest-follower"])
                follower.closeWithError(
                    ControlError("detached: the \(role == .phone ? "phone" : "watch") has \(clients) clients, and a request needed the room"),
                    reason: "detached to make room for a request")
            } else {
                logger.warning("control.too-many-clients", ["clients": clients, "action": "refused"])
                refusal = ControlError("the \(role == .phone ? "phone" : "watch") has \(clients) requests in progress, the most it takes: try again")
            }
        }
        nextSerial += 1
        let connection = ControlConnection(stream: SocketStream(descriptor: fd, loop: loop), server: self, serial: nextSerial)
        connections[ObjectIdentifier(connection)] = connection
        connection.start()
        // Told why, then closed: one line for the CLI, not a broken pipe.
        if let refusal { connection.closeWithError(refusal, reason: "refused: too many requests in progress") }
    }
}
