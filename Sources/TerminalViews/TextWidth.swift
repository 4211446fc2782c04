/// Display columns of text on a terminal: East Asian wide characters (Hangul, kana, CJK ideographs,
/// fullwidth forms, most emoji) take two, combining marks none (`DisplayWidthTable`). Everything that
/// boxes or aligns text measures it here — never with `String.count`, which counts `업데이트` as 4 where
/// the terminal draws 8.
package enum TextWidth {
    package static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width($1) }
    }

    package static func width(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x300 { return v == 0 ? 0 : 1 }
        if contains(DisplayWidthTable.zero, v) { return 0 }
        return contains(DisplayWidthTable.wide, v) ? 2 : 1
    }

    /// Whether `value` falls in one of the (first, last) pairs of `table`, which are in order.
    static func contains(_ table: [UInt32], _ value: UInt32) -> Bool {
        var low = 0, high = table.count / 2 - 1
        while low <= high {
            let middle = (low + high) / 2
            if value < table[2 * middle] {
                high = middle - 1
            } else if value > table[2 * middle + 1] {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// `text` cut to at most `columns` display columns (an ellipsis marks a cut), then padded to exactly that.
    package static func fit(_ text: String, _ columns: Int) -> String {
        let columns = Swift.max(0, columns)
        var out = "", used = 0
        let total = of(text)
        for character in text {
            let w = of(String(character))
            if total > columns && used + w > columns - 1 {
                if columns > 0 && used < columns { out += "…"; used += 1 }
                break
            }
            if used + w > columns { break }
            out.append(character)
            used += w
        }
        return out + String(repeating: " ", count: Swift.max(0, columns - used))
    }

    /// `text` followed by spaces up to `columns` display columns (never cut).
    package static func pad(_ text: String, _ columns: Int) -> String {
        text + String(repeating: " ", count: Swift.max(0, columns - of(text)))
    }

    /// `text` broken into lines of at most `columns` display columns: at spaces where there are some, and
    /// between any two characters where a word is wider than the line (Japanese has no spaces). Each line
    /// of `text` (`\n`) starts a new one; an empty line stays.
    package static func wrap(_ text: String, _ columns: Int) -> [String] {
        let columns = Swift.max(1, columns)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = "", used = 0
            func flush() {
                while line.last == " " { line.removeLast() }
                lines.append(line)
                line = ""
                used = 0
            }
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                let w = of(String(word))
                let space = used > 0 ? 1 : 0
                if used > 0 && used + space + w > columns { flush() }
                if used > 0 {
                    line += " "
                    used += 1
                }
                if w <= columns - used {
                    line += word
                    used += w
                    continue
                }
                // Wider than what is left of a line: character by character.
                for character in word {
                    let cw = of(String(character))
                    if used + cw > columns && used > 0 { flush() }
                    line.append(character)
                    used += cw
                }
            }
            flush()
        }
        return lines
    }
}
