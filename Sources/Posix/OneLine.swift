/// Text from outside (a command name, a key, a version) quoted inside a message that must stay one
/// line: control characters are escaped (`\n`, `\t`, `\u{1B}`), and a long text is cut, so no input can
/// break a message in two or make it as long as the input.
package enum OneLine {
    /// `'text'`, escaped and cut at `limit` characters (then `…`).
    package static func quote(_ text: String, limit: Int = 80) -> String { "'" + escape(text, limit: limit) + "'" }

    /// The text escaped and cut, without quotes (`unknown option --x\n`).
    package static func escape(_ text: String, limit: Int = 80) -> String {
        var out = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == limit {
                out += "…"
                break
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}":
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
