import Glibc
import Synchronization

/// Named places where a process can be made to die on purpose, to prove that every window between
/// receive, commit, acknowledge and delete is safe.
///
/// `RUNWAY_CRASH_AT=name[:n]` makes the process SIGKILL itself the n-th time (default 1st) it passes
/// the point `name`. Read once at start-up; when unset, `hit` is one comparison against nil.
package enum CrashPoint {
    private static let target: (name: String, count: Int)? = parse(getenv("RUNWAY_CRASH_AT").map { String(cString: $0) })
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
        guard pass == target.count else { return }
        let line = Array("crash point \(name) reached (pass \(pass)): SIGKILL\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        kill(getpid(), SIGKILL)
    }
}
