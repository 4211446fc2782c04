import CLinux
import Glibc

/// Tells when a file appears in a directory (`inotify`: created, or moved in), as a readable
/// descriptor for the event loop. The watch uses it to notice the phone's link socket appearing — the
/// phone coming into range — instead of waiting out its reconnect backoff.
package final class DirectoryWatcher {
    package let descriptor: FileDescriptor
    package let directory: String

    /// Names appearing (created, moved in).
    package static let arrivals = UInt32(IN_CREATE | IN_MOVED_TO)
    /// Names appearing or going away (deleted, moved out), and the directory itself going.
    package static let arrivalsAndRemovals = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

    /// `events`: the inotify mask (default: a name appears — created, or moved in).
    package init(directory: String, events: UInt32 = DirectoryWatcher.arrivals) throws(SystemError) {
        let raw = try systemCall("inotify_init1") { inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK)) }
        descriptor = FileDescriptor(adopting: raw)
        self.directory = directory
        _ = try systemCall("inotify_add_watch(\(directory))") {
            inotify_add_watch(raw, directory, events)
        }
    }

    /// The names the watched events happened to since the last call.
    package func drain() -> [String] {
        var names: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Through the funnel: EINTR retried; nothing more to read (EAGAIN) or a failure ends the drain.
        while let n = try? nonBlockingCall("read(inotify)", { buffer.withUnsafeMutableBytes { Glibc.read(descriptor.rawValue, $0.baseAddress, $0.count) } }),
            n > 0
        {
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let length = buffer.withUnsafeBytes { raw -> Int in
                    Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                let nameBytes = buffer[(offset + header)..<min(n, offset + header + length)].prefix { $0 != 0 }
                names.append(String(decoding: nameBytes, as: UTF8.self))
                offset += header + length
            }
        }
        return names
    }
}
