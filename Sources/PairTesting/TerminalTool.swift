import Foundation
import Posix

/// A built binary run on a pseudo-terminal of a given size — stdin, stdout and stderr all the terminal —
/// as a person runs `runway top` or `runway phone ui`. Everything it writes is read on a thread of its own
/// (a full terminal would block it) and can be replayed into a `ScreenEmulator`.
package final class TerminalTool: @unchecked Sendable {
    private let process = Process()
    private let terminal: PseudoTerminal
    package let columns: Int, rows: Int
    private let shared = Shared()
    private var readerStopped = false

    /// What the reading thread and the test share (the thread holds this, not the tool, so the tool can go).
    final class Shared: @unchecked Sendable {
        let lock = NSLock()
        var output: [UInt8] = []
        /// Stop at the next moment nothing is left to read.
        var stopWhenIdle = false
        let done = DispatchSemaphore(value: 0)
    }

    package init(
        _ arguments: [String], binary: String = "runway", columns: Int = 100, rows: Int = 40,
        environment: [String: String] = [:]
    ) throws {
        self.columns = columns
        self.rows = rows
        terminal = try PseudoTerminal()
        try terminal.setWindowSize(rows: rows, columns: columns)
        process.executableURL = URL(fileURLWithPath: binary.hasPrefix("/") ? binary : Binaries.path(binary))
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm-256color"
        env["LANG"] = "C.UTF-8"
        env["LC_ALL"] = ""
        process.environment = env.merging(environment) { $1 }
        let handle = FileHandle(fileDescriptor: terminal.terminal.rawValue, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let terminal = self.terminal, shared = self.shared
        Thread {
            while let bytes = terminal.output(waitingUpTo: 50) {
                if bytes.isEmpty {
                    if shared.lock.withLock({ shared.stopWhenIdle }) { break }
                    continue
                }
                shared.lock.withLock { shared.output.append(contentsOf: bytes) }
            }
            shared.done.signal()
        }.start()
    }

    package var isRunning: Bool { process.isRunning }
    package var pid: Int32 { process.processIdentifier }

    /// Everything written to the terminal so far.
    package var rawOutput: String { shared.lock.withLock { String(decoding: shared.output, as: UTF8.self) } }

    /// The screen as a terminal of this size would show it now.
    package var screen: ScreenEmulator {
        var emulator = ScreenEmulator(columns: columns, rows: rows)
        emulator.feed(rawOutput)
        return emulator
    }

    /// Types `text` at the terminal, as a person at the keyboard (`"\t"` is the Tab key, `"\u{15}"` Ctrl-U).
    package func type(_ text: String) { terminal.type(text) }

    package func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Polls until `condition` holds for the screen, or throws after `timeout` seconds (a deadline only).
    package func waitForScreen(_ what: String, timeout: Double = 60, _ condition: (ScreenEmulator) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(screen) { return }
            if !process.isRunning {
                usleep(100_000)
                if condition(screen) { return }
                throw HarnessError("the tool exited (\(process.terminationStatus)) before \(what); screen:\n\(screen.text)")
            }
            usleep(50_000)
        }
        throw HarnessError("timed out after \(timeout) s waiting for \(what); screen:\n\(screen.text)")
    }

    /// Waits for it to exit (SIGKILL after `timeout` seconds) and returns its exit status, then stops reading
    /// once what it wrote last has been read.
    @discardableResult
    package func wait(timeout: Double = 30) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        // The reader stops once the terminal has nothing left: what the tool wrote last is read.
        if !readerStopped {
            shared.lock.withLock { shared.stopWhenIdle = true }
            shared.done.wait()
            readerStopped = true
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        if !readerStopped {
            shared.lock.withLock { shared.stopWhenIdle = true }
            shared.done.wait()
        }
    }
}
