import Posix

/// Just enough of a VT100/xterm to read back what a full-screen view shows: printable text, CR, LF
/// (scrolling at the bottom), CSI H (cursor position), J and K (erase), m (ignored), the alternate screen
/// (?1049h/l) and the cursor's visibility (?25h/l). Tests assert on the screen a person would see, not on
/// the stream of escapes that drew it.
///
/// Characters take the cells a terminal gives them, by the C library's `wcwidth` in a UTF-8 locale — not
/// by the width table `runway` aligns with, so a view measuring wrongly draws a ragged screen here too:
/// a wide character (Hangul, kana, CJK) takes two cells (the second held by `Self.continuation`), a
/// combining mark none (it joins the character before it).
package struct ScreenEmulator {
    /// What fills the second cell of a wide character (never shown in `lines`).
    package static let continuation: Character = "\u{0}"

    package let columns: Int
    package let rows: Int
    private var grid: [[Character]]
    private var savedMain: [[Character]]?
    private var row = 0, column = 0
    package private(set) var cursorVisible = true
    package private(set) var isAlternateScreen = false

    package init(columns: Int, rows: Int) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        grid = Self.blank(self.columns, self.rows)
    }

    /// The screen's rows, trailing blanks removed.
    package var lines: [String] {
        grid.map { line in
            var text = String(line.filter { $0 != Self.continuation })
            while text.last == " " { text.removeLast() }
            return text
        }
    }

    package var text: String { lines.joined(separator: "\n") }

    package mutating func feed(_ output: String) {
        var scalars = Array(output.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\u{1B}":
                guard let next = scalars.popFirst() else { return }
                if next == "[" {
                    var parameters = ""
                    while let c = scalars.popFirst() {
                        if (0x40...0x7E).contains(c.value) { csi(parameters, c); break }
                        if c == "\u{18}" { break }  // CAN: the sequence is cancelled
                        parameters.unicodeScalars.append(c)
                    }
                }
            case "\r": column = 0
            case "\n": lineFeed()
            case "\u{18}", "\u{07}", "\u{08}": continue
            default:
                guard scalar.value >= 0x20 else { continue }
                let width = Self.cells(scalar)
                if width == 0 {
                    // A combining mark: part of the character before it.
                    if column > 0, let previous = grid[row][column - 1].unicodeScalars.first {
                        var combined = String(previous)
                        combined.unicodeScalars.append(scalar)
                        grid[row][column - 1] = Character(combined)
                    }
                    continue
                }
                if column + width <= columns {
                    grid[row][column] = Character(scalar)
                    if width == 2 { grid[row][column + 1] = Self.continuation }
                    column += width
                } else {
                    column = columns
                }
            }
        }
    }

    private mutating func lineFeed() {
        if row == rows - 1 {
            grid.removeFirst()
            grid.append([Character](repeating: " ", count: columns))
        } else {
            row += 1
        }
    }

    private mutating func csi(_ parameters: String, _ final: Unicode.Scalar) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0.filter(\.isNumber)) }
        func number(_ index: Int, _ fallback: Int) -> Int { index < numbers.count ? numbers[index] ?? fallback : fallback }
        switch final {
        case "H", "f":
            row = min(rows - 1, max(0, number(0, 1) - 1))
            column = min(columns - 1, max(0, number(1, 1) - 1))
        case "J":
            let mode = number(0, 0)
            if mode == 2 {
                grid = Self.blank(columns, rows)
            } else if mode == 0 {
                for c in column..<columns { grid[row][c] = " " }
                for r in (row + 1)..<max(row + 1, rows) { grid[r] = [Character](repeating: " ", count: columns) }
            }
        case "K":
            for c in min(column, columns)..<columns { grid[row][c] = " " }
        case "h", "l":
            let on = final == "h"
            if parameters == "?25" { cursorVisible = on }
            if parameters == "?1049" && on != isAlternateScreen {
                isAlternateScreen = on
                if on {
                    savedMain = grid
                    grid = Self.blank(columns, rows)
                } else {
                    grid = savedMain ?? Self.blank(columns, rows)
                }
            }
        default:
            break
        }
    }

    /// The cells (columns) of `row` holding `character`, in order: where a person sees it on the screen.
    package func cells(of character: Character, inRow row: Int) -> [Int] {
        guard grid.indices.contains(row) else { return [] }
        return grid[row].indices.filter { grid[row][$0] == character }
    }

    /// The cells a terminal gives `scalar`: glibc's `wcwidth` in C.UTF-8, set for this thread only.
    static func cells(_ scalar: Unicode.Scalar) -> Int {
        guard scalar.value >= 0x300 else { return 1 }
        let previous = uselocale(utf8Locale)
        defer { uselocale(previous) }
        let width = wcwidthFunction?(wchar_t(bitPattern: scalar.value)) ?? 1
        return width < 0 ? 1 : Int(width)
    }

    /// `wcwidth` itself: Swift's Glibc module leaves it out (it needs _XOPEN_SOURCE), the library has it.
    private static let wcwidthFunction: (@convention(c) (wchar_t) -> Int32)? = {
        guard let symbol = dlsym(nil, "wcwidth") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (wchar_t) -> Int32).self)
    }()

    nonisolated(unsafe) private static let utf8Locale: locale_t? = newlocale(Int32(1 << LC_CTYPE), "C.UTF-8", nil)

    private static func blank(_ columns: Int, _ rows: Int) -> [[Character]] {
        [[Character]](repeating: [Character](repeating: " ", count: columns), count: rows)
    }
}
