import Foundation
import Glibc

/// A pseudo-terminal pair, for running a tool whose stdin must be a terminal (`isatty(0)`): a
/// confirmation prompt, typed into from the test.
final class PseudoTerminal {
    /// The controlling side: what is written here is what the tool reads.
    let master: Int32
    /// The terminal side, the tool's stdin.
    let terminal: FileHandle

    init() throws {
        // posix_openpt and friends need _XOPEN_SOURCE, which Swift's Glibc module does not define: the
        // same through /dev/ptmx and Linux's ioctls (TIOCSPTLCK unlocks the pair, TIOCGPTN names it).
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            let error = errno
            if master >= 0 { close(master) }
            throw HarnessError("no pseudo-terminal: errno \(error)")
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            close(master)
            throw HarnessError("cannot open /dev/pts/\(number): errno \(errno)")
        }
        terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
    }

    /// Types `text` ahead: the terminal holds it until the tool reads it.
    func type(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    deinit { close(master) }
}
