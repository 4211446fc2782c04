import Connectivity
import Control
import Posix

/// Starts a daemon detached from the terminal (`setsid`), and stops one: `runway up` and `down`.
///
/// `runway up` may be run by several shells at once for one pair. Each home is started by one `up` at a
/// time (`HOME/up.lock`, waited for): the first starts the daemon and waits for it to be ready; the others,
/// let in after it, find it running and say so, with its pid. Readiness comes only from the daemon this
/// `up` started: it is given a notify socket of this `up`'s own (`NOTIFY_SOCKET=HOME/up-notify.sock`, the
/// sd_notify protocol), and only a `READY=1` carrying its own pid (`MAINPID`) counts — never a file other
/// launches write too. A daemon that stops before it is ready says why on the same socket (`STATUS=`, the
/// line it printed), and that is what `up` reports: never another process's line from the shared log.
/// `up` signals only the process it started (a start that never gets ready, after 30 s).
enum Launcher {
    enum Outcome {
        case started(Int32)
        /// Another `up`, or someone by hand, got there first.
        case alreadyRunning(binary: String, pid: Int32?)
    }

    /// Starts `binary --home HOME ARGUMENTS…` (next to this `runway`) unless `running` names what already
    /// serves the home, holding the home's start lock throughout; waits up to 30 s for the new daemon's
    /// readiness.
    static func up(
        _ binary: String, home: DeviceHome, arguments: [String] = [], running: () -> (binary: String, pid: Int32?)?
    ) throws -> Outcome {
        try Filesystem.makeDirectory(home.path, mode: 0o700)
        let lock: FileLock
        do {
            lock = try FileLock(path: home.path + "/up.lock", waitingUpTo: 60_000)
        } catch {
            throw ControlError("another runway up has been starting \(home.path) for over a minute (\(error))")
        }
        defer { lock.unlock() }
        if let (binary, pid) = running() { return .alreadyRunning(binary: binary, pid: pid) }
        let pid: Int32
        do {
            pid = try start(binary, home: home, arguments: arguments)
        } catch let failure as StartFailure {
            // Someone else's daemon (started by hand) took the home first: ours stopped, theirs serves it.
            if let (binary, pid) = running() { return .alreadyRunning(binary: binary, pid: pid) }
            throw ControlError(failure.description)
        }
        return .started(pid)
    }

    struct StartFailure: Error, CustomStringConvertible { let description: String }

    /// Starts the daemon — stdin `/dev/null`, stdout discarded, its log appended to `HOME/daemon.log` —
    /// and waits for its `READY=1` on a notify socket of our own. Returns its pid.
    private static func start(_ binary: String, home: DeviceHome, arguments: [String]) throws -> Int32 {
        let executable = Processes.sibling(binary)
        let logPath = home.path + "/daemon.log"
        let notify: NotifySocket
        do {
            notify = try NotifySocket(path: home.path + "/up-notify.sock")
        } catch {
            throw ControlError("cannot make \(home.path)/up-notify.sock to hear \(binary) get ready: \(error)")
        }
        defer { notify.close() }
        var spawn = Spawn(
            executable, arguments: [executable, "--home", home.path] + arguments,
            environment: FreeMemory.daemonEnvironment(
                Spawn.currentEnvironment(removing: ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "RUNWAY_OS_PID"])
                    + ["NOTIFY_SOCKET=\(notify.path)"]))
        spawn.actions = [
            .open(0, path: "/dev/null", flags: O_RDONLY, mode: 0),
            .open(1, path: "/dev/null", flags: O_WRONLY, mode: 0),
            .open(2, path: logPath, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600),
        ]
        // Nothing else of ours is inherited: a daemon holding our parent's pipe open would keep whoever
        // waits for `runway up` to finish waiting for the daemon instead.
        spawn.closeInheritedDescriptors = true
        spawn.defaultSignals = []
        // A session of its own, so closing this terminal leaves it running.
        spawn.newSession = true
        let pid: pid_t
        do throws(SystemError) {
            pid = try spawn.run()
        } catch {
            throw ControlError("cannot start \(executable): \(String(cString: strerror(error.errno)))")
        }
        var said: String?
        /// What the daemon told us: ready, or (before it stops) why not. Only its own datagrams count.
        func listen() -> Bool {
            for lines in notify.receive() where lines.contains("MAINPID=\(pid)") {
                if let status = lines.first(where: { $0.hasPrefix("STATUS=") }) { said = String(status.dropFirst("STATUS=".count)) }
                if lines.contains("READY=1") { return true }
            }
            return false
        }
        let deadline = SystemClock.now() + 30_000_000_000
        while SystemClock.now() < deadline {
            if notify.wait(milliseconds: 20), listen() { return pid }
            if case .exited(let status) = ProcessStop.reap(pid, block: false) {
                _ = listen()  // its last words may have come with its exit
                let how = (status & 0x7f) != 0 ? "was killed by signal \(status & 0x7f)" : "exited with status \((status >> 8) & 0xff)"
                throw StartFailure(
                    description: "\(binary) for \(home.path) \(how) before it was ready: " + (said ?? "it said nothing; see \(logPath)"))
            }
        }
        // Ours, and never ready: stopped, so that no half-started daemon is left holding the home.
        ProcessStop.signal(pid, SIGKILL)
        _ = ProcessStop.reap(pid, block: true)
        throw ControlError("\(binary) for \(home.path) did not say ready within 30 s (stopped); see \(logPath)")
    }

    /// SIGTERM, then waits (up to 15 s) for the process to go; SIGKILL if it does not. Returns which.
    /// (`ProcessStop`: reaped if it is our child; a daemon an earlier `up` started is gone once its pid is.)
    static func stop(_ pid: Int32) -> String {
        ProcessStop.stop(pid, grace: 15).killed ? "SIGKILL after 15 s" : "SIGTERM"
    }
}
