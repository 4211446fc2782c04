import Foundation
import Posix

/// The harness's one launcher: a built binary (or a system tool) started with `Spawn` — signal mask
/// emptied, SIGPIPE at its default, nothing of the test runner's inherited but stdin, stdout and
/// stderr — and reaped by `waitpid` here. `DaemonProcess`, `RunningTool`, `runUntilExit` and the tests'
/// own UI processes are this with their options.
package final class ChildProcess: @unchecked Sendable {
    /// Where the child's stdin comes from.
    package enum Input {
        case null
        case file(String)
        /// A terminal's descriptor (a `PseudoTerminal`'s), kept open by the caller until the child exits.
        case descriptor(Int32)
    }

    /// Where the child's stdout or stderr goes.
    package enum Output {
        case null
        /// Created if missing; appended to, or truncated first.
        case file(String, append: Bool = false)
        /// A pipe this side reads (`waitForLine`, `outputDescriptor`): stdout only.
        case pipe
    }

    package let name: String
    package let pid: pid_t
    /// The read end of the stdout pipe, when stdout is `.pipe`.
    package let outputDescriptor: Int32?
    private let lock = NSLock()
    /// The raw `waitpid` status, once reaped.
    private var rawStatus: Int32?

    /// Starts `binary` (one of ours by name, or an absolute path) with `arguments`. The environment is
    /// this process's without the `removing` names, with `environment` added over it.
    package init(
        _ binary: String, _ arguments: [String], stdin: Input = .null, stdout: Output = .null,
        stderr: Output = .null, environment: [String: String] = [:], removing: Set<String> = []
    ) throws {
        name = binary
        let executable = binary.hasPrefix("/") ? binary : Binaries.path(binary)
        var spawn = Spawn(
            executable, arguments: [executable] + arguments,
            environment: Spawn.currentEnvironment(removing: removing.union(environment.keys))
                + environment.map { "\($0.key)=\($0.value)" })
        spawn.closeInheritedDescriptors = true
        switch stdin {
        case .null: spawn.actions.append(.open(0, path: "/dev/null", flags: O_RDONLY, mode: 0))
        case .file(let path): spawn.actions.append(.open(0, path: path, flags: O_RDONLY, mode: 0))
        case .descriptor(let descriptor): spawn.actions.append(.duplicate(descriptor, to: 0))
        }
        var pipeEnds: [Int32] = [-1, -1]
        for (target, output) in [(Int32(1), stdout), (2, stderr)] {
            switch output {
            case .null: spawn.actions.append(.open(target, path: "/dev/null", flags: O_WRONLY, mode: 0))
            case .file(let path, let append):
                spawn.actions.append(.open(target, path: path, flags: O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), mode: 0o600))
            case .pipe:
                // Close-on-exec at once: other tests spawn meanwhile.
                guard target == 1, let ends = try? FileDescriptor.pipe() else { throw HarnessError("\(binary): no pipe for fd \(target)") }
                pipeEnds = [ends.read.release(), ends.write.release()]
                spawn.actions.append(.duplicate(pipeEnds[1], to: 1))
            }
        }
        do {
            pid = try spawn.run()
        } catch {
            if pipeEnds[0] >= 0 { close(pipeEnds[0]); close(pipeEnds[1]) }
            throw HarnessError("cannot start \(binary): \(error)")
        }
        if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
        outputDescriptor = pipeEnds[0] >= 0 ? pipeEnds[0] : nil
    }

    // MARK: - Waiting and reaping

    /// Reaps the child if it has exited (`block`: waits for it to); true once it is reaped.
    @discardableResult
    private func reap(block: Bool) -> Bool {
        lock.withLock {
            if rawStatus != nil { return true }
            guard case .exited(let status) = ProcessStop.reap(pid, block: block) else { return false }
            rawStatus = status
            return true
        }
    }

    package var isRunning: Bool { !reap(block: false) }

    /// Waits for the child to exit; returns its exit status, or the number of the signal that ended it.
    @discardableResult
    package func wait() -> Int32 {
        reap(block: true)
        return status
    }

    /// Waits up to `timeout` seconds for the child to exit by itself; false if it is still running.
    package func waitForExit(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning {
            guard Date() < deadline else { return false }
            usleep(5_000)
        }
        return true
    }

    /// The exit status, or the signal's number if one ended it (-1 while it runs).
    package var status: Int32 {
        guard let raw = lock.withLock({ rawStatus }) else { return -1 }
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    /// The signal that ended it, if one did.
    package var terminationSignal: Int32? {
        guard let raw = lock.withLock({ rawStatus }), raw & 0x7f != 0 else { return nil }
        return raw & 0x7f
    }

    // MARK: - Signals

    /// Sends `signal` if the child is still running; does not wait.
    package func signal(_ signal: Int32) {
        if isRunning { ProcessStop.signal(pid, signal) }
    }

    /// Sends `signal` (SIGKILL by default) and waits for the child to go.
    package func kill(_ signal: Int32 = SIGKILL) {
        guard isRunning else { return }
        ProcessStop.signal(pid, signal)
        wait()
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace` seconds (`ProcessStop`: SIGCONT first
    /// if it is stopped); returns the exit status.
    @discardableResult
    package func stop(grace: Double = 10) -> Int32 {
        guard isRunning else { return status }
        if let raw = ProcessStop.stop(pid, grace: grace).rawStatus { lock.withLock { rawStatus = rawStatus ?? raw } }
        return wait()
    }

    // MARK: - Output

    /// Reads the stdout pipe until a line equal to `line` (never a fixed sleep). Throws if the child
    /// exits first, or — after SIGKILL — if `timeout` seconds pass; `context` adds to the message.
    package func waitForLine(_ line: String, timeout: Double, context: () -> String = { "" }) throws {
        guard let descriptor = outputDescriptor else { throw HarnessError("\(name): stdout is not a pipe") }
        let deadline = Date().addingTimeInterval(timeout)
        var current: [UInt8] = []
        while Date() < deadline {
            var pfd = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            if read(descriptor, &byte, 1) <= 0 {
                let status = wait()
                throw HarnessError("\(name) exited (status \(status)) before it said \(line); \(context())")
            }
            if byte == 0x0A {
                if current == Array(line.utf8) { return }
                current.removeAll()
            } else {
                current.append(byte)
            }
        }
        kill(SIGKILL)
        throw HarnessError("\(name) did not say \(line) within \(timeout) s; \(context())")
    }

    deinit {
        if isRunning {
            ProcessStop.signal(pid, SIGKILL)
            wait()
        }
        if let outputDescriptor { close(outputDescriptor) }
    }
}
