import CLinux
import Glibc

/// Starting a child process with `posix_spawn`, set up the one way every launcher here needs it: the
/// child's descriptors placed by file actions, its signal mask emptied (a child of a Dispatch or test
/// thread would otherwise inherit a mask that blocks SIGTERM), chosen signals back at their default
/// disposition, optionally a session of its own (`setsid`) and nothing of ours inherited but what the
/// actions place. `phone-os` launches the app with it, `runway up` its daemons, the test harness
/// everything it runs. A failure is a `SystemError` from the funnel, naming the executable.
package struct Spawn {
    /// One step the child takes before `exec`, in order.
    package enum Action: Sendable, Equatable {
        /// `open(path, flags, mode)` placed at `descriptor`.
        case open(Int32, path: String, flags: Int32, mode: mode_t)
        /// `dup2(from, to)`: `to` becomes a copy of this process's `from` (close-on-exec cleared).
        case duplicate(Int32, to: Int32)
        case close(Int32)
    }

    package var executable: String
    /// The whole `argv`, `argv[0]` first.
    package var arguments: [String]
    /// `NAME=value` entries; nil passes this process's own environment.
    package var environment: [String]?
    package var actions: [Action] = []
    /// Empty the child's signal mask (`POSIX_SPAWN_SETSIGMASK`).
    package var resetSignalMask = true
    /// Signals set back to their default disposition in the child (`POSIX_SPAWN_SETSIGDEF`).
    package var defaultSignals: [Int32] = [SIGPIPE]
    /// A session of its own (`POSIX_SPAWN_SETSID`): closing the terminal leaves it running.
    package var newSession = false
    /// Close every descriptor open here above 2 that no action places: a child holding a parent's pipe
    /// open keeps whoever reads that pipe waiting for the child.
    package var closeInheritedDescriptors = false

    package init(_ executable: String, arguments: [String]? = nil, environment: [String]? = nil) {
        self.executable = executable
        self.arguments = arguments ?? [executable]
        self.environment = environment
    }

    /// Starts the child; returns its pid. The caller owns the child: it must reap it (`waitpid`).
    package func run() throws(SystemError) -> pid_t {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        var placed: Set<Int32> = []
        for action in actions {
            switch action {
            case .open(let descriptor, let path, let flags, let mode):
                posix_spawn_file_actions_addopen(&fileActions, descriptor, path, flags, mode)
                placed.insert(descriptor)
            case .duplicate(let from, let to):
                posix_spawn_file_actions_adddup2(&fileActions, from, to)
                placed.insert(to)
            case .close(let descriptor):
                posix_spawn_file_actions_addclose(&fileActions, descriptor)
            }
        }
        if closeInheritedDescriptors {
            // Everything above the highest descriptor placed goes in one action (`close_range` in the
            // child): listing and closing each one open here made spawning quadratic — the 2,000th
            // daemon of a thousand pairs listed /proc/self/fd and closed 2,000 pipes. Only a gap below
            // the highest placed descriptor is closed one by one.
            let highest = max(2, placed.max() ?? 2)
            if highest > 3 {
                for descriptor in Self.openDescriptors() where descriptor > 2 && descriptor < highest && !placed.contains(descriptor) {
                    posix_spawn_file_actions_addclose(&fileActions, descriptor)
                }
            }
            posix_spawn_file_actions_addclosefrom_np(&fileActions, highest + 1)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags: Int32 = 0
        if resetSignalMask {
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            flags |= Int32(POSIX_SPAWN_SETSIGMASK)
        }
        if !defaultSignals.isEmpty {
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in defaultSignals { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            flags |= Int32(POSIX_SPAWN_SETSIGDEF)
        }
        if newSession { flags |= 0x80 }  // POSIX_SPAWN_SETSID (glibc 2.26), not exported to Swift
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        _ = try systemCall("posix_spawn \(executable)", retryOnInterrupt: false) { () -> Int32 in
            let result = Self.withCStrings(arguments) { argv in
                if let environment {
                    return Self.withCStrings(environment) { posix_spawn(&pid, executable, &fileActions, &attributes, argv, $0) }
                }
                return posix_spawn(&pid, executable, &fileActions, &attributes, argv, environ)
            }
            // posix_spawn returns its error rather than setting errno: hand it to the funnel as errno.
            guard result == 0 else { errno = result; return -1 }
            return 0
        }
        return pid
    }

    /// This process's environment as `NAME=value` entries, without the `removing` names.
    package static func currentEnvironment(removing names: Set<String> = []) -> [String] {
        var result: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if !names.contains(name) { result.append(text) }
            pointer += 1
        }
        return result
    }

    /// This process's open descriptors (from /proc/self/fd).
    package static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var result: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let descriptor = Int32(name), descriptor != own { result.append(descriptor) }
        }
        return result
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}

extension Spawn {
    /// Replaces this process's program with `executable` (`execve`): the pid, the descriptors without
    /// close-on-exec and the session stay, so whoever started us (a supervisor waiting for `READY=1`, a
    /// test holding the pid) keeps talking to the same process. Returns only on failure.
    package static func replaceProcess(_ executable: String, arguments: [String], environment: [String]) -> SystemError {
        func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] { strings.map { strdup($0) } + [nil] }
        let argv = cStrings(arguments)
        let envp = cStrings(environment)
        execve(executable, argv, envp)
        let error = SystemError("execve(\(executable))", errno: errno)
        for pointer in argv + envp { free(pointer) }
        return error
    }
}
