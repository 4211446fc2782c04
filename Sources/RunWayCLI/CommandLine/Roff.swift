/// Text for the roff of `runway man`, which `man` and `groff -man -Tutf8 -ww` both render without a warning:
/// ASCII only (groff reads its input as Latin-1 unless `preconv` runs first, as `man` has it; every other
/// character is written `\[uXXXX]`, which both read), the help's Markdown code spans (`` `runway pair` ``) in
/// bold, hyphens as `\-` (options copy as typed), a backslash as `\e`, and a line that would start with a
/// control character (`.`, `'`) guarded with `\&`.
enum Roff {
    /// `text` for a roff text line (or several, at its newlines).
    static func text(_ text: String) -> String {
        var out = ""
        var code = false
        let ticks = text.unicodeScalars.filter { $0 == "`" }.count
        var ticksLeft = ticks - ticks % 2  // an unpaired last backtick is printed as one
        for scalar in text.unicodeScalars {
            switch scalar {
            case "`" where ticksLeft > 0:
                out += code ? "\\fR" : "\\fB"
                code.toggle()
                ticksLeft -= 1
            case "`": out += "\\(ga"
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "?"
            case _ where scalar.value > 0x7E: out += "\\[u" + hex(scalar.value) + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }.joined(separator: "\n")
    }

    /// Lines shown as they are, unfilled (`.nf` … `.fi`): examples, whose long command lines must not be
    /// adjusted (groff warns that it cannot) nor joined.
    static func verbatim(_ lines: [String]) -> [String] { [".nf"] + lines.map(text) + [".fi"] }

    /// groff's `\[uXXXX]`: upper-case hex, at least four digits, no leading zeros past four.
    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
