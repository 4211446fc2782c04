import Glibc

/// A pseudo-terminal pair, for running a tool whose stdin or stdout must be a terminal (`isatty`): the
/// controlling side (`controller`) writes what the tool reads and reads what it writes.
package final class PseudoTerminal: @unchecked Sendable {
    /// The controlling side.
    package let controller: FileDescriptor
    /// The terminal side, the tool's stdin, stdout or stderr.
    package let terminal: FileDescriptor

    package init() throws(SystemError) {
        // posix_openpt and friends need _XOPEN_SOURCE, which Swift's Glibc module does not define: the
        // same through /dev/ptmx and Linux's ioctls (TIOCSPTLCK unlocks the pair, TIOCGPTN names it).
        controller = try FileDescriptor.open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let raw = controller.rawValue
        _ = try systemCall("ioctl(TIOCSPTLCK)") { ioctl(raw, 0x4004_5431, &unlock) }
        _ = try systemCall("ioctl(TIOCGPTN)") { ioctl(raw, 0x8004_5430, &number) }
        terminal = try FileDescriptor.open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    }

    /// Tells the tool its window's size (`TIOCSWINSZ`).
    package func setWindowSize(rows: Int, columns: Int) throws(SystemError) {
        var size = winsize(ws_row: UInt16(clamping: rows), ws_col: UInt16(clamping: columns), ws_xpixel: 0, ws_ypixel: 0)
        let raw = controller.rawValue
        _ = try systemCall("ioctl(TIOCSWINSZ)") { ioctl(raw, UInt(TIOCSWINSZ), &size) }
    }

    /// What the tool wrote, waiting up to `milliseconds` for it: the bytes read (none after a wait with
    /// nothing), nil once the terminal side is closed (the tool and all it started exited).
    package func output(waitingUpTo milliseconds: Int32) -> [UInt8]? {
        guard (try? controller.waitUntil(.readable, timeoutMilliseconds: milliseconds)) == true else { return [] }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let result = try? controller.read(into: &buffer)
        switch result {
        case let .bytes(n)?: return Array(buffer[0..<n])
        case .wouldBlock?: return []
        case .endOfFile?, nil: return nil
        }
    }

    /// Types `text` ahead: the terminal holds it until the tool reads it.
    package func type(_ text: String) { try? controller.writeAll(Array(text.utf8)) }
}
