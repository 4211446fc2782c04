import Glibc
import Synchronization

/// Named places where a process can be made to die on purpose, to prove that every window between
/// receive, commit, acknowledge and delete is safe.
///
/// `RUNWAY_CRASH_AT=name[:n]` makes the process SIGKILL itself the n-th time (default 1st) it passes
/// the point `name`. Read once at start-up; when unset, `hit` is one comparison against nil.
/// `RUNWAY_CRASH_ONCE=PATH` with it: the point fires at a pass only while `PATH` does not exist, and
/// creates it first — once across processes and launches (an OS passes its environment to every launch of
/// its app), whatever the count; a test removes `PATH` to arm it again.
package enum CrashPoint {
    private static let target: (name: String, count: Int)? = parse(getenv("RUNWAY_CRASH_AT").map { String(cString: $0) })
    private static let oncePath: String? = getenv("RUNWAY_CRASH_ONCE").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    private static let passes = Atomic<Int>(0)

    static func parse(_ value: String?) -> (name: String, count: Int)? {
        guard let value, !value.isEmpty else { return nil }
        let parts = value.split(separator: ":", maxSplits: 1)
        let count = parts.count == 2 ? Int(parts[1]) ?? 1 : 1
        return (String(parts[0]), max(count, 1))
    }

    /// Whether any crash point is armed in this process.
    package static var isArmed: Bool { target != nil }

    /// Dies here, by SIGKILL, if this is the armed point's n-th pass.
    @inline(__always)
    package static func hit(_ name: StaticString) {
        guard let target else { return }
        fire(name.description, target)
    }

    private static func fire(_ name: String, _ target: (name: String, count: Int)) {
        guard name == target.name else { return }
        let pass = passes.add(1, ordering: .relaxed).newValue
        if let oncePath {
            // Any pass while the marker is absent (the count is the marker's): fired already, by this
            // process or another (it exists), or the marker cannot be made — no crash.
            let fd = open(oncePath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return }
            close(fd)
        } else {
            guard pass == target.count else { return }
        }
        let line = Array("crash point \(name) reached (pass \(pass)): SIGKILL\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        kill(getpid(), SIGKILL)
    }
}
