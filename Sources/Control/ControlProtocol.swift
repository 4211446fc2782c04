import Connectivity
import JSONText
import Posix

/// The control socket's protocol, between the `runway` CLI (or a UI client) and a daemon.
///
/// A client sends `request` frames, each a JSON object with a `command` and its arguments. Every request
/// gets one reply: a `response` frame (JSON: `{"ok":true}` or `{"ok":false,"error":{...}}`), then the
/// result as `chunk` frames of JSON text — streamed, so a logbook of any size passes in bounded memory —
/// then an `end` frame. A client that asked to `attach` then receives `event` frames until it leaves.
public enum ControlProtocol {
    /// Largest chunk a daemon sends (well under the frame limit).
    public static let chunkBytes = 256 * 1024
}

/// Every frame type of the control socket (CLI and UI clients ↔ daemon). The layout is
/// `Posix.WireFrame`'s, the numbers apart from the link's (`Connectivity.FrameType`): a control frame
/// sent to the link, or a link frame to the control socket, is an unknown type there.
public enum ControlFrameType: UInt8, WireFrameKind, CaseIterable {
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

public typealias ControlFrame = WireFrame<ControlFrameType>
public typealias ControlFrameDecoder = WireFrameDecoder<ControlFrameType>

/// A command's failure, as the client shows it: one line, and the exit status the CLI uses.
public struct ControlError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// 1: the operation failed; 2: the input was invalid.
    public let exitStatus: Int32
    /// Set when the failure is a WatchConnectivity error.
    public let wcError: WCError?

    public init(_ message: String, exitStatus: Int32 = 1) {
        self.message = message
        self.exitStatus = exitStatus
        self.wcError = nil
    }

    public init(_ error: WCError) {
        self.message = error.description
        self.exitStatus = 1
        self.wcError = error
    }

    public static func invalid(_ message: String) -> ControlError { ControlError(message, exitStatus: 2) }

    public var description: String { message }

    public var json: JSONValue {
        var fields: [String: JSONValue] = ["message": .string(message), "exitStatus": .integer(Int64(exitStatus))]
        if let wcError {
            fields["code"] = .integer(Int64(wcError.code.rawValue))
            fields["name"] = .string(wcError.name)
        }
        return .object(fields)
    }

    public init(json: JSONValue) {
        message = json["message"]?.stringValue ?? "unknown error"
        exitStatus = Int32(json["exitStatus"]?.intValue ?? 1)
        if let code = json["code"]?.intValue.flatMap(WCError.Code.init(rawValue:)) {
            wcError = WCError(code, message)
        } else {
            wcError = nil
        }
    }
}

/// A decoded request: the command and typed access to its arguments.
public struct ControlRequest: Sendable {
    public let command: String
    public let arguments: [String: JSONValue]

    public init(command: String, arguments: [String: JSONValue] = [:]) {
        self.command = command
        self.arguments = arguments
    }

    public init(json: JSONValue) throws(ControlError) {
        guard case let .object(fields) = json, let command = fields["command"]?.stringValue else {
            throw .invalid("a request must be a JSON object with a \"command\"")
        }
        self.command = command
        self.arguments = fields
    }

    public var json: JSONValue {
        var fields = arguments
        fields["command"] = .string(command)
        return .object(fields)
    }

    public func string(_ key: String) -> String? { arguments[key]?.stringValue }
    public func bool(_ key: String) -> Bool { arguments[key]?.boolValue ?? false }

    public func int(_ key: String, default value: Int? = nil, range: ClosedRange<Int>) throws(ControlError) -> Int? {
        guard let raw = arguments[key], raw != .null else { return value }
        guard let number = raw.intValue, range.contains(number) else {
            throw .invalid("\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    public func double(_ key: String, range: ClosedRange<Double>) throws(ControlError) -> Double? {
        guard let raw = arguments[key], raw != .null else { return nil }
        guard let number = raw.doubleValue, number.isFinite, range.contains(number) else {
            throw .invalid("\(key) must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
