/// "Did you mean": the known words closest to a mistyped one, as git and kubectl offer them. Shared by
/// every parser that meets an unknown word — a command, a subcommand, an option, a value from a list.
package enum Suggestions {
    /// The candidates within a few edits of `word` (a typo: a letter missing, extra, wrong or two swapped),
    /// or that start with it (a word cut short), nearest first, at most `limit`. Case is ignored.
    /// Nothing when nothing is close: a suggestion that is a guess helps nobody.
    package static func closest(to word: String, among candidates: [String], limit: Int = 3) -> [String] {
        let typed = Array(word.lowercased().unicodeScalars)
        guard !typed.isEmpty else { return [] }
        // Short words allow one edit, longer ones two, long ones three (`logbok` → `logbook`, `cout` → `count`).
        let allowed = typed.count <= 3 ? 1 : typed.count <= 8 ? 2 : 3
        var scored: [(distance: Int, candidate: String)] = []
        for candidate in Set(candidates) where candidate.lowercased() != word.lowercased() {
            let known = Array(candidate.lowercased().unicodeScalars)
            if typed.count >= 2 && known.starts(with: typed) {
                scored.append((1, candidate))
                continue
            }
            let distance = editDistance(typed, known, cap: allowed)
            if distance <= allowed { scored.append((distance, candidate)) }
        }
        return scored.sorted { ($0.distance, $0.candidate) < ($1.distance, $1.candidate) }.prefix(limit).map(\.candidate)
    }

    /// The optimal string alignment distance (Levenshtein plus the swap of two neighbours), stopping
    /// early once every path is past `cap` (then the answer is `cap + 1`): words from a command line are
    /// short, but a pasted one need not be.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], cap: Int) -> Int {
        if abs(a.count - b.count) > cap { return cap + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] { value = min(value, previous2[j - 2] + 1) }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > cap { return cap + 1 }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// `(did you mean --count?)`, `(did you mean 'phone logbook' or 'phone logs'?)`, or "" for none.
    package static func phrase(_ suggestions: [String], quoted: Bool = false) -> String {
        guard !suggestions.isEmpty else { return "" }
        let words = suggestions.map { quoted ? "'\($0)'" : $0 }
        let list = words.count == 1 ? words[0] : words.dropLast().joined(separator: ", ") + " or " + words.last!
        return " (did you mean \(list)?)"
    }
}
