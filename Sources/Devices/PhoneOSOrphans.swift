import DeviceRuntime
import Glibc
import Posix

// MARK: - An app left behind by an earlier phone-os

extension PhoneOS {
    /// Whether `pid` is an app that a phone-os of this home launched: its environment names this home's
    /// `os-notify.sock` as its `NOTIFY_SOCKET`, which only phone-os sets (a phone-daemon started by hand,
    /// or by systemd, has another or none). Read from `/proc/PID/environ`, the environment it started with.
    func isAppOfThisHome(_ pid: pid_t) -> Bool {
        // A process on its way out (its first thread already a zombie, the others still closing its
        // files, the lock among them): its environment is gone, and it is no one's to keep. Waiting for
        // it to let go is all there is to do.
        if Self.isExiting(pid) { return true }
        guard let bytes = try? Filesystem.readFile("/proc/\(pid)/environ") else { return false }
        let wanted = Array("NOTIFY_SOCKET=\(PhoneActivation.osNotifyPath(home))".utf8)
        return bytes.split(separator: 0).contains { Array($0) == wanted }
    }

    /// Whether `pid` is dying: a zombie, or dead, by `/proc/PID/stat`.
    static func isExiting(_ pid: pid_t) -> Bool {
        guard let bytes = try? Filesystem.readFile("/proc/\(pid)/stat") else { return false }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return false }
        let state = text[text.index(after: close)...].drop { $0 == " " }.first
        return state == "Z" || state == "X"
    }

    /// Reclaims an app of this home that outlived the phone-os that launched it. We hold `HOME/os.lock`,
    /// so that phone-os is gone and the app is ours, as every app of a dead OS is: it is SIGKILLed (as a
    /// background reclaim is) and we wait — at most 10 s — for it to let go of the home. An app tied to
    /// its OS (`PhoneActivation.tetherToOS`) is already dying when we get here; this finishes the job,
    /// and covers an app launched before apps were tied.
    func reclaimOrphan(_ pid: pid_t) throws {
        logger.notice("os.orphan-reclaimed", ["pid": pid, "reason": "launched by an earlier phone-os of this home, which is gone"])
        kill(pid, SIGKILL)
        for _ in 0..<1000 {
            if FileLock.holder(of: home.path) == nil { return }
            usleep(10_000)
        }
        throw Conflict(description: "\(home.path) is still held by process \(pid), an app of an earlier phone-os, 10 s after SIGKILL")
    }
}
