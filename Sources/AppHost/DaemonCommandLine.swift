import Connectivity
import Control
import Posix

/// What every device program's command line shares (`phone-daemon`, `watch-agent`, `phone-os`, an app
/// built on `WatchConnectivity`): the log options, the test-commands switch, `--version`, and the exit
/// statuses of a failed start (2 for bad usage or a home that can never work, 1 for a failure).
package enum DaemonCommandLine {
    package static let logLevels: [String: Logger.Level] = [
        "debug": .debug, "info": .info, "notice": .notice, "warning": .warning, "error": .error,
    ]

    package static let testCommandsSpec = ArgumentSpec.flag(
        "enable-test-commands", "TEST ONLY: accept fault-injection control commands (store-limit)", hidden: true)

    package static func printVersion(_ tool: String) -> Int32 {
        let line = Array("\(tool) \(RunWayPair.version) (RunWay Pair; simulates RunWay \(RunWayPair.appVersion))\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        return 0
    }

    package static let logFormatSpec = ArgumentSpec.option("log-format", "FORMAT", "logfmt (default: key=value lines) or json (one object per line)")

    package static let logRepeatSpec = ArgumentSpec.option(
        "log-repeat-interval-ms", "MS", "TEST: write a repeated identical error at most once per MS (default 60000)", hidden: true)

    /// The log level, and (the same moment, before any logger exists) the log format and how often a
    /// repeated error is written.
    package static func logLevel(_ parsed: ParsedArguments) throws(UsageError) -> Logger.Level {
        if let text = parsed.value("log-repeat-interval-ms") {
            guard let ms = UInt64(text), (1...3_600_000).contains(ms) else {
                throw UsageError("--log-repeat-interval-ms must be a whole number from 1 to 3600000, not \(OneLine.quote(text))")
            }
            Logger.defaultRepeatIntervalMilliseconds = ms
        }
        if let name = parsed.value("log-format") {
            guard let format = Logger.Format(rawValue: name) else { throw UsageError("--log-format must be logfmt or json, not \(OneLine.quote(name))") }
            Logger.defaultFormat = format
        }
        guard let name = parsed.value("log-level") else { return .info }
        guard let level = logLevels[name] else { throw UsageError("--log-level must be debug, info, notice, warning or error, not \(OneLine.quote(name))") }
        return level
    }

    /// A usage error: the one line, then where the help is — not the whole usage text.
    package static func usageFailure(_ tool: String, _ error: UsageError) -> Int32 {
        writeError("\(tool): \(error.message)\ntry '\(tool) --help'\n")
        return 2
    }

    /// A home that is not a directory, the other device's home, or one whose sockets would not fit
    /// `sun_path` is invalid input (2); a damaged store is a failure to start (1).
    package static func invalidHome(_ tool: String, _ error: DeviceHome.HomeError) -> Int32 {
        writeError("\(tool): \(error)\n")
        switch error {
        case .unhealthyStore, .storeLost: return 1
        default: break
        }
        return 2
    }

    package static func startFailure(_ tool: String, _ error: Error) -> Int32 {
        writeError("\(tool): \(error)\n")
        return 1
    }

    /// A daemon that could not start, whatever stopped it: bad usage or a bad home is exit 2 (a damaged
    /// store 1), anything else exit 1; one line each.
    package static func failure(_ tool: String, _ error: Error) -> Int32 {
        switch error {
        case let error as UsageError: usageFailure(tool, error)
        case let error as DeviceHome.HomeError: invalidHome(tool, error)
        default: startFailure(tool, error)
        }
    }

    /// Also says the first line to whoever started the program, if it asked (`NOTIFY_SOCKET`: `runway up`
    /// reports the daemon's own words, never a line of a log others write too).
    package static func writeError(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        ServiceNotifier.notify("STATUS=\(line)\nMAINPID=\(getpid())")
    }

    /// `PROGRAM __complete WORD…`, for the shells' completion (`runway completion`): the options not
    /// given yet and the values they take. nil if not asked.
    package static func complete(_ arguments: [String], _ specs: [ArgumentSpec], values: [String: ArgumentCompletion.Values]) -> Int32? {
        guard arguments.first == "__complete" else { return nil }
        let bytes = Array((ArgumentCompletion.answer(Array(arguments.dropFirst()), specs: specs, values: values) + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        return 0
    }
}
