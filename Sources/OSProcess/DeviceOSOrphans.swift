import AppHost
import Posix

// MARK: - An app left behind by an earlier OS of this home

extension DeviceOperatingSystem {
    /// The home is held by someone else at start-up. An app an earlier OS (phone-os, watch-os) of this home launched
    /// (orphaned, or still on its way out after its OS was SIGKILLed) is ours to reclaim; a process that is
    /// exiting — it has let go of its memory, so its environment reads empty, but not yet of its files —
    /// is waited for (2 s at most); a device daemon started by hand is refused.
    func takeHomeFromItsHolder() throws {
        var last: pid_t??
        for _ in 0..<200 {
            guard case let .some(holder) = FileLock.holder(ofDirectory: home.path, pidFile: home.lockPath) else { return }
            last = .some(holder)
            if let pid = holder {
                if isAppOfThisHome(pid) { return try reclaimOrphan(pid) }
                if !environment(of: pid).isEmpty { break }  // alive, and not an app of ours
            }
            usleep(10_000)
        }
        let holder = last.flatMap { $0 }
        throw Conflict(
            description:
                "\(home.path) is served by a \(home.role == .phone ? "phone-daemon" : "watch-agent") started by hand\(holder.map { " (process \($0))" } ?? ""): stop it first, \(programName) launches the app itself"
        )
    }

    /// The environment `pid` started with (`/proc/PID/environ`), empty when it cannot be read (no such
    /// process, or one exiting).
    func environment(of pid: pid_t) -> [UInt8] { Processes.startingEnvironment(of: pid) }

    /// Whether `pid` is an app that an OS of this home launched: its environment names this home's
    /// `os-notify.sock` as its `NOTIFY_SOCKET`, which only that OS sets (a daemon started by hand,
    /// or by systemd, has another or none). Read from `/proc/PID/environ`, the environment it started with.
    func isAppOfThisHome(_ pid: pid_t) -> Bool {
        let bytes = environment(of: pid)
        let wanted = Array("NOTIFY_SOCKET=\(PhoneActivation.osNotifyPath(home))".utf8)
        return bytes.split(separator: 0).contains { Array($0) == wanted }
    }

    /// Reclaims an app of this home that outlived the OS that launched it. We hold `HOME/os.lock`,
    /// so that OS is gone and the app is ours, as every app of a dead OS is: it is SIGKILLed (as a
    /// background reclaim is) and we wait — at most 10 s — for it to let go of the home. An app tied to
    /// its OS (`PhoneActivation.tetherToOS`) is already dying when we get here; this finishes the job,
    /// and covers an app launched before apps were tied.
    func reclaimOrphan(_ pid: pid_t) throws {
        logger.notice("os.orphan-reclaimed", ["pid": pid, "reason": "launched by an earlier \(programName) of this home, which is gone"])
        ProcessStop.signal(pid, SIGKILL)
        for _ in 0..<1000 {
            if FileLock.holder(of: home.path) == nil { return }
            usleep(10_000)
        }
        throw Conflict(description: "\(home.path) is still held by process \(pid), an app of an earlier \(programName), 10 s after SIGKILL")
    }
}
