import Connectivity
import JSONText
import Posix

/// The control socket's protocol, between the `runway` CLI (or a UI client) and a daemon.
///
/// A client sends `request` frames, each a JSON object with a `command` and its arguments. Every request
/// gets one reply: a `response` frame (JSON: `{"ok":true}` or `{"ok":false,"error":{...}}`), then the
/// result as `chunk` frames of JSON text — streamed, so a logbook of any size passes in bounded memory —
/// then an `end` frame. A client that asked to `attach` then receives `event` frames until it leaves.
package enum ControlProtocol {
    /// Largest chunk a daemon sends (well under the frame limit).
    package static let chunkBytes = 256 * 1024
}

/// Every frame type of the control socket (CLI and UI clients ↔ daemon). The layout is
/// `Posix.WireFrame`'s, the numbers apart from the link's (`Connectivity.FrameType`): a control frame
/// sent to the link, or a link frame to the control socket, is an unknown type there.
package enum ControlFrameType: UInt8, WireFrameKind, CaseIterable {
    /// A command: JSON object.
    case request = 0x40
    /// The command's result: JSON.
    case response = 0x41
    /// Part of a streamed result: raw bytes.
    case chunk = 0x42
    /// End of a streamed result: JSON (may be empty).
    case end = 0x43
    /// An unsolicited event to an attached client (a flight saved): JSON.
    case event = 0x44
}

package typealias ControlFrame = WireFrame<ControlFrameType>
package typealias ControlFrameDecoder = WireFrameDecoder<ControlFrameType>

/// A command's failure, as the client shows it: one line, and the exit status the CLI uses.
package struct ControlError: Error, CustomStringConvertible, Sendable {
    package let message: String
    /// 1: the operation failed; 2: the input was invalid.
    package let exitStatus: Int32
    /// Set when the failure is a WatchConnectivity error.
    package let wcError: WCError?
    /// Which of a command's declared failures this is, where it has several a script must tell apart
    /// (`cancel`: `delivered`, `onTheWire`, `unknown`); a stable word, unlike the message.
    package let reason: String?

    package init(_ message: String, exitStatus: Int32 = 1, reason: String? = nil) {
        self.message = message
        self.exitStatus = exitStatus
        self.wcError = nil
        self.reason = reason
    }

    package init(_ error: WCError) {
        self.message = error.description
        self.exitStatus = 1
        self.wcError = error
        self.reason = nil
    }

    package static func invalid(_ message: String) -> ControlError { ControlError(message, exitStatus: 2) }

    package var description: String { message }

    package var json: JSONValue {
        var fields: [String: JSONValue] = ["message": .string(message), "exitStatus": .integer(Int64(exitStatus))]
        if let reason { fields["reason"] = .string(reason) }
        if let wcError {
            fields["code"] = .integer(Int64(wcError.code.rawValue))
            fields["name"] = .string(wcError.name)
        }
        return .object(fields)
    }

    package init(json: JSONValue) {
        message = json["message"]?.stringValue ?? "unknown error"
        exitStatus = Int32(json["exitStatus"]?.intValue ?? 1)
        reason = json["reason"]?.stringValue.flatMap { $0.utf8.count <= 64 ? $0 : nil }
        if let code = json["code"]?.intValue.flatMap(WCError.Code.init(rawValue:)) {
            wcError = WCError(code, message)
        } else {
            wcError = nil
        }
    }
}

/// A request: the command and its arguments, as the socket carries them. A client makes one from a
/// command's value (`ControlCommands.Record { $0.count = 3 }.request`); a daemon's handler gets the value
/// back, validated against the catalogue (`ControlCommandSpec.validate`) and decoded.
package struct ControlRequest: Sendable {
    package let command: String
    package var arguments: [String: JSONValue]

    package init(command: String, arguments: [String: JSONValue] = [:]) {
        self.command = command
        self.arguments = arguments
    }

    package init(json: JSONValue) throws(ControlError) {
        guard case let .object(fields) = json, let command = fields["command"]?.stringValue else {
            throw .invalid("a request must be a JSON object with a \"command\"")
        }
        self.command = command
        self.arguments = fields
    }

    package var json: JSONValue {
        var fields = arguments
        fields["command"] = .string(command)
        return .object(fields)
    }

    /// This request checked against the catalogue, as `server` checks it: defaults filled in (what the
    /// router hands a handler, and what a client checks before sending).
    package func validated(on server: ControlServerKind) throws(ControlError) -> ControlRequest {
        guard let spec = ControlCommands.spec(command, on: server) else {
            if ControlCommands.isKnown(command) { throw .invalid("the \(server.programName) does not answer \(OneLine.quote(command))") }
            throw .invalid("there is no control command \(OneLine.quote(command))")
        }
        return ControlRequest(command: command, arguments: try spec.validate(arguments))
    }
}

/// An error that carries a WatchConnectivity code (the public `WatchConnectivity.WCError`): a command
/// that fails with one answers with its code and name, as with the session's own.
package protocol WatchConnectivityCoded: Error {
    var watchConnectivityCode: Int { get }
    var watchConnectivityMessage: String { get }
}
