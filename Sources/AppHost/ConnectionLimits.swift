import Posix
import Control
import Connectivity

/// The time-outs that protect a daemon from clients that connect and then stall: how long a link
/// connection has to complete its handshake, how long a control client has to send a request.
///
/// The defaults suit real use; hidden flags shorten them so the hardening tests do not wait for them
/// (`--handshake-timeout-ms`, `--control-request-timeout-ms`, `--control-idle-timeout-ms`), and lower
/// the control socket's caps so that a test can fill them (`--control-max-clients`,
/// `--control-max-followers`).
package struct ConnectionLimits: Sendable {
    /// A link connection that has not completed its handshake by then is closed (`transferTimedOut`).
    package var handshakeTimeoutMilliseconds: UInt64 = 5000
    /// A control client must send a whole request within this long of connecting, and finish each
    /// request within this long of its first byte.
    package var controlRequestTimeoutMilliseconds: UInt64 = 10_000
    /// A control client may stay idle between requests this long (attached UI clients: forever).
    package var controlIdleTimeoutMilliseconds: UInt64 = 600_000
    /// The control socket's caps (`ControlServer.maximumConnections`, `maximumFollowers`); nil: its own.
    package var controlMaximumClients: Int?
    package var controlMaximumFollowers: Int?

    package init() {}

    package static let specs: [ArgumentSpec] = [
        .option("handshake-timeout-ms", "MS", "TEST ONLY: time a link connection has to complete its handshake (default 5000)", hidden: true),
        .option("control-request-timeout-ms", "MS", "TEST ONLY: time a control client has to send a request (default 10000)", hidden: true),
        .option("control-idle-timeout-ms", "MS", "TEST ONLY: time a control client may idle between requests (default 600000)", hidden: true),
        .option("control-max-clients", "N", "TEST ONLY: control clients held at most (default 256)", hidden: true),
        .option("control-max-followers", "N", "TEST ONLY: of those, followers and attached UIs at most (default 128)", hidden: true),
    ]

    package init(_ parsed: ParsedArguments) throws(UsageError) {
        let range = 1...86_400_000
        if let value = try parsed.integer("handshake-timeout-ms", range: range) { handshakeTimeoutMilliseconds = UInt64(value) }
        if let value = try parsed.integer("control-request-timeout-ms", range: range) { controlRequestTimeoutMilliseconds = UInt64(value) }
        if let value = try parsed.integer("control-idle-timeout-ms", range: range) { controlIdleTimeoutMilliseconds = UInt64(value) }
        controlMaximumClients = try parsed.integer("control-max-clients", range: 1...4096)
        controlMaximumFollowers = try parsed.integer("control-max-followers", range: 0...4096)
    }

    /// Applies the control-socket time-outs to a daemon's control server.
    func apply(to control: ControlServer) {
        control.requestTimeoutMilliseconds = controlRequestTimeoutMilliseconds
        control.idleTimeoutMilliseconds = controlIdleTimeoutMilliseconds
        if let controlMaximumClients { control.maximumConnections = controlMaximumClients }
        if let controlMaximumFollowers { control.maximumFollowers = controlMaximumFollowers }
    }
}
