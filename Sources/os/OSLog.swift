import Foundation
import Posix

/// A message's level: how important it is (Apple's raw values).
public struct OSLogType: RawRepresentable, Equatable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let `default` = OSLogType(0x00)
    public static let info = OSLogType(0x01)
    public static let debug = OSLogType(0x02)
    public static let error = OSLogType(0x10)
    public static let fault = OSLogType(0x11)

    var name: String {
        switch self {
        case .info: "info"
        case .debug: "debug"
        case .error: "error"
        case .fault: "fault"
        default: "default"
        }
    }

    var posixLevel: Posix.Logger.Level {
        switch self {
        case .info: .info
        case .debug: .debug
        case .error, .fault: .error
        default: .notice
        }
    }
}

/// A log object: the subsystem and category its messages are filed under, for `os_log(_:log:type:_:)` and
/// `Logger(_:)`. Its messages go where `Logger`'s do (the app's stderr in the device's format and the
/// device's trace). `OSLog.disabled` drops every message, as on Apple's platforms.
public final class OSLog: NSObject, @unchecked Sendable {
    public let subsystem: String
    public let category: String
    let isDisabled: Bool

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
        isDisabled = false
    }

    /// A log of one of the system's categories (`.pointsOfInterest`, used by signposts).
    public convenience init(subsystem: String, category: OSLog.Category) { self.init(subsystem: subsystem, category: category.rawValue) }

    private init(disabled: Void) {
        subsystem = ""
        category = ""
        isDisabled = true
    }

    /// The shared default log: no subsystem, no category.
    public static let `default` = OSLog(subsystem: "", category: "")
    /// A log that writes nothing.
    public static let disabled = OSLog(disabled: ())

    /// The categories the system gives a meaning to.
    public struct Category: RawRepresentable, Equatable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Signposts in this category appear in Instruments' Points of Interest.
        public static let pointsOfInterest = Category(rawValue: "PointsOfInterest")
        public static let dynamicTracing = Category(rawValue: "DynamicTracing")
        public static let dynamicStackTracing = Category(rawValue: "DynamicStackTracing")
    }

    /// Whether a message of `type` would be written (every type is, but none to `.disabled`).
    public func isEnabled(type: OSLogType) -> Bool { !isDisabled }

    /// Signposts are not kept here (docs/your-app.md).
    public var signpostsEnabled: Bool { false }

    override public var description: String { "<OS_os_log: subsystem=\(subsystem) category=\(category)>" }
}

// MARK: - os_log

/// Writes `message` to `log` at level `type`: a constant string, or a format string with `args` in the
/// order its specifiers name them (`%d`, `%@`, `%{public}s`, `%.2f`, …), written as the device's log shows
/// it to the developer (`%{private}@` as `<private>`; a specifier with no argument as Apple's
/// `<decode: missing data>`). `dso` is accepted and ignored.
public func os_log(
    _ message: StaticString, dso: UnsafeRawPointer? = #dsohandle, log: OSLog = .default, type: OSLogType = .default, _ args: any CVarArg...
) {
    Logger(log).write(level: type, OSLogFormat.render(message.description, args))
}

/// The same, the level first: `os_log(.error, log: log, "failed: %@", error.localizedDescription)`.
public func os_log(_ type: OSLogType, dso: UnsafeRawPointer = #dsohandle, log: OSLog = .default, _ message: StaticString, _ args: any CVarArg...) {
    Logger(log).write(level: type, OSLogFormat.render(message.description, args))
}

/// Writes an interpolated message (as `Logger`'s) to the default log.
@_disfavoredOverload
public func os_log(_ message: OSLogMessage) {
    Logger(OSLog.default).log(level: .default, message)
}

/// Writes an interpolated message (as `Logger`'s) to `logObject` at `logLevel`: `os_log(.debug, log: log, "…\(x)")`.
@_disfavoredOverload
public func os_log(_ logLevel: OSLogType = .default, log logObject: OSLog = .default, _ message: OSLogMessage) {
    Logger(logObject).log(level: logLevel, message)
}
