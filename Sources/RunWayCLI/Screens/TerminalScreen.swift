import Posix
import TerminalViews

/// What the terminal on stdout can show: whether there is one, its size, whether it takes UTF-8.
enum Terminal {
    static var isTerminal: Bool { isatty(1) == 1 }

    /// Columns and rows of the terminal on stdout (80 × 24 when it cannot be asked), within 20...500 × 5...200.
    static func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (min(500, max(20, Int(size.ws_col))), min(200, max(5, Int(size.ws_row))))
    }

    /// Braille and blocks unless `--ascii` is given or the locale (LC_ALL, LC_CTYPE, LANG — the first one
    /// set) is not UTF-8.
    static func glyphStyle(ascii: Bool) -> GlyphStyle {
        if ascii { return .ascii }
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { continue }
            let lower = value.lowercased()
            return lower.contains("utf-8") || lower.contains("utf8") ? .unicode : .ascii
        }
        return .ascii
    }

    static let asciiSpec = ArgumentSpec.flag("ascii", "plain ASCII pictures (the default when the locale is not UTF-8)")
}

// The bytes that give the terminal back, kept where a signal handler can write them without allocating.
nonisolated(unsafe) private var restoreBytes: UnsafeMutablePointer<UInt8>?
nonisolated(unsafe) private var restoreCount = 0

/// A full-screen view: the alternate screen with the cursor hidden, redrawn in place, and given back —
/// main screen, cursor, attributes — however the view ends: returning, Ctrl-C, SIGTERM or SIGHUP.
final class FullScreen {
    /// CAN first: it cancels an escape sequence a signal may have cut in half.
    private static let restore = "\u{18}\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    init() {
        let bytes = Array(Self.restore.utf8)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        buffer.initialize(from: bytes, count: bytes.count)
        restoreBytes = buffer
        restoreCount = bytes.count
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in
                if let bytes = restoreBytes { _ = write(1, bytes, restoreCount) }
                _exit(0)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
        unblockSignals([SIGINT, SIGTERM, SIGHUP])
        Output.write(1, "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Draws `lines` from the top left, each cut to the width, as one write (no flicker); the rest of the
    /// screen is cleared. Lines beyond the screen's height are left out.
    func draw(_ lines: [String]) {
        let (columns, rows) = Terminal.size()
        let shown = lines.prefix(rows).map { TextWidth.fit($0, columns).trimmedRight + "\u{1B}[K" }
        Output.write(1, "\u{1B}[H" + shown.joined(separator: "\r\n") + "\u{1B}[J")
    }

    func leave() {
        for number in [SIGINT, SIGTERM, SIGHUP] { signal(number, SIG_DFL) }
        Output.write(1, Self.restore)
    }
}

extension String {
    var trimmedRight: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}

/// `HH:MM:SS` now, in local time (TZ).
func localClock() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    let pad = { (n: Int32) in n < 10 ? "0\(n)" : "\(n)" }
    return "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))"
}

/// Seconds on the monotonic clock (durations and rates; never the wall clock).
func monotonicNow() -> Double { Double(SystemClock.now()) / 1e9 }
