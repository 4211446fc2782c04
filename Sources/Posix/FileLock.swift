import Glibc

/// An exclusive `flock` on a lock file, or on a directory itself: one daemon per home.
///
/// The holder's pid is written into the file, so a second daemon can say who holds it. The lock goes
/// away with the process, however it dies, so a SIGKILLed daemon never leaves a home locked.
public final class FileLock {
    public enum LockError: Error, CustomStringConvertible, Sendable {
        case heldBy(pid: Int32?, path: String)
        case system(SystemError)

        public var description: String {
            switch self {
            case let .heldBy(pid?, path): return "\(path) is locked by process \(pid)"
            case let .heldBy(nil, path): return "\(path) is locked by another process"
            case let .system(error): return error.description
            }
        }
    }

    public let path: String
    private let descriptor: FileDescriptor

    /// Takes the lock or throws `heldBy` at once; never waits.
    public init(path: String) throws(LockError) {
        self.path = path
        let raw = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard raw >= 0 else { throw .system(SystemError("open(\(path))", errno: Glibc.errno)) }
        descriptor = FileDescriptor(adopting: raw)
        do {
            _ = try systemCall("flock(\(path))") { flock(raw, LOCK_EX | LOCK_NB) }
        } catch  where error.errno == EWOULDBLOCK {
            throw .heldBy(pid: Self.readPID(raw), path: path)
        } catch {
            throw .system(error)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(raw, 0)
        _ = pid.withUnsafeBytes { pwrite(raw, $0.baseAddress, $0.count, 0) }
    }

    /// Takes the lock, waiting for whoever holds it to let go — at most `milliseconds`, then `heldBy`.
    /// For short critical sections shared by commands run at once (the pair registry's
    /// read-change-write, one `runway up` of a home at a time), where waiting is right and refusing is not.
    public convenience init(path: String, waitingUpTo milliseconds: Int) throws(LockError) {
        var waited = 0
        while true {
            do {
                try self.init(path: path)
                return
            } catch .heldBy(let pid, let path) {
                guard waited < milliseconds else { throw .heldBy(pid: pid, path: path) }
            } catch {
                throw error
            }
            usleep(5_000)
            waited += 5
        }
    }

    /// Takes the lock with `take`; when its holder is dead or dying (`ProcessStop.isGoingAway`: a
    /// process SIGKILLed a moment ago whose leader is a zombie while a thread of it finishes its I/O
    /// still holds the lock), waits for it to let go — at most `milliseconds` — instead of refusing: a
    /// supervisor that relaunches at once must not be turned away by the process it is replacing. A
    /// live holder is `heldBy` at once.
    public static func takeWaitingForTheDead(milliseconds: Int = 10_000, _ take: () throws(LockError) -> FileLock) throws(LockError) -> FileLock {
        let deadline = SystemClock.now() + UInt64(milliseconds) * 1_000_000
        while true {
            do {
                return try take()
            } catch .heldBy(let pid, let path) {
                guard let pid, ProcessStop.isGoingAway(pid), SystemClock.now() < deadline else { throw .heldBy(pid: pid, path: path) }
            } catch {
                throw error
            }
            usleep(10_000)
        }
    }

    /// Takes an exclusive lock on the directory itself (the home), and writes our pid into `pidFile`
    /// for whoever wants to know who holds it. The lock is on the directory's inode, so it does not
    /// depend on any file name in it surviving: remove `pidFile` and the home is still locked.
    public init(directory: String, pidFile: String) throws(LockError) {
        self.path = directory
        let raw = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard raw >= 0 else { throw .system(SystemError("open(\(directory))", errno: Glibc.errno)) }
        descriptor = FileDescriptor(adopting: raw)
        do {
            _ = try systemCall("flock(\(directory))") { flock(raw, LOCK_EX | LOCK_NB) }
        } catch  where error.errno == EWOULDBLOCK {
            throw .heldBy(pid: Self.readPID(path: pidFile), path: directory)
        } catch {
            throw .system(error)
        }
        Self.writePID(to: pidFile)
    }

    /// Writes this process's pid into `path` (best effort: the pid is for messages, not the lock).
    public static func writePID(to path: String) {
        let raw = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard raw >= 0 else { return }
        defer { Glibc.close(raw) }
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(raw, $0.baseAddress, $0.count, 0) }
    }

    private static func readPID(path: String) -> Int32? {
        let raw = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard raw >= 0 else { return nil }
        defer { Glibc.close(raw) }
        return readPID(raw)
    }

    /// Releases the lock (closing the descriptor releases it too).
    public func unlock() { descriptor.close() }

    /// Whether some process holds the lock at `path` right now, and which (nil if nobody does).
    public static func holder(of path: String) -> Int32?? {
        let raw = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard raw >= 0 else { return .none }
        defer { Glibc.close(raw) }
        if flock(raw, LOCK_SH | LOCK_NB) == 0 {
            flock(raw, LOCK_UN)
            return .none
        }
        return .some(readPID(raw))
    }

    /// Whether some process holds the lock on `directory` right now, and which, from `pidFile` (nil if
    /// nobody does): the directory lock's counterpart of `holder(of:)`.
    public static func holder(ofDirectory directory: String, pidFile: String) -> Int32?? {
        guard case .some = holder(of: directory) else { return .none }
        return .some(readPID(path: pidFile))
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 31, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[0..<n], as: UTF8.self).trimmingWhitespace()
        return Int32(text)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
