// MARK: - Sparkline

/// One line of eight block heights, `▁▂▃▄▅▆▇█` (ASCII: `_.-=*#`), a blank for a missing value.
package enum Sparkline {
    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    static let asciiBlocks: [Character] = ["_", ".", "-", "=", "*", "#"]

    /// Exactly `values.count` characters. `floor` widens the scale (0 for counts, so a flat 500 is full).
    package static func render(_ values: [Double?], floor: Double? = nil, style: GlyphStyle = .unicode) -> String {
        let glyphs = style == .unicode ? blocks : asciiBlocks
        guard let scale = Scale(values, floor: floor) else { return String(repeating: " ", count: values.count) }
        return String(
            values.map { value -> Character in
                guard let value, value.isFinite else { return " " }
                // A constant series (or one value) is drawn low, not as a bar in the middle.
                if scale.high == scale.low { return value == 0 ? glyphs[0] : glyphs[glyphs.count - 1] }
                return glyphs[scale.level(value, levels: glyphs.count)]
            })
    }
}

// MARK: - Line chart

/// A line chart in braille (each cell 2 × 4 dots) or ASCII (`*`), with the high and low values written
/// on the left axis. Always `height` lines of the same display width, whatever the values.
package struct LineChart: Sendable {
    package var width: Int
    package var height: Int
    package var style: GlyphStyle
    /// Draws high values at the bottom: pace, where a smaller number is faster.
    package var inverted: Bool
    package var label: @Sendable (Double) -> String

    package init(
        width: Int, height: Int, style: GlyphStyle = .unicode, inverted: Bool = false,
        label: @escaping @Sendable (Double) -> String
    ) {
        self.width = min(500, max(1, width))
        self.height = min(100, max(1, height))
        self.style = style
        self.inverted = inverted
        self.label = label
    }

    package func render(_ values: [Double?]) -> [String] {
        let columns = style == .unicode ? width * 2 : width
        let rows = style == .unicode ? height * 4 : height
        let points = resample(values, into: columns)
        guard let scale = Scale(points) else {
            return axis(top: "", bottom: "", body: [String](repeating: String(repeating: " ", count: width), count: height), empty: true)
        }
        // The dot row of each column, 0 at the top.
        let levels: [Int?] = points.map { point in
            point.map { value in
                let level = scale.level(value, levels: rows)
                return inverted ? level : rows - 1 - level
            }
        }
        var grid = [[Bool]](repeating: [Bool](repeating: false, count: columns), count: rows)
        var previous: Int?
        for (x, level) in levels.enumerated() {
            guard let level else { previous = nil; continue }
            // Join a point to the one before it with a vertical run, so steep changes stay a line.
            let from = previous ?? level
            for y in min(from, level)...max(from, level) where style == .unicode || y == level {
                grid[y][x] = true
            }
            previous = level
        }
        let body: [String] = style == .unicode ? braille(grid) : grid.map { String($0.map { $0 ? "*" : " " }) }
        let (top, bottom) = inverted ? (scale.low, scale.high) : (scale.high, scale.low)
        return axis(top: label(top), bottom: label(bottom), body: body, empty: false)
    }

    /// Dots to braille cells: dot (col, row) of a cell is bit [0x01,0x02,0x04,0x40] / [0x08,0x10,0x20,0x80].
    private func braille(_ grid: [[Bool]]) -> [String] {
        let bits: [[UInt32]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]
        return (0..<height).map { row in
            var line = ""
            for cell in 0..<width {
                var code: UInt32 = 0
                for dx in 0..<2 {
                    for dy in 0..<4 where grid[row * 4 + dy][cell * 2 + dx] { code |= bits[dx][dy] }
                }
                line.unicodeScalars.append(code == 0 ? " " : Unicode.Scalar(0x2800 + code)!)
            }
            return line
        }
    }

    private func axis(top: String, bottom: String, body: [String], empty: Bool) -> [String] {
        let labelWidth = min(12, max(TextWidth.of(top), TextWidth.of(bottom), 1))
        let bar = style == .unicode ? "┤" : "|"
        return body.enumerated().map { index, line in
            let text = index == 0 ? top : (index == body.count - 1 ? bottom : "")
            let shown = empty && index == body.count / 2 ? TextWidth.fit("(no values)", width) : line
            return leftPad(text, labelWidth) + " " + bar + shown
        }
    }
}

/// `text` right-aligned in `columns` (cut from the left if longer).
func leftPad(_ text: String, _ columns: Int) -> String {
    let width = TextWidth.of(text)
    if width > columns { return TextWidth.fit(text, columns) }
    return String(repeating: " ", count: columns - width) + text
}

// MARK: - Bars

/// Horizontal bars in eighths of a cell (`▏▎▍▌▋▊▉█`, ASCII `#`), one per row, the longest `width` cells.
package enum Bars {
    static let eighths: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    package struct Row: Sendable {
        package var label: String
        package var value: Double?
        package var text: String
        package init(label: String, value: Double?, text: String) {
            self.label = label
            self.value = value
            self.text = text
        }
    }

    /// Bars start at `floor` (0 by default): a larger floor shows small differences between similar
    /// values, and the caller says so. A row without a positive finite value has no bar.
    package static func render(_ rows: [Row], width: Int, floor: Double = 0, style: GlyphStyle = .unicode) -> [String] {
        let width = min(500, max(1, width))
        let scale = Scale(rows.map(\.value), floor: floor.isFinite ? floor : 0)
        let labelWidth = min(16, rows.map { TextWidth.of($0.label) }.max() ?? 0)
        let textWidth = min(16, rows.map { TextWidth.of($0.text) }.max() ?? 0)
        return rows.map { row in
            var bar = ""
            if let value = row.value, value.isFinite, value > 0, let scale {
                let eighthsLong = Int((scale.fraction(value) * Double(width * 8)).rounded())
                let full = eighthsLong / 8, rest = eighthsLong % 8
                if style == .unicode {
                    bar = String(repeating: "█", count: full) + (rest > 0 ? String(eighths[rest - 1]) : "")
                    if bar.isEmpty { bar = "▏" }
                } else {
                    bar = String(repeating: "#", count: max(1, (eighthsLong + 4) / 8))
                }
            }
            return TextWidth.fit(row.label, labelWidth) + " " + TextWidth.fit(row.text, textWidth) + " " + TextWidth.fit(bar, width)
        }
    }
}
