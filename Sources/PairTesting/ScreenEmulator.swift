/// Just enough of a VT100/xterm to read back what a full-screen view shows: printable text, CR, LF
/// (scrolling at the bottom), CSI H (cursor position), J and K (erase), m (ignored), the alternate screen
/// (?1049h/l) and the cursor's visibility (?25h/l). Tests assert on the screen a person would see, not on
/// the stream of escapes that drew it.
public struct ScreenEmulator {
    public let columns: Int
    public let rows: Int
    private var grid: [[Character]]
    private var savedMain: [[Character]]?
    private var row = 0, column = 0
    public private(set) var cursorVisible = true
    public private(set) var isAlternateScreen = false

    public init(columns: Int, rows: Int) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        grid = Self.blank(self.columns, self.rows)
    }

    /// The screen's rows, trailing blanks removed.
    public var lines: [String] {
        grid.map { line in
            var text = String(line)
            while text.last == " " { text.removeLast() }
            return text
        }
    }

    public var text: String { lines.joined(separator: "\n") }

    public mutating func feed(_ output: String) {
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
                if column < columns {
                    grid[row][column] = Character(scalar)
                    column += 1
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

    private static func blank(_ columns: Int, _ rows: Int) -> [[Character]] {
        [[Character]](repeating: [Character](repeating: " ", count: columns), count: rows)
    }
}
