import Glibc

/// What the kernel says of processes — on Linux read from `/proc`; a port answers from its own system
/// (`proc_pidpath`, `sysctl`, `proc_pid_rusage`).
package enum Processes {
    /// This process's executable, an absolute path; nil if it cannot be read.
    package static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `name` in the directory of this process's executable (a binary installed beside it); `name` alone
    /// if that cannot be read.
    package static func sibling(_ name: String) -> String {
        guard let own = executablePath() else { return name }
        return own.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/" + name
    }

    /// The environment `pid` started with (`NAME=VALUE`, each ended by a NUL); empty when it cannot be
    /// read (no such process, another user's).
    package static func startingEnvironment(of pid: pid_t) -> [UInt8] { (try? Filesystem.readFile("/proc/\(pid)/environ")) ?? [] }

    /// `pid`'s parent, nil if there is no such process.
    package static func parent(of pid: pid_t) -> pid_t? {
        guard let bytes = try? Filesystem.readFile("/proc/\(pid)/stat"), let close = bytes.lastIndex(of: 0x29) else { return nil }
        let fields = String(decoding: bytes[(close + 1)...], as: UTF8.self).split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// The text of one of `pid`'s kernel files (`status`, `smaps_rollup`, `smaps`), read to its end.
    private static func text(_ pid: pid_t, _ name: String) -> String? {
        (try? Filesystem.readFile("/proc/\(pid)/\(name)")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The number after `name:` in a kernel file of `key: value kB` lines.
    private static func field(_ name: String, in text: String) -> Int? {
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }

    /// A process's memory, in kB: its proportional set size (its private pages and its share of those it
    /// shares: what N of them add up to) and its private dirty pages.
    package static func memory(of pid: pid_t) -> (proportional: Int, privateDirty: Int)? {
        guard let rollup = text(pid, "smaps_rollup"), let pss = field("Pss", in: rollup), let dirty = field("Private_Dirty", in: rollup) else {
            return nil
        }
        return (pss, dirty)
    }

    /// The peak resident set size of a process, in kB.
    package static func peakResidentKilobytes(of pid: pid_t) -> Int? { text(pid, "status").flatMap { field("VmHWM", in: $0) } }

    /// A process's private dirty kB summed by what each mapping is: `[heap]`, `[stack]`, anonymous
    /// mappings (thread stacks, allocator arenas), and each file by its name. Largest first.
    package static func privateDirtyByMapping(of pid: pid_t) -> [(String, Int)] {
        guard let smaps = text(pid, "smaps") else { return [] }
        var totals: [String: Int] = [:]
        var current = "anonymous"
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.first?.isHexDigit == true {
                current = fields.count >= 6 ? String(fields[5...].joined(separator: " ").split(separator: "/").last ?? "") : "anonymous"
            } else if fields.first == "Private_Dirty:", fields.count >= 2, let kb = Int(fields[1]), kb > 0 {
                totals[current, default: 0] += kb
            }
        }
        return totals.sorted { $0.value > $1.value }
    }

    /// How many directory watchers (`DirectoryWatcher`) one user may hold, if the system says.
    package static func directoryWatcherLimit() -> Int? {
        guard let bytes = try? Filesystem.readFile("/proc/sys/fs/inotify/max_user_instances") else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingWhitespace())
    }

    /// Raises this process's soft limit on open descriptors towards `wanted` (at most the hard limit):
    /// the limit now.
    package static func raiseOpenFileLimit(to wanted: Int) throws(SystemError) -> Int {
        var limit = rlimit()
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        _ = try systemCall("getrlimit") { getrlimit(resource, &limit) }
        guard limit.rlim_cur < rlim_t(wanted) else { return Int(limit.rlim_cur) }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
        _ = try systemCall("setrlimit") { setrlimit(resource, &limit) }
        return Int(limit.rlim_cur)
    }
}
