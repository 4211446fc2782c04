import Glibc

/// Files and directories, the few operations the homes need.
package enum Filesystem {
    package enum Kind: Sendable { case missing, directory, socket, regular, other }

    package static func kind(of path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFSOCK: return .socket
        case S_IFREG: return .regular
        default: return .other
        }
    }

    /// Which file a path names: its device and inode. Two paths (or one path at two moments) with the
    /// same identity are the same file.
    package struct Identity: Equatable, Sendable {
        package let device: UInt64
        package let inode: UInt64
    }

    /// The identity of what `path` names itself (a symbolic link is not followed), nil if nothing.
    package static func identity(of path: String) -> Identity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// What `lstat` says of `path`, nil if nothing is there.
    package static func status(of path: String) -> stat? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info
    }

    /// Removes `path` and makes the removal durable (fsync of its directory). A missing file is fine.
    package static func removeDurably(_ path: String) throws(SystemError) {
        if unlink(path) != 0 {
            let code = Glibc.errno
            if code == ENOENT { return }
            throw SystemError("unlink(\(path))", errno: code)
        }
        try syncDirectory(containing: path)
    }

    /// The names in directory `path` (not `.` and `..`), in no particular order.
    package static func entries(of path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError("opendir(\(path))", errno: Glibc.errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    package static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Creates `path` and any missing parents; `path` itself gets `mode` (also if it already existed).
    package static func makeDirectory(_ path: String, mode: mode_t) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if kind(of: prefix) == .missing {
                if mkdir(prefix, prefix == path || prefix + "/" == path ? mode : 0o755) != 0 && Glibc.errno != EEXIST {
                    throw SystemError("mkdir(\(prefix))", errno: Glibc.errno)
                }
            }
            prefix += "/"
        }
        _ = try systemCall("chmod(\(path))") { chmod(path, mode) }
    }

    /// Writes `bytes` to `path` atomically: a temporary file, fsync, rename, fsync of the directory.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(SystemError) {
        let temporary = path + ".tmp.\(getpid())"
        let raw = try systemCall("open(\(temporary))") { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
        let fd = FileDescriptor(adopting: raw)
        try fd.writeAll(bytes)
        _ = try systemCall("fsync(\(temporary))") { fsync(fd.rawValue) }
        fd.close()
        _ = try systemCall("rename(\(path))") { Glibc.rename(temporary, path) }
        try syncDirectory(containing: path)
    }

    package static func readFile(_ path: String) throws(SystemError) -> [UInt8] {
        let raw = try systemCall("open(\(path))") { open(path, O_RDONLY | O_CLOEXEC) }
        let fd = FileDescriptor(adopting: raw)
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try systemCall("read(\(path))") {
                chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    package static func syncDirectory(containing path: String) throws(SystemError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let raw = try systemCall("open(\(directory))") { open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        let fd = FileDescriptor(adopting: raw)
        _ = try systemCall("fsync(\(directory))") { fsync(fd.rawValue) }
    }

    /// An absolute form of `path` (relative paths are taken from the working directory).
    package static func absolutePath(_ path: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return normalize(cwd + "/" + path)
    }

    private static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }
}

// MARK: - Renames, links, removals, temporary directories, times

extension Filesystem {
    /// Renames `path` to `target` (atomic on one file system; replaces what was there).
    package static func rename(_ path: String, to target: String) throws(SystemError) {
        _ = try systemCall("rename(\(path))") { Glibc.rename(path, target) }
    }

    /// Makes `target` a hard link to `path`: false if `target` exists already.
    package static func link(_ path: String, as target: String) throws(SystemError) -> Bool {
        do {
            _ = try systemCall("link(\(target))") { Glibc.link(path, target) }
            return true
        } catch  where error.errno == EEXIST {
            return false
        }
    }

    /// Removes `path`; a missing file is fine (not made durable: `removeDurably` is).
    package static func remove(_ path: String) throws(SystemError) {
        do {
            _ = try systemCall("unlink(\(path))") { unlink(path) }
        } catch  where error.errno == ENOENT {}
    }

    /// A new directory with a unique name under `parent` (`mkdtemp`), mode 0700: its path.
    package static func makeTemporaryDirectory(in parent: String, prefix: String) throws(SystemError) -> String {
        var template = Array((parent + "/" + prefix + "XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError("mkdtemp(\(parent))", errno: Glibc.errno) }
        return String(cString: made)
    }

    /// The names in `directory` (not `.` and `..`), in the directory's order.
    package static func names(in directory: String) throws(SystemError) -> [String] {
        guard let handle = opendir(directory) else { throw SystemError("opendir(\(directory))", errno: Glibc.errno) }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// When a file's contents (`modified`) and its inode (`changed`) last changed, in nanoseconds since 1970.
    package struct Times: Equatable, Sendable {
        package let modified: Int64
        package let changed: Int64

        package init(_ info: stat) {
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        }
    }
}
