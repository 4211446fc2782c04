import Posix

/// "Did you mean" for command words: `runway phone logbok` → `phone logbook`, `runway fone status` →
/// `phone status`, `runway watch logbook` → `phone logbook` (the right word under the other device).
enum CommandSuggestions {
    /// The words of `words` that name a group of commands (`phone`), and whole command paths the
    /// user may have meant, nearest first.
    static func suggest(_ words: [String], in commands: [CLI.Command] = CLI.commands) -> (known: [String], suggestions: [String]) {
        func isKnown(_ prefix: ArraySlice<String>) -> Bool { commands.contains { $0.path.starts(with: prefix) } }
        var depth = words.count
        while depth > 0 && !isKnown(words.prefix(depth)) { depth -= 1 }
        let known = Array(words.prefix(depth))
        guard depth < words.count else { return (known, []) }
        let wrong = words[depth], rest = words.dropFirst(depth + 1)
        // The longest known path a candidate's words start with: `phone logbook` of `phone logbook now`.
        func cut(_ candidate: [String]) -> String {
            var count = candidate.count
            while count > depth + 1 && !isKnown(candidate.prefix(count)) { count -= 1 }
            return candidate.prefix(count).joined(separator: " ")
        }
        let next = commands.filter { $0.path.count > depth && $0.path.starts(with: known) }.map { $0.path[depth] }
        let close = Suggestions.closest(to: wrong, among: next)
        if !close.isEmpty { return (known, unique(close.map { cut(known + [$0] + rest) })) }
        // Not a typo at this level: the same word elsewhere (`watch logbook` is `phone logbook`).
        let elsewhere = commands.filter { command in
            guard let index = command.path.firstIndex(of: wrong) else { return false }
            return command.path.dropFirst(index + 1).starts(with: rest.prefix(command.path.count - index - 1))
        }
        return (known, Array(unique(elsewhere.sorted { $0.path.count < $1.path.count }.map { $0.path.joined(separator: " ") }).prefix(3)))
    }

    private static func unique(_ list: [String]) -> [String] {
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }
}
