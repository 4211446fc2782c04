import Foundation
import Glibc

/// Where the built binaries are: `RUNWAY_BIN_DIR`, else next to the running executable (the test
/// runner and `runway-chaos` live in the same build directory as the daemons).
public enum Binaries {
    public static let directory: String = {
        if let explicit = ProcessInfo.processInfo.environment["RUNWAY_BIN_DIR"] { return explicit }
        var candidates: [String] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.path)
            directory = directory.deletingLastPathComponent()
        }
        candidates.append(FileManager.default.currentDirectoryPath + "/.build/debug")
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/phone-daemon") } ?? candidates.last!
    }()

    public static func path(_ name: String) -> String { directory + "/" + name }
}

/// A fresh directory with a short path (socket paths must fit in 107 bytes).
public func makeScratchDirectory(_ tag: String) -> String {
    // mkdtemp replaces the trailing six X's with a unique suffix.
    var template = Array(("/tmp/rw-\(tag)-" + String(repeating: "X", count: 6)).utf8CString)
    guard let pointer = mkdtemp(&template) else { fatalError("mkdtemp failed: \(errno)") }
    return String(cString: pointer)
}

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A daemon started as a real process: waits for its `ready` line, is killed with real signals.
/// Its stderr (the structured log) goes to a file, so a chatty daemon never blocks on a full pipe.
public final class DaemonProcess {
    public let name: String
    public let logPath: String
    private let process = Process()
    private let stdout = Pipe()

    /// Starts `binary` with `arguments` and waits (up to `timeout` seconds) for `ready` on its stdout.
    public init(_ binary: String, _ arguments: [String], logPath: String, environment: [String: String] = [:],
                timeout: Double = 30) throws {
        name = binary
        self.logPath = logPath
        if !FileManager.default.fileExists(atPath: logPath) {
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.executableURL = URL(fileURLWithPath: binary.hasPrefix("/") ? binary : Binaries.path(binary))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "RUNWAY_CRASH_AT")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = stdout
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try log.close()
        try waitForReady(timeout: timeout)
    }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }
    /// Whether the harness signalled it (as opposed to the process dying by itself).
    public private(set) var wasKilled = false

    private func waitForReady(timeout: Double) throws {
        let fd = stdout.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(timeout)
        var line: [UInt8] = []
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            if n <= 0 {
                process.waitUntilExit()
                throw HarnessError("\(name) exited (status \(process.terminationStatus)) before it was ready; log: \(logTail())")
            }
            if byte == 0x0A {
                if line == Array("ready".utf8) { return }
                line.removeAll()
            } else {
                line.append(byte)
            }
        }
        kill(SIGKILL)
        throw HarnessError("\(name) was not ready within \(timeout) s; log: \(logTail())")
    }

    /// Sends `signal` (SIGKILL by default) and waits for the process to go.
    public func kill(_ signal: Int32 = SIGKILL) {
        guard process.isRunning else { return }
        wasKilled = true
        Glibc.kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace` seconds; returns the exit status.
    @discardableResult
    public func stop(grace: Double = 10) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        wasKilled = true
        Glibc.kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits for the process to exit by itself (a crash point); false on timeout.
    public func waitForExit(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if !process.isRunning { process.waitUntilExit() }
        return !process.isRunning
    }

    public var terminationSignal: Int32? {
        guard !process.isRunning, process.terminationReason == .uncaughtSignal else { return nil }
        return process.terminationStatus
    }

    public func logTail(_ lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    deinit {
        if process.isRunning { kill(SIGKILL) }
    }
}

/// The result of one `runway` invocation.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// The signal that ended it, if one did (then `status` is that signal's number).
    public var signal: Int32? = nil
}

/// Runs the real `runway` CLI (or another built binary) to completion. Output goes through files,
/// never pipes, so a large logbook cannot deadlock it. `environment` is added to the test's own;
/// `terminalInput` is typed on a pseudo-terminal that is the tool's stdin (for prompts that need one).
public func runTool(_ arguments: [String], binary: String = "runway", stdin: String? = nil,
                    environment: [String: String] = [:], terminalInput: String? = nil) throws -> CommandResult {
    try RunningTool(arguments, binary: binary, stdin: stdin, environment: environment, terminalInput: terminalInput).wait()
}

/// A built binary started without waiting for it: the chaos script records on the watch while it
/// kills daemons. Its output goes to files in a scratch directory, removed once it has been read.
public final class RunningTool {
    private let process = Process()
    private let scratch: String
    private var result: CommandResult?
    /// Kept open until the tool has exited.
    private var terminal: PseudoTerminal?

    public init(_ arguments: [String], binary: String = "runway", stdin: String? = nil,
                environment: [String: String] = [:], terminalInput: String? = nil) throws {
        scratch = makeScratchDirectory("cmd")
        let outPath = scratch + "/out", errPath = scratch + "/err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: binary.hasPrefix("/") ? binary : Binaries.path(binary))
        process.arguments = arguments
        // A registry of pairs of its own (`runway pair` records there), thrown away with the scratch
        // directory: tests never see each other's pairs, nor the user's.
        var env = ProcessInfo.processInfo.environment
        env["RUNWAY_STATE_DIR"] = scratch + "/state"
        process.environment = env.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        if let terminalInput {
            let terminal = try PseudoTerminal()
            terminal.type(terminalInput)
            process.standardInput = terminal.terminal
            self.terminal = terminal
        } else if let stdin {
            let inPath = scratch + "/in"
            _ = FileManager.default.createFile(atPath: inPath, contents: Data(stdin.utf8))
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: scratch)
            throw error
        }
    }

    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (a tool that must be stopped, such as an attached `runway phone ui`).
    public func signal(_ signal: Int32) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    /// The output so far, while it runs.
    public var stdoutSoFar: String { (try? String(contentsOfFile: scratch + "/out", encoding: .utf8)) ?? "" }

    /// Waits for the tool to exit and returns what it printed.
    public func wait() -> CommandResult {
        if let result { return result }
        process.waitUntilExit()
        terminal = nil
        let finished = CommandResult(
            status: process.terminationStatus,
            stdout: (try? String(contentsOfFile: scratch + "/out", encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: scratch + "/err", encoding: .utf8)) ?? "",
            signal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil)
        try? FileManager.default.removeItem(atPath: scratch)
        result = finished
        return finished
    }

    deinit {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        _ = wait()
    }
}
