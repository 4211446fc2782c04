import Foundation
import Posix

/// Apple's unified-logging `Logger`, writing to the app's stderr in the device's log format (the
/// `key=value` lines of `daemon.log`, beside the session's own):
///
///     ts=2026-12-05T02:10:00.123Z level=info component=app event=os.log subsystem=com.example.water category=session type=info message="activated"
///
/// The level follows the message's type (`default` is `notice`, `fault` is `error`, with `type=` saying
/// which). Debug messages are written too: on a simulated device you are always "attached". On a device,
/// each message is also in its delegate trace (`runway phone events`, call `os.log`).
public struct Logger: Sendable {
    public let subsystem: String
    public let category: String
    private let output: Posix.Logger
    private let isDisabled: Bool

    /// A logger for messages about `category` of `subsystem` (by convention, the app's bundle identifier).
    public init(subsystem: String, category: String) {
        self.init(subsystem: subsystem, category: category, descriptor: 2)
    }

    /// The default logger: no subsystem, no category.
    public init() { self.init(subsystem: "", category: "") }

    /// A logger that writes with `logObj`'s subsystem and category.
    /// (`OSLog.disabled`'s logger writes nothing.)
    public init(_ logObj: OSLog) { self.init(log: logObj, descriptor: 2) }

    /// A logger writing to `descriptor` (the tests read its lines from a pipe).
    init(subsystem: String, category: String, descriptor: Int32) {
        self.init(log: OSLog(subsystem: subsystem, category: category), descriptor: descriptor)
    }

    init(log: OSLog, descriptor: Int32) {
        subsystem = log.subsystem
        category = log.category
        isDisabled = log.isDisabled
        output = Posix.Logger(component: "app", minimumLevel: .debug, descriptor: descriptor)
    }

    public func log(_ message: OSLogMessage) { log(level: .default, message) }

    public func log(level: OSLogType, _ message: OSLogMessage) { write(level: level, message.rendered) }

    /// One line in the device's format and one message in its trace (`os_log`'s too).
    func write(level: OSLogType, _ text: String) {
        guard !isDisabled else { return }
        var fields: [(key: String, value: String)] = []
        if !subsystem.isEmpty { fields.append(("subsystem", subsystem)) }
        if !category.isEmpty { fields.append(("category", category)) }
        fields.append(("type", level.name))
        fields.append(("message", text))
        output.log(level.posixLevel, "os.log", fields: fields)
        AppLogTap.send(AppLogTap.Message(type: level.name, subsystem: subsystem, category: category, text: text))
    }

    public func trace(_ message: OSLogMessage) { log(level: .debug, message) }
    public func debug(_ message: OSLogMessage) { log(level: .debug, message) }
    public func info(_ message: OSLogMessage) { log(level: .info, message) }
    public func notice(_ message: OSLogMessage) { log(level: .default, message) }
    public func warning(_ message: OSLogMessage) { log(level: .error, message) }
    public func error(_ message: OSLogMessage) { log(level: .error, message) }
    public func critical(_ message: OSLogMessage) { log(level: .fault, message) }
    public func fault(_ message: OSLogMessage) { log(level: .fault, message) }
}
