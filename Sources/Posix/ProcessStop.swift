import Glibc

/// Stopping a process this program started, the one way: phone-os stopping its app, `runway down`
/// stopping the daemons an earlier `up` started, the test harness stopping its children. SIGCONT first
/// when it is stopped (a stopped process cannot act on SIGTERM: phone-os suspends its app with
/// SIGSTOP), SIGTERM, a deadline for it to go, SIGKILL, reaped. Every call goes through the
/// `systemCall` funnel (EINTR retried); a process already gone (ESRCH) is no error.
public enum ProcessStop {
    /// How a stop ended.
    public struct Outcome: Equatable, Sendable {
        /// The raw `waitpid` status, when it was reaped here (nil: not our child, or reaped elsewhere).
        public var rawStatus: Int32?
        /// SIGTERM was not enough: it was still there at the deadline and got SIGKILL.
        public var killed: Bool
    }

    /// What `waitpid` said of a process.
    public enum Reaped: Equatable, Sendable {
        case running
        /// Exited and reaped now: its raw status.
        case exited(Int32)
        /// ECHILD: not a child of ours, or reaped already.
        case notOurChild
    }

    /// Sends `signal` to `pid` (0 only asks whether it is there); false if it is gone (ESRCH), or is no
    /// longer one we may signal (EPERM: its pid now belongs to someone else's process).
    @discardableResult
    public static func signal(_ pid: pid_t, _ signal: Int32) -> Bool {
        guard pid > 0 else { return false }
        do {
            _ = try systemCall("kill(\(pid), \(signal))") { Glibc.kill(pid, signal) }
            return true
        } catch {
            return false
        }
    }

    /// `waitpid` for `pid` (`block`: until it exits), EINTR retried.
    public static func reap(_ pid: pid_t, block: Bool) -> Reaped {
        var status: Int32 = 0
        do {
            let result = try systemCall("waitpid(\(pid))") { waitpid(pid, &status, block ? 0 : WNOHANG) }
            return result == pid ? .exited(status) : .running
        } catch {
            return .notOurChild
        }
    }

    /// Whether `pid` is stopped (SIGSTOP, SIGTSTP; state `T` or `t` in /proc).
    public static func isStopped(_ pid: pid_t) -> Bool {
        guard let file = fopen("/proc/\(pid)/stat", "r") else { return false }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // pid (comm) state …: the command may hold spaces and parentheses, the state follows the last ')'.
        guard let close = line.lastIndex(of: ")") else { return false }
        let state = line[line.index(after: close)...].drop { $0 == " " }.first
        return state == "T" || state == "t"
    }

    /// Whether `pid` is gone or on its way out: no such process, a zombie (`Z`, `X`: its leader has
    /// exited while a thread of it may still be finishing its I/O, holding its locks), or SIGKILLed
    /// with the signal still pending (`ShdPnd`/`SigPnd` in /proc). Such a process takes no more work;
    /// what it holds goes when its last thread has.
    public static func isGoingAway(_ pid: pid_t) -> Bool {
        guard pid > 0 else { return false }
        guard let bytes = try? Filesystem.readFile("/proc/\(pid)/status") else { return !signal(pid, 0) }
        let killBit: UInt64 = 1 << UInt64(SIGKILL - 1)
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("State:") {
                let state = line.dropFirst(6).drop { $0 == " " || $0 == "\t" }.first
                if state == "Z" || state == "X" { return true }
            } else if line.hasPrefix("ShdPnd:") || line.hasPrefix("SigPnd:") {
                let hex = line.split { $0 == "\t" || $0 == " " }.last.map(String.init) ?? ""
                if let pending = UInt64(hex, radix: 16), pending & killBit != 0 { return true }
            }
        }
        return false
    }

    /// Whether `pid` has gone: reaped here if it is our child (its status into `reaped`); otherwise it
    /// is gone once no process has its pid.
    static func gone(_ pid: pid_t, reaped: inout Int32?) -> Bool {
        switch reap(pid, block: false) {
        case .exited(let status):
            reaped = status
            return true
        case .running: return false
        case .notOurChild: return !signal(pid, 0)
        }
    }

    /// Stops `pid`: SIGCONT if it is stopped, SIGTERM, up to `grace` seconds for it to go (looked at
    /// every 10 ms), then SIGKILL, and reaped if it is our child. Blocks the caller for as long.
    @discardableResult
    public static func stop(_ pid: pid_t, grace: Double) -> Outcome {
        var reaped: Int32?
        if isStopped(pid) { signal(pid, SIGCONT) }
        guard signal(pid, SIGTERM) else { return Outcome(rawStatus: nil, killed: false) }
        let deadline = SystemClock.now() + UInt64(max(0, grace) * 1_000_000_000)
        while !gone(pid, reaped: &reaped) {
            guard SystemClock.now() < deadline else {
                signal(pid, SIGKILL)
                if case .exited(let status) = reap(pid, block: true) { reaped = status }
                return Outcome(rawStatus: reaped, killed: true)
            }
            usleep(10_000)
        }
        return Outcome(rawStatus: reaped, killed: false)
    }
}
