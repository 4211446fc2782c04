import Glibc
import Synchronization

/// Structured log lines on stderr, one `key=value` record per line (logfmt):
///
///     ts=2026-11-29T12:32:01.123Z level=info component=phone event=store.opened path=/tmp/p/store.sqlite
///
/// `event` is a stable dotted name that tests and scripts may match; the other fields are context.
/// Libraries take a `Logger` from their caller rather than making one.
package struct Logger: Sendable {
    package enum Level: Int, Sendable, Comparable {
        case debug, info, notice, warning, error
        package static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        var name: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .notice: "notice"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// How a line is written: `key=value` (logfmt, the default) or one JSON object per line.
    package enum Format: String, Sendable, CaseIterable {
        case logfmt
        case json
    }

    /// The format of loggers made from now on: a daemon sets it once, from `--log-format`, before it
    /// makes any logger or thread.
    nonisolated(unsafe) package static var defaultFormat: Format = .logfmt

    /// How long `repeating` holds back identical lines (`RepeatLimiter`): a daemon sets it once, from
    /// its hidden `--log-repeat-interval-ms` (tests), before it makes any logger.
    nonisolated(unsafe) package static var defaultRepeatIntervalMilliseconds: UInt64 = 60_000

    // Set by the memberwise initializer (this file's: `init(component:…)` below, and `with(component:)`).
    package let component: String
    package let minimumLevel: Level
    package let format: Format
    private let descriptor: Int32
    /// Shared by every copy of this logger (and `with(component:)`): one daemon, one count per line.
    private let repeats: RepeatState

    final class RepeatState: Sendable {
        let limiter: Mutex<RepeatLimiter>
        init(_ limiter: RepeatLimiter) { self.limiter = Mutex(limiter) }
    }

    /// A line that may repeat many times in a row (a refused handshake every second): identical lines
    /// (same level, event and fields) are written the first time, then at most once an interval with
    /// `repeated=N`, the number of occurrences that line stands for (`RepeatLimiter`).
    package func repeating(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) {
        guard level >= minimumLevel, descriptor >= 0 else { return }
        var key = "\(level.name) \(event)"
        for (name, value) in fields { key += " \(name)=\(value)" }
        let decision = repeats.limiter.withLock { $0.note(key, now: SystemClock.now()) }
        switch decision {
        case .write: log(level, event, fields)
        case .suppress: return
        case let .summary(count):
            var extended: [(String, CustomStringConvertible)] = fields.map { ($0.key, $0.value) }
            extended.append(("repeated", count))
            write(level, event, extended)
        }
    }

    /// A logger that writes nothing (tests of pure logic).
    package static let silent = Logger(component: "silent", minimumLevel: .error, descriptor: -1)

    package func with(component: String) -> Logger {
        Logger(component: component, minimumLevel: minimumLevel, format: format, descriptor: descriptor, repeats: repeats)
    }

    package func debug(_ event: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) { log(.debug, event, fields) }
    package func info(_ event: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) { log(.info, event, fields) }
    package func notice(_ event: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) { log(.notice, event, fields) }
    package func warning(_ event: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) { log(.warning, event, fields) }
    package func error(_ event: String, _ fields: KeyValuePairs<String, CustomStringConvertible> = [:]) { log(.error, event, fields) }

    package func log(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, CustomStringConvertible>) {
        guard level >= minimumLevel, descriptor >= 0 else { return }
        write(level, event, fields.map { ($0.key, $0.value) })
    }

    /// The same line, from fields gathered at run time (the session core's `LogLine`s).
    package func log(_ level: Level, _ event: String, fields: [(key: String, value: String)]) {
        guard level >= minimumLevel, descriptor >= 0 else { return }
        write(level, event, fields.map { ($0.key, $0.value) })
    }

    private func write(_ level: Level, _ event: String, _ fields: [(key: String, value: CustomStringConvertible)]) {
        var line: [UInt8] = []
        line.reserveCapacity(160)
        if format == .json {
            line.append(contentsOf: #"{"ts":""#.utf8)
            Timestamp.appendISO8601(wallClockSeconds(), milliseconds: true, to: &line)
            line.append(contentsOf: #"","level":""#.utf8)
            line.append(contentsOf: level.name.utf8)
            for (key, value) in [("component", component), ("event", event)] + fields.map({ ($0.key, $0.value.description) }) {
                line.append(contentsOf: #"",""#.utf8)
                Self.appendJSONString(key, to: &line)
                line.append(contentsOf: #"":""#.utf8)
                Self.appendJSONString(value, to: &line)
            }
            line.append(contentsOf: "\"}\n".utf8)
            _ = line.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            return
        }
        line.append(contentsOf: "ts=".utf8)
        Timestamp.appendISO8601(wallClockSeconds(), milliseconds: true, to: &line)
        line.append(contentsOf: " level=\(level.name) component=\(component) event=".utf8)
        Self.appendValue(event, to: &line)
        for (key, value) in fields {
            line.append(0x20)
            line.append(contentsOf: key.utf8)
            line.append(0x3D)
            Self.appendValue(value.description, to: &line)
        }
        line.append(0x0A)
        // One write per line: lines from concurrent processes sharing stderr do not interleave.
        _ = line.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The inside of a JSON string (no quotes): `"` and `\\` escaped, control characters as `\\u00XX`.
    static func appendJSONString(_ value: String, to line: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in value.utf8 {
            switch byte {
            case 0x22: line.append(contentsOf: [0x5C, 0x22])
            case 0x5C: line.append(contentsOf: [0x5C, 0x5C])
            case 0x00..<0x20: line.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: line.append(byte)
            }
        }
    }

    static func appendValue(_ value: String, to line: inout [UInt8]) {
        let needsQuotes = value.isEmpty || value.utf8.contains { $0 <= 0x20 || $0 == 0x22 || $0 == 0x3D || $0 == 0x5C }
        guard needsQuotes else { line.append(contentsOf: value.utf8); return }
        line.append(0x22)
        for byte in value.utf8 {
            switch byte {
            case 0x22: line.append(contentsOf: [0x5C, 0x22])
            case 0x5C: line.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: line.append(contentsOf: [0x5C, 0x6E])
            case 0x00..<0x20: line.append(0x20)
            default: line.append(byte)
            }
        }
        line.append(0x22)
    }
}

extension Logger {
    /// A logger for `component` writing lines of `minimumLevel` and above to `descriptor` (stderr; -1:
    /// nowhere), with a repeat limiter of its own.
    package init(component: String, minimumLevel: Level = .info, descriptor: Int32 = 2, format: Format = Logger.defaultFormat) {
        self.init(
            component: component, minimumLevel: minimumLevel, format: format, descriptor: descriptor,
            repeats: RepeatState(RepeatLimiter(intervalMilliseconds: Logger.defaultRepeatIntervalMilliseconds)))
    }
}
