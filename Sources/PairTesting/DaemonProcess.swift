import Foundation
import Posix

/// Where the built binaries are: `RUNWAY_BIN_DIR`, else next to the running executable (the test
/// runner and `runway-chaos` live in the same build directory as the daemons).
package enum Binaries {
    package static let directory: String = {
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

    package static func path(_ name: String) -> String { directory + "/" + name }
}

/// A fresh directory with a short path (socket paths must fit in 107 bytes), in `base` (`$TMPDIR` when
/// short enough, else /tmp: `TestDirectories.base`).
package func makeScratchDirectory(_ tag: String, in base: String = TestDirectories.base) -> String {
    do {
        return try Filesystem.makeTemporaryDirectory(in: base, prefix: "rw-\(tag)-")
    } catch {
        fatalError("mkdtemp failed: \(error)")
    }
}

package struct HarnessError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// A daemon started as a real process (a `ChildProcess`): waits for its `ready` line, is killed with
/// real signals. Its stderr (the structured log) goes to a file, so a chatty daemon never blocks on a
/// full pipe.
package final class DaemonProcess {
    package let name: String
    package let logPath: String
    private let process: ChildProcess

    /// Starts `binary` with `arguments` and waits (up to `timeout` seconds) for `ready` on its stdout.
    package init(
        _ binary: String, _ arguments: [String], logPath: String, environment: [String: String] = [:],
        timeout: Double = 30
    ) throws {
        name = binary
        self.logPath = logPath
        process = try ChildProcess(
            binary, arguments, stdout: .pipe, stderr: .file(logPath, append: true),
            environment: Self.environment(environment), removing: ["RUNWAY_CRASH_AT"])
        try process.waitForLine("ready", timeout: timeout) { "log: \(self.logTail())" }
    }

    /// What a daemon is started with besides this process's environment: `environment`, and the
    /// allocator's settings `runway up` gives a daemon (`FreeMemory.daemonTunables`) unless `environment`
    /// or this process's sets GLIBC_TUNABLES.
    package static func environment(_ environment: [String: String]) -> [String: String] {
        guard environment["GLIBC_TUNABLES"] == nil, ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] == nil else { return environment }
        return environment.merging(["GLIBC_TUNABLES": FreeMemory.daemonTunables]) { $1 }
    }

    package var pid: Int32 { process.pid }
    package var isRunning: Bool { process.isRunning }
    /// Whether the harness signalled it (as opposed to the process dying by itself).
    package private(set) var wasKilled = false

    /// Sends `signal` (SIGKILL by default) and waits for the process to go.
    package func kill(_ signal: Int32 = SIGKILL) {
        guard process.isRunning else { return }
        wasKilled = true
        process.kill(signal)
    }

    /// Sends `signal` and returns at once, without waiting for the process to go — as a supervisor
    /// that relaunches the moment it has signalled.
    package func signal(_ signal: Int32) {
        guard process.isRunning else { return }
        wasKilled = true
        process.signal(signal)
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace` seconds; returns the exit status.
    @discardableResult
    package func stop(grace: Double = 10) -> Int32 {
        if process.isRunning { wasKilled = true }
        return process.stop(grace: grace)
    }

    /// Waits for the process to exit by itself (a crash point); false on timeout.
    package func waitForExit(timeout: Double) -> Bool { process.waitForExit(timeout: timeout) }

    package var terminationSignal: Int32? { process.terminationSignal }

    package func logTail(_ lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}

/// The result of one `runway` invocation.
package struct CommandResult: Sendable {
    package let status: Int32
    package let stdout: String
    package let stderr: String
    /// The signal that ended it, if one did (then `status` is that signal's number).
    package var signal: Int32? = nil
}

/// Runs the real `runway` CLI (or another built binary) to completion. Output goes through files,
/// never pipes, so a large logbook cannot deadlock it. `environment` is added to the test's own;
/// `terminalInput` is typed on a pseudo-terminal that is the tool's stdin (for prompts that need one).
package func runTool(
    _ arguments: [String], binary: String = "runway", stdin: String? = nil,
    environment: [String: String] = [:], terminalInput: String? = nil
) throws -> CommandResult {
    try RunningTool(arguments, binary: binary, stdin: stdin, environment: environment, terminalInput: terminalInput).wait()
}

/// A built binary started without waiting for it (a `ChildProcess`): the chaos script records on the
/// watch while it kills daemons. Its output goes to files in a scratch directory, removed once it has
/// been read.
package final class RunningTool {
    private let process: ChildProcess
    private let scratch: String
    private var result: CommandResult?
    /// Kept open until the tool has exited.
    private var terminal: PseudoTerminal?

    package init(
        _ arguments: [String], binary: String = "runway", stdin: String? = nil,
        environment: [String: String] = [:], terminalInput: String? = nil
    ) throws {
        scratch = makeScratchDirectory("cmd")
        var input = ChildProcess.Input.null
        if let terminalInput {
            let terminal = try PseudoTerminal()
            terminal.type(terminalInput)
            input = .descriptor(terminal.terminal.rawValue)
            self.terminal = terminal
        } else if let stdin {
            let inPath = scratch + "/in"
            _ = FileManager.default.createFile(atPath: inPath, contents: Data(stdin.utf8))
            input = .file(inPath)
        }
        // A registry of pairs of its own (`runway pair` records there), thrown away with the scratch
        // directory: tests never see each other's pairs, nor the user's.
        do {
            process = try ChildProcess(
                binary, arguments, stdin: input, stdout: .file(scratch + "/out"),
                stderr: .file(scratch + "/err"),
                environment: ["RUNWAY_STATE_DIR": scratch + "/state"].merging(environment) { $1 })
        } catch {
            try? FileManager.default.removeItem(atPath: scratch)
            throw error
        }
    }

    package var isRunning: Bool { process.isRunning }

    /// Sends `signal` (a tool that must be stopped, such as an attached `runway phone ui`).
    package func signal(_ signal: Int32) { process.signal(signal) }

    /// The output so far, while it runs.
    package var stdoutSoFar: String { (try? String(contentsOfFile: scratch + "/out", encoding: .utf8)) ?? "" }
    package var stderrSoFar: String { (try? String(contentsOfFile: scratch + "/err", encoding: .utf8)) ?? "" }

    /// Waits up to `timeout` seconds for the tool to exit and returns what it printed; nil, after
    /// SIGKILL, if it was still running (a daemon that should have refused to start, a CLI that hangs).
    package func wait(timeout: Double) -> CommandResult? {
        guard process.waitForExit(timeout: timeout) else {
            process.kill(SIGKILL)
            _ = wait()
            return nil
        }
        return wait()
    }

    /// Waits for the tool to exit and returns what it printed.
    package func wait() -> CommandResult {
        if let result { return result }
        process.wait()
        terminal = nil
        let finished = CommandResult(
            status: process.status,
            stdout: (try? String(contentsOfFile: scratch + "/out", encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: scratch + "/err", encoding: .utf8)) ?? "",
            signal: process.terminationSignal)
        try? FileManager.default.removeItem(atPath: scratch)
        result = finished
        return finished
    }

    deinit {
        process.signal(SIGKILL)
        _ = wait()
    }
}
