/// A small file mapped shared into memory, read-write: what one process writes there another that maps
/// the same file sees at once (`OSServices.DeviceClockPage`, the device clock the apps' processes read).
/// The file is made (mode 0600) and sized when missing; the mapping is this object's, unmapped when it goes.
package final class MappedFile {
    package let path: String
    package let byteCount: Int
    /// The first byte of the mapping.
    package let base: UnsafeMutableRawPointer

    package init(path: String, byteCount: Int) throws(SystemError) {
        self.path = path
        self.byteCount = byteCount
        let raw = try systemCall("open(\(path))") { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        let fd = FileDescriptor(adopting: raw)
        defer { fd.close() }
        _ = try systemCall("ftruncate(\(path))") { ftruncate(fd.rawValue, off_t(byteCount)) }
        let mapped = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED, fd.rawValue, 0)
        guard let mapped, mapped != MAP_FAILED else { throw SystemError("mmap(\(path))", errno: Glibc.errno) }
        base = mapped
    }

    deinit { munmap(base, byteCount) }
}
